"""The planner's chart: output tokens per second per GPU against tokens per second per
user, one frontier per GPU type (the trade-off curve practitioners read: moving right,
each user is served faster and each GPU serves fewer tokens in all).

Each line is the best per-GPU throughput the estimate finds at each per-user speed over
that GPU's set-ups (sims.planning.search._frontier); the target's per-user speed (1 / the
per-token target) is marked, and set-ups to its right meet the per-token target on average.
"""

from __future__ import annotations

from typing import Any

from sims.kit import charts

REFERENCE = "#9e9e9e"
PER_USER = "Speed per user (output tokens/s)"
PER_GPU = "Throughput per GPU (output tokens/s)"


def frontier_chart(rows: list[dict[str, Any]], tpot_s: float, model: str) -> dict[str, Any]:
    """One line per GPU type over `rows` ({gpu, per_user, per_gpu}); with no set-up to
    draw, one point at the origin named so, and the title says so."""
    note = ""
    if not rows:
        rows = [{"gpu": "no set-up", "per_user": 0.0, "per_gpu": 0.0}]
        note = "no set-up fits"
    target = 1 / tpot_s
    top = max([r["per_gpu"] for r in rows] or [1.0])
    right = max([r["per_user"] for r in rows] + [target]) * 1.05
    return charts.chart(
        charts.titled(f"Throughput per GPU against speed per user, {model}", note),
        "For each GPU type, the most output tokens per second each GPU serves at each speed "
        "per user, by the planner's estimate; the dashed line is the per-token target.",
        rows,
        layer=[
            {"mark": {"type": "line", "point": True},
             "encoding": {
                 "x": {"field": "per_user", "type": "quantitative", "title": PER_USER,
                       "scale": {"domain": [0, right], "nice": False}},
                 "y": {"field": "per_gpu", "type": "quantitative", "title": PER_GPU,
                       **charts.value_axis(top)},
                 "color": {"field": "gpu", "type": "nominal", "title": None,
                           "legend": {"orient": "bottom", "title": None}},
                 "tooltip": [{"field": "gpu", "title": "GPU"},
                             {"field": "per_user", "type": "quantitative", "title": PER_USER,
                              "format": ".1f"},
                             {"field": "per_gpu", "type": "quantitative", "title": PER_GPU,
                              "format": ".0f"}]}},
            {"mark": {"type": "rule", "strokeDash": [4, 3], "color": REFERENCE},
             "encoding": {"x": {"datum": target}}},
        ],
    )
