"""The goodput sim's charts: latency, attainment and goodput against the arrival rate, and
every request of the chosen rate.

Every axis that the inputs move has its domain given, so that the page's kept chart view
takes a new run's figures as parameters instead of being built again (sims/kit/charts.py,
content/assets/sim/livechart.js): the rate axis spans the sweep, value axes come from
`charts.value_axis`, the log axis of first-token times is rounded out to powers of ten.
"""

from __future__ import annotations

import math
from typing import Any

from sims.kit import charts, timeline
from sims.serving.rate_sweep import Run, Slo

MEDIAN, TAIL = timeline.MIXED_WORK, timeline.WORK
MET, MISSED = timeline.MIXED_WORK, timeline.COMMUNICATION
REFERENCE = "#9e9e9e"  # reference lines: mid grey reads on a light and a dark page
RATE_TITLE = "Arrival rate (requests/s)"
# The rate and time axes end where the sweep or the run does, rarely on a tick: a label near
# the end would stick out by a different amount on every run and move the plot (see
# sims/kit/timeline.py); labels that close to an end are drawn flush with it.
FLUSH = {"labelFlush": timeline.FLUSH_PX}
# ...and run a little past the last point drawn, whose mark would otherwise stick out of the
# plot by its radius on some runs and not on others.
EDGE_ROOM = 1.04


def _rate_scale(top: float) -> dict[str, Any]:
    return {"domain": [0, top], "nice": False}


def _rate_axis(top: float) -> dict[str, Any]:
    return {"field": "rate", "type": "quantitative", "title": RATE_TITLE,
            "scale": _rate_scale(top), "axis": FLUSH}


def _lines(rows: list[dict[str, Any]], series: dict[str, tuple[str, str]], y: dict[str, Any],
           value_title: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The sweep's `rows` as one row per rate and series (`series`: field -> (label,
    colour)), and the one line layer that draws them all: a single y definition, so that the
    y scale has one domain."""
    long = [{"rate": row["rate"], "series": label, "value": row[field]}
            for row in rows for field, (label, _) in series.items()]
    labels = [label for label, _ in series.values()]
    colours = [colour for _, colour in series.values()]
    layer = {
        "mark": {"type": "line", "point": True},
        "encoding": {
            "y": {"field": "value", **y},
            "color": {"field": "series", "type": "nominal", "title": None,
                      **_legend(labels, colours)},
            "tooltip": [{"field": "series", "title": "series"},
                        {"field": "rate", "type": "quantitative", "title": RATE_TITLE,
                         "format": ".1f"},
                        {"field": "value", "type": "quantitative", "title": value_title,
                         "format": ".3~g"}],
        },
    }
    return long, layer


# Keeps the first row of the chart's data only: a reference line or label drawn from it is
# one mark, not one per row (a label drawn many times over itself looks bold and blurred).
FIRST_ROW = [{"window": [{"op": "row_number", "as": "row"}]}, {"filter": "datum.row == 1"}]


# A reference line's label sits on the side of the line with room for it: past this share
# of the axis, on the other side. Both sides are always in the spec, one of them empty, so
# that a line moving across keeps the chart's view (the labels' texts are its parameters).
LABEL_SIDE_SHARE = 0.75


def _rule(channel: str, value: float, label: str, scale: dict[str, Any]
          ) -> list[dict[str, Any]]:
    """A dashed reference line at `value` on `channel` ("x" or "y"), labelled on whichever
    side of it keeps the label inside the plot; `scale` is the axis's (its domain, and its
    type: a log axis's share is measured in logs)."""
    low, high = scale["domain"]
    where = math.log if scale.get("type") == "log" else float
    position = ((where(value) - where(low)) / (where(high) - where(low))
                if high > low else 0.0)
    far = position > LABEL_SIDE_SHARE
    if channel == "x":
        place = {"x": {"datum": value}}
        line = place
        sides = [({"align": "left", "dx": 4}, not far), ({"align": "right", "dx": -4}, far)]
        at = {**place, "y": {"value": 0}}
        base = {"baseline": "top", "dy": 4}
    else:
        place = {"y": {"datum": value}}
        line = {**place, "x": {"value": 0}, "x2": {"value": "width"}}
        sides = [({"baseline": "bottom", "dy": -3}, not far), ({"baseline": "top", "dy": 3},
                                                               far)]
        at = {**place, "x": {"value": "width"}}
        base = {"align": "right"}
    return [
        {"transform": FIRST_ROW, "mark": {"type": "rule", "strokeDash": [4, 3],
                                          "color": REFERENCE},
         "encoding": line},
        *({"transform": FIRST_ROW,
           "mark": {"type": "text", "color": REFERENCE, "fontSize": 11, **base, **side},
           "encoding": {**at, "text": {"value": label if shown else ""}}}
          for side, shown in sides),
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
        p50_ttft, p99_ttft = run.ttft_percentiles
        p50_tpot, p99_tpot = run.tpot_percentiles
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


def _percentile_chart(rows: list[dict[str, Any]], top: float, chosen: Run, metric: str,
                      y: dict[str, Any], slo: float, heading: str, what: str
                      ) -> dict[str, Any]:
    """Median and p99 of `metric` (fields p50_<metric>, p99_<metric>) against the rate, with
    the SLO at `slo` and the chosen rate marked."""
    long, lines = _lines(rows, {f"p50_{metric}": ("median", MEDIAN),
                                f"p99_{metric}": ("99th percentile", TAIL)}, y, y["title"])
    return charts.chart(
        heading,
        f"Median and 99th-percentile {what} against the arrival rate, with the SLO and the "
        f"chosen rate marked.",
        long,
        encoding={"x": _rate_axis(top)},
        layer=[lines, *_rule("y", slo, "SLO", y["scale"]),
               *_rule("x", chosen.rate, "chosen rate", _rate_scale(top))],
    )


def _ttft_chart(rows: list[dict[str, Any]], top: float, chosen: Run, slo: Slo
                ) -> dict[str, Any]:
    y = _log_axis([slo.ttft_s, *(r[k] for r in rows for k in ("p50_ttft_s", "p99_ttft_s"))],
                  "Time to first token (s, log scale)")
    return _percentile_chart(rows, top, chosen, "ttft_s", y, slo.ttft_s,
                             "The first-token tail turns up at the knee", "time to first token")


def _tpot_chart(rows: list[dict[str, Any]], top: float, chosen: Run, slo: Slo
                ) -> dict[str, Any]:
    highest = max([slo.tpot_s * 1000, *(r["p99_tpot_ms"] or 0 for r in rows)])
    y = {"type": "quantitative", "title": "Time per output token (ms)",
         **charts.value_axis(highest)}
    return _percentile_chart(rows, top, chosen, "tpot_ms", y, slo.tpot_s * 1000,
                             "Every request pays for a longer step",
                             "time per output token after the first")


def _attainment_chart(rows: list[dict[str, Any]], top: float, slo: Slo, capacity: float
                      ) -> dict[str, Any]:
    title = "Requests meeting the SLO (%)"
    y = {"type": "quantitative", "title": title, "scale": {"domain": [0, 100]}}
    long, lines = _lines(rows, {"attainment_pct": ("both SLOs", TAIL),
                                "ttft_attainment_pct": ("first token", MEDIAN),
                                "tpot_attainment_pct": ("later tokens", timeline.OTHER_WORK)},
                         y, title)
    return charts.chart(
        "Capacity: where attainment meets the target",
        f"Share of requests meeting both SLOs, and each alone, against the arrival rate, "
        f"with the {slo.target:.0%} target and the capacity it gives marked.",
        long,
        encoding={"x": _rate_axis(top)},
        layer=[lines, *_rule("y", slo.target * 100, "target", y["scale"]),
               *_rule("x", capacity, "capacity", _rate_scale(top))],
    )


def _goodput_chart(rows: list[dict[str, Any]], top: float, chosen: Run) -> dict[str, Any]:
    title = "Requests per second (requests/s)"
    y = {"type": "quantitative", "title": title, **charts.value_axis(top)}
    long, lines = _lines(rows, {"offered_rps": ("arriving", REFERENCE),
                                "throughput_rps": ("served", MEDIAN),
                                "goodput_rps": ("served within the SLO", TAIL)}, y, title)
    return charts.chart(
        "Goodput rises, peaks and falls",
        "Requests arriving, served and served within the SLO per second, against the "
        "arrival rate: throughput levels off where the replica saturates, goodput falls "
        "once requests miss their SLO.",
        long,
        encoding={"x": _rate_axis(top)},
        layer=[lines, *_rule("x", chosen.rate, "chosen rate", _rate_scale(top))],
    )


def requests_chart(chosen: Run) -> dict[str, Any]:
    """The first chart, of the run at the chosen rate alone: the page shows it with the
    summary, before the sweep's charts."""
    labels = ["met the SLO", "missed it"]
    rows = [{"arrival_s": request.arrival / chosen.rate, "ttft_s": wait if wait >= 0 else None,
             "prompt_tokens": request.prompt_tokens, "output_tokens": request.output_tokens,
             "tpot_ms": per_token * 1000 if per_token >= 0 else None,
             "outcome": labels[0] if met else labels[1]}
            for request, wait, per_token, met in zip(chosen.requests, chosen.ttft, chosen.tpot,
                                                     chosen.met, strict=True)]
    last = (max(row["arrival_s"] for row in rows) or 1.0) * EDGE_ROOM
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
                  "scale": {"domain": [0, last], "nice": False}, "axis": FLUSH},
            "y": {"field": "ttft_s", **y},
            "color": {"field": "outcome", "type": "nominal", "title": None,
                      **_legend(labels, [MET, MISSED])},
            "tooltip": tooltip,
        },
    )


def sweep_charts(runs: list[Run], chosen: Run, slo: Slo, capacity: float, top: float
                 ) -> list[dict[str, Any]]:
    """The four charts over the sweep's `runs` (the rate axis up to `top`)."""
    rows = _rows(runs)
    top = max(top, chosen.rate) * EDGE_ROOM
    return [
        _ttft_chart(rows, top, chosen, slo),
        _tpot_chart(rows, top, chosen, slo),
        _attainment_chart(rows, top, slo, capacity),
        _goodput_chart(rows, top, chosen),
    ]
