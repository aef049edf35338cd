"""The planner's chart: output tokens per second per GPU against tokens per second per
user, one frontier per GPU type (the trade-off curve practitioners read: moving right,
each user is served faster and each GPU serves fewer tokens in all).

Each line is the best per-GPU throughput the estimate finds at each per-user speed over
that GPU's set-ups (sims.planning.search._frontier); the target's per-user speed (1 / the
per-token target) is marked, and set-ups to its right meet the per-token target on average.
"""

from __future__ import annotations

import math
from typing import Any

from sims.kit import charts

REFERENCE = "#9e9e9e"
PER_USER = "Speed per user (output tokens/s)"
PER_GPU = "Throughput per GPU (output tokens/s)"


def frontier_chart(rows: list[dict[str, Any]], tpot_s: float, model: str,
                   legend: tuple[str, ...]) -> dict[str, Any]:
    """One line per GPU type over `rows` ({gpu, per_user, per_gpu}), coloured from `legend`
    (every GPU type of the catalogue, in its order, drawn or not: a legend that changed with
    the inputs would make the page draw a new chart rather than update it, and a GPU without
    a line is one the plan ruled out); with no set-up to draw, one invisible point, and the
    title says so."""
    note = ""
    if not rows:
        rows = [{"gpu": legend[0], "per_user": 0.0, "per_gpu": 0.0, "none": True}]
        note = "no set-up fits"
    target = 1 / tpot_s
    # An empty plot keeps an axis of ordinary numbers (a domain of [0, 0] has no ticks, and
    # the plot would shift between a plan and no plan).
    top = max(r["per_gpu"] for r in rows) if not note else 1000.0
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
                           "scale": {"domain": list(legend)},
                           # Every GPU type of the catalogue: in rows of a few.
                           "legend": {"orient": "bottom", "title": None, "columns": 4}},
                 "opacity": {"condition": {"test": "datum.none", "value": 0}, "value": 1},
                 "tooltip": [{"field": "gpu", "title": "GPU"},
                             {"field": "per_user", "type": "quantitative", "title": PER_USER,
                              "format": ".1f"},
                             {"field": "per_gpu", "type": "quantitative", "title": PER_GPU,
                              "format": ".0f"}]}},
            {"mark": {"type": "rule", "strokeDash": [4, 3], "color": REFERENCE},
             "encoding": {"x": {"datum": target}}},
        ],
    )


LATENCY = "Time (s, log scale)"
NOTHING = "nothing loaded"
MEASURED_LOAD = "Load, as measured"


def measured_chart(rows: list[dict[str, Any]], statistic: str) -> dict[str, Any]:
    """Each measured point's first-token and per-token times (filled) over ours for the
    same set-up and load (open), one column per load in the file's order, on a log scale
    (first tokens take tens of times longer than later ones). With nothing measured, an
    empty plot whose title says how to fill it."""
    points = [{"load": row["load"], "order": order, "latency": latency, "source": source,
               "seconds": row[f"{prefix}{key}_s"]}
              for order, row in enumerate(rows)
              for key, latency in (("ttft", "first token"), ("tpot", "per token"))
              for prefix, source in (("measured_", "measured"), ("", "ours"))
              if row[f"{prefix}{key}_s"]]
    note = "" if points else "load a results file to compare"
    values = [p["seconds"] for p in points]
    # Whole decades, labelled at 1 and 3 of each: Vega's own log ticks crowd a short range.
    low = 10 ** math.floor(math.log10(min(values) / 1.2)) if values else 1e-3
    high = 10 ** math.ceil(math.log10(max(values) * 1.2)) if values else 1.0
    ticks = [t for e in range(round(math.log10(low)), round(math.log10(high)) + 1)
             for t in (10.0 ** e, 3 * 10.0 ** e) if t <= high]
    if not points:  # one invisible point: a plot with no mark at all has no size in Vega
        points = [{"load": NOTHING, "order": 0, "latency": "first token",
                   "source": "measured", "seconds": 0.03}]
    return charts.chart(
        charts.titled(f"Measured against predicted, {statistic}", note),
        "For each load in the results file, the measured first-token and per-token times "
        "(filled) and ours for the same set-up and load (open).",
        points,
        mark={"type": "point", "size": 90, "strokeWidth": 2},
        encoding={
            # In the file's order (a kept view cannot follow `sort: null`: livechart.js).
            "x": {"field": "load", "type": "nominal", "sort": {"field": "order", "op": "min"},
                  "title": MEASURED_LOAD,
                  "axis": {"labelAngle": 0}},
            "y": {"field": "seconds", "type": "quantitative", "title": LATENCY,
                  "scale": {"type": "log", "domain": [low, high], "nice": False},
                  "axis": {"values": ticks, "format": "~g"}},
            "color": {"field": "latency", "type": "nominal", "title": None,
                      "legend": {"orient": "bottom", "title": None}},
            "shape": {"field": "source", "type": "nominal", "title": None,
                      "legend": {"orient": "bottom", "title": None,
                                 "symbolStrokeColor": REFERENCE}},
            "fill": {"condition": {"test": "datum.source === 'measured'",
                                   "field": "latency", "type": "nominal", "legend": None},
                     "value": "transparent"},
            "opacity": {"condition": {"test": f"datum.load === '{NOTHING}'", "value": 0},
                        "value": 1},
            "tooltip": [{"field": "load", "title": MEASURED_LOAD},
                        {"field": "latency", "title": "Latency"},
                        {"field": "source", "title": "Source"},
                        {"field": "seconds", "type": "quantitative", "title": "Time (s)",
                         "format": ".4f"}]},
    )
