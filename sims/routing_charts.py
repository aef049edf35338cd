"""The routing sim's charts: each policy's cache hit rate and mean time to first token
against a reference line, and the requests each replica served."""

from __future__ import annotations

from sims.kit import charts

POLICY_LABELS = {"round_robin": "Round-robin", "sticky": "Sticky sessions",
                 "cache_aware": "Cache-aware"}


def _domain(values: list[float], ticks: int | bool = True) -> dict:
    """A bar axis from zero to the largest value, rounded out as Vega would round it, or
    out to the next of `ticks` ticks when the axis asks for that many.

    The domain Vega would derive from the data, but given: the page's kept chart view can
    then move the dashed reference line with the inputs (a reference value counts toward a
    derived domain, so the page must rebuild the chart whenever it moves). Rounded out to
    the axis's own ticks, the axis always ends on a label, which sticks out past the plot
    by the same amount on every run: a label there on some runs and not on others resizes
    the plot, and the page then lays out and draws the chart twice.
    """
    return {"domain": [0, max(values)], "nice": ticks}


def bar_chart(title: str, description: str, rows: list[dict], field: str,
               axis_title: str, value_format: str, reference: tuple[float, str]) -> dict:
    """One bar per policy, with a dashed reference line (`reference`: value, label)."""
    value, label = reference
    ticks = 5
    x = {"field": field, "type": "quantitative", "title": axis_title,
         "scale": _domain([*(row[field] for row in rows), value], ticks),
         "axis": {"format": value_format, "tickCount": ticks}}
    at = {"datum": value, "type": "quantitative", "title": axis_title}
    return charts.chart(
        title, description, rows,
        layer=[
            {"mark": {"type": "bar"},
             "encoding": {
                 "y": {"field": "policy", "type": "nominal", "title": None,
                       "sort": list(POLICY_LABELS.values())},
                 "x": x,
                 "color": {"field": "policy", "type": "nominal", "legend": None,
                           "scale": {"domain": list(POLICY_LABELS.values())}},
                 "tooltip": [{"field": "policy", "title": "Policy"},
                             {"field": field, "title": axis_title, "format": value_format}],
             }},
            {"mark": {"type": "rule", "strokeDash": [4, 4], "color": "#888888"},
             "encoding": {"x": at}},
            # Ending at the line, not centred on it: the reference is often the largest
            # value, near the plot's end, and a centred label would stick out past it.
            {"mark": {"type": "text", "align": "right", "baseline": "bottom", "y": -3,
                      "color": "#888888"},
             "encoding": {"x": at, "text": {"value": label}}},
        ],
    )


def load_chart(rows: list[dict], mean: float) -> dict:
    bars = {
        "x": {"field": "replica", "type": "ordinal", "title": "Replica",
              "axis": {"labelAngle": 0}},
        "xOffset": {"field": "policy", "sort": list(POLICY_LABELS.values())},
        "y": {"field": "requests", "type": "quantitative", "title": "Requests served (requests)",
              **charts.value_axis(max(row["requests"] for row in rows))},
        "color": {"field": "policy", "type": "nominal", "title": None,
                  "scale": {"domain": list(POLICY_LABELS.values())},
                  "legend": {"orient": "top"}},
        "tooltip": [{"field": "replica", "title": "Replica"},
                    {"field": "policy", "title": "Policy"},
                    {"field": "requests", "title": "Requests"}],
    }
    return charts.chart(
        "Requests each replica served",
        f"Requests per replica under each policy; the dashed line is an even split, "
        f"{mean:g} each.",
        rows,
        layer=[
            {"mark": {"type": "bar"}, "encoding": bars},
            {"mark": {"type": "rule", "strokeDash": [4, 4], "color": "#888888"},
             "encoding": {"y": {"datum": mean}}},
        ],
    )
