"""The goodput sim's charts: latency, attainment and goodput against the arrival rate, and
every request of the chosen rate.

Every axis that the inputs move has its domain given, so that the page's kept chart view
takes a new run's figures as parameters instead of being built again (sims/charts.py,
content/assets/sim/livechart.js): the rate axis spans the sweep, value axes come from
`charts.value_axis`, the log axis of first-token times is rounded out to powers of ten.
"""

from __future__ import annotations

import math
from typing import Any

from sims import charts, timeline
from sims.goodput_model import Run, Slo

MEDIAN, TAIL = timeline.MIXED_WORK, timeline.WORK
MET, MISSED = timeline.MIXED_WORK, timeline.COMMUNICATION
REFERENCE = "#9e9e9e"  # reference lines: mid grey reads on a light and a dark page
RATE_TITLE = "Arrival rate (requests/s)"


def _rate_axis(top: float) -> dict[str, Any]:
    return {"field": "rate", "type": "quantitative", "title": RATE_TITLE,
            "scale": {"domain": [0, top], "nice": False}}


def _line(field: str, label: str, colour: str, y: dict[str, Any], title: str,
          dash: list[int] | None = None) -> dict[str, Any]:
    mark: dict[str, Any] = {"type": "line", "point": True, "color": colour}
    if dash:
        mark["strokeDash"] = dash
    return {
        "mark": mark,
        "encoding": {
            "y": {"field": field, **y},
            "color": {"datum": label},
            "tooltip": [{"field": "rate", "type": "quantitative", "title": RATE_TITLE,
                         "format": ".1f"},
                        {"field": field, "type": "quantitative", "title": title,
                         "format": ".3~g"}],
        },
    }


def _rule(channel: str, value: float, label: str) -> list[dict[str, Any]]:
    """A dashed reference line at `value` on `channel` ("x" or "y"), labelled."""
    other = "y" if channel == "x" else "x"
    text: dict[str, Any] = {"type": "text", "color": REFERENCE, "fontSize": 11}
    text |= ({"align": "left", "dx": 4, "baseline": "top", "dy": 4} if channel == "x"
             else {"align": "right", "baseline": "bottom", "dy": -3})
    return [
        {"mark": {"type": "rule", "strokeDash": [4, 3], "color": REFERENCE},
         "encoding": {channel: {"datum": value}}},
        {"mark": text,
         "encoding": {channel: {"datum": value},
                      other: {"value": 0} if channel == "x" else {"value": "width"},
                      "text": {"value": label}}},
    ]


def _legend(labels: list[str], colours: list[str]) -> dict[str, Any]:
    return {"scale": {"domain": labels, "range": colours},
            "legend": {"orient": "bottom", "title": None}}


def _log_axis(values: list[float], title: str) -> dict[str, Any]:
    """A log y from the power of ten below the smallest value to the one above the largest."""
    shown = [v for v in values if v and v > 0] or [1.0]
    low = 10 ** math.floor(math.log10(min(shown)))
    high = 10 ** math.ceil(math.log10(max(shown) * 1.0001))
    return {"type": "quantitative", "title": title,
            "scale": {"type": "log", "domain": [low, high], "nice": False}}


def _rows(runs: list[Run]) -> list[dict[str, Any]]:
    rows = []
    for run in runs:
        served = any(t >= 0 for t in run.ttft)
        p50_ttft, p99_ttft = run.percentiles(run.ttft)
        p50_tpot, p99_tpot = run.percentiles(run.tpot)
        rows.append({
            "rate": run.rate,
            "p50_ttft_s": p50_ttft if served else None,
            "p99_ttft_s": p99_ttft if served else None,
            "p50_tpot_ms": p50_tpot * 1000 if served else None,
            "p99_tpot_ms": p99_tpot * 1000 if served else None,
            "attainment_pct": run.attainment * 100,
            "ttft_attainment_pct": run.ttft_attainment * 100,
            "tpot_attainment_pct": run.tpot_attainment * 100,
            "throughput_rps": run.throughput_rps,
            "goodput_rps": run.goodput_rps,
            "offered_rps": run.rate,
        })
    return rows


def _ttft_chart(rows: list[dict[str, Any]], top: float, chosen: Run, slo: Slo
                ) -> dict[str, Any]:
    title = "Time to first token (s, log scale)"
    y = _log_axis([slo.ttft_s, *(r[k] for r in rows for k in ("p50_ttft_s", "p99_ttft_s"))],
                  title)
    labels = ["median", "99th percentile"]
    return charts.chart(
        "The tail of the first-token wait turns up at the knee",
        "Median and 99th-percentile time to first token against the arrival rate, with the "
        "SLO and the chosen rate marked.",
        rows,
        encoding={"x": _rate_axis(top), "color": _legend(labels, [MEDIAN, TAIL])},
        layer=[
            _line("p50_ttft_s", labels[0], MEDIAN, y, "median TTFT (s)"),
            _line("p99_ttft_s", labels[1], TAIL, y, "p99 TTFT (s)"),
            *_rule("y", slo.ttft_s, "SLO"),
            *_rule("x", chosen.rate, "chosen rate"),
        ],
    )


def _tpot_chart(rows: list[dict[str, Any]], top: float, chosen: Run, slo: Slo
                ) -> dict[str, Any]:
    title = "Time per output token (ms)"
    highest = max([slo.tpot_s * 1000, *(r["p99_tpot_ms"] or 0 for r in rows)])
    y = {"type": "quantitative", "title": title, **charts.value_axis(highest)}
    labels = ["median", "99th percentile"]
    return charts.chart(
        "Every request in the batch pays for a longer step",
        "Median and 99th-percentile time per output token after the first against the "
        "arrival rate, with the SLO and the chosen rate marked.",
        rows,
        encoding={"x": _rate_axis(top), "color": _legend(labels, [MEDIAN, TAIL])},
        layer=[
            _line("p50_tpot_ms", labels[0], MEDIAN, y, "median TPOT (ms)"),
            _line("p99_tpot_ms", labels[1], TAIL, y, "p99 TPOT (ms)"),
            *_rule("y", slo.tpot_s * 1000, "SLO"),
            *_rule("x", chosen.rate, "chosen rate"),
        ],
    )


def _attainment_chart(rows: list[dict[str, Any]], top: float, slo: Slo, capacity: float
                      ) -> dict[str, Any]:
    y = {"type": "quantitative", "title": "Requests meeting the SLO (%)",
         "scale": {"domain": [0, 100]}}
    labels = ["both SLOs", "first token", "later tokens"]
    return charts.chart(
        "Capacity: the highest rate that keeps the target",
        f"Share of requests meeting both SLOs, and each alone, against the arrival rate, "
        f"with the {slo.target:.0%} target and the capacity it gives marked.",
        rows,
        encoding={"x": _rate_axis(top),
                  "color": _legend(labels, [TAIL, MEDIAN, timeline.OTHER_WORK])},
        layer=[
            _line("ttft_attainment_pct", labels[1], MEDIAN, y, "first token in time (%)",
                  [4, 2]),
            _line("tpot_attainment_pct", labels[2], timeline.OTHER_WORK, y,
                  "later tokens in time (%)", [1, 2]),
            _line("attainment_pct", labels[0], TAIL, y, "both (%)"),
            *_rule("y", slo.target * 100, "target"),
            *_rule("x", capacity, "capacity"),
        ],
    )


def _goodput_chart(rows: list[dict[str, Any]], top: float, chosen: Run) -> dict[str, Any]:
    title = "Requests per second (requests/s)"
    y = {"type": "quantitative", "title": title, **charts.value_axis(top)}
    labels = ["arriving", "served", "served within the SLO"]
    colours = [REFERENCE, MEDIAN, TAIL]
    return charts.chart(
        "Goodput rises, peaks and falls",
        "Requests arriving, served and served within the SLO per second, against the "
        "arrival rate: throughput levels off where the replica saturates, goodput falls "
        "once requests miss their SLO.",
        rows,
        encoding={"x": _rate_axis(top), "color": _legend(labels, colours)},
        layer=[
            _line("offered_rps", labels[0], REFERENCE, y, "arriving (requests/s)", [2, 2]),
            _line("throughput_rps", labels[1], MEDIAN, y, "throughput (requests/s)"),
            _line("goodput_rps", labels[2], TAIL, y, "goodput (requests/s)"),
            *_rule("x", chosen.rate, "chosen rate"),
        ],
    )


def _requests_chart(chosen: Run) -> dict[str, Any]:
    labels = ["met the SLO", "missed it"]
    rows = [{"arrival_s": request.arrival / chosen.rate, "ttft_s": wait if wait >= 0 else None,
             "prompt_tokens": request.prompt_tokens, "output_tokens": request.output_tokens,
             "tpot_ms": per_token * 1000 if per_token >= 0 else None,
             "outcome": labels[0] if met else labels[1]}
            for request, wait, per_token, met in zip(chosen.requests, chosen.ttft, chosen.tpot,
                                                     chosen.met, strict=True)]
    last = max(row["arrival_s"] for row in rows) or 1.0
    y = _log_axis([row["ttft_s"] for row in rows], "Time to first token (s, log scale)")
    tooltip = [{"field": field, "type": "quantitative", "title": title, "format": ".3~g"}
               for field, title in (("arrival_s", "arrived at (s)"),
                                    ("ttft_s", "first token after (s)"),
                                    ("tpot_ms", "time per output token (ms)"),
                                    ("prompt_tokens", "prompt (tokens)"),
                                    ("output_tokens", "answer (tokens)"))]
    return charts.chart(
        f"Each request at {chosen.rate:g} requests/s",
        "Every request of the run at the chosen rate: its time to first token against when "
        "it arrived, coloured by whether it met both SLOs. A queue shows as waits that grow "
        "with time.",
        rows,
        mark={"type": "point", "filled": True, "size": 18, "opacity": 0.7},
        encoding={
            "x": {"field": "arrival_s", "type": "quantitative", "title": "Arrived at (s)",
                  "scale": {"domain": [0, last], "nice": False}},
            "y": {"field": "ttft_s", **y},
            "color": {"field": "outcome", "type": "nominal", "title": None,
                      **_legend(labels, [MET, MISSED])},
            "tooltip": tooltip,
        },
    )


def charts_for(runs: list[Run], chosen: Run, slo: Slo, capacity: float, top: float
               ) -> list[dict[str, Any]]:
    """The five charts, over the sweep's `runs` (the rate axis up to `top`)."""
    rows = _rows(runs)
    top = max(top, chosen.rate)
    return [
        _ttft_chart(rows, top, chosen, slo),
        _tpot_chart(rows, top, chosen, slo),
        _attainment_chart(rows, top, slo, capacity),
        _goodput_chart(rows, top, chosen),
        _requests_chart(chosen),
    ]
