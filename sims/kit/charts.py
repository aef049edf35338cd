"""Vega-Lite spec helpers shared by every sim, so that all charts look and behave alike.

Each chart carries its rows as one named dataset, "table": the page keeps the chart's view
and swaps that dataset on every rerun instead of re-embedding the chart. Title and
description become the SVG's text alternative.
"""

from __future__ import annotations

from typing import Any

DATASET = "table"
HEIGHT = 260
# The room a y axis takes at least (ticks, labels and title): the widest labels any sim draws
# fit, so another model or GPU, whose numbers are longer or shorter, does not move the plot
# sideways (the page's kept chart view would then redraw every mark).
Y_AXIS_EXTENT_PX = 64
# A plot narrower than this (a phone's) lists a top or bottom legend's entries one per line.
# Vega does not wrap a legend: at a phone's width a row of two long labels runs past the chart
# and is cut off at its edge. Wider plots keep the legend's own columns (`chart`,
# _wrapping_legends); a legend given a direction is left as it is.
NARROW_PLOT_PX = 480


def titled(title: str, note: str) -> str:
    """A chart's title with `note` (e.g. that the configuration does not fit in memory) after
    it in parentheses, or the title alone when there is none."""
    return f"{title} ({note})" if note else title


def chart(title: str, description: str, rows: list[dict[str, Any]], **body: Any) -> dict[str, Any]:
    """A Vega-Lite spec over `rows`; `body` holds the mark/encoding/layer parts.

    Every axis a caller encodes should carry a title with its unit.
    """
    return {
        # A title never wider than the plot (cut short with an ellipsis; the SVG's text
        # alternative keeps it whole): a longer one, say with a note that the configuration
        # does not fit, would otherwise move the plot, and a kept view redraw every mark.
        "title": {"text": title, "limit": {"expr": "width"}},
        "description": description,
        "data": {"name": DATASET, "values": rows},
        "width": "container",
        "height": HEIGHT,
        "background": None,
        # The chart is one image to assistive technology: its SVG has role="img" with the
        # title and description as its name, and the summary table holds the numbers. Vega's
        # per-mark ARIA roles inside it would only add unnamed "graphics-symbol" nodes.
        "config": {"aria": False, "mark": {"aria": False},
                   "axisY": {"minExtent": Y_AXIS_EXTENT_PX}},
        **_wrapping_legends(body),
    }


_ROW_ORIENTS = ("top", "bottom")


def _wrapping_legends(view: dict[str, Any]) -> dict[str, Any]:
    """`view` (a chart's body, or one of its layers) with every legend laid out in rows (at
    the top or bottom, with no direction of its own) in one column on a narrow plot."""
    out = dict(view)
    if isinstance(view.get("encoding"), dict):
        out["encoding"] = {channel: _wrapping(definition)
                           for channel, definition in view["encoding"].items()}
    if isinstance(view.get("layer"), list):
        out["layer"] = [_wrapping_legends(layer) for layer in view["layer"]]
    return out


def _wrapping(definition: Any) -> Any:
    legend = definition.get("legend") if isinstance(definition, dict) else None
    if (not isinstance(legend, dict) or legend.get("orient") not in _ROW_ORIENTS
            or "direction" in legend or legend.get("columns") == 1):
        return definition
    # Otherwise its own columns, or as many as it has entries (Vega's 0).
    columns = {"expr": f"width < {NARROW_PLOT_PX} ? 1 : {legend.get('columns', 0)}"}
    return {**definition, "legend": {**legend, "columns": columns}}


# Room left above a chart's highest mark: more than the largest point any sim draws reaches
# from its centre (a 160-pixel point: 7.1 px).
HEADROOM_PX = 10
# Ticks on a value axis: what Vega-Lite picks for a 260-pixel plot (one per 40 px).
VALUE_TICKS = 7


def value_axis(top: float, height: int = HEIGHT) -> dict[str, Any]:
    """The scale and axis of a quantitative y from 0 whose layout does not move with `top`,
    the highest value drawn (merge them into the channel's definition).

    Left to itself, Vega ends the domain at a round number just above the highest value, so
    its marks touch the top edge on some runs and not on others, and the top tick has a
    label on some runs and not on others. What sticks out above the plot pushes the legend
    and title up: the plot moves by a pixel or two, and the page's kept chart view redraws
    every mark. This domain leaves HEADROOM_PX above `top` and is rounded out to the axis's
    own ticks, so the top label always sticks out by the same amount and no mark ever does.
    """
    return {
        "scale": {"domain": [0, top * height / (height - HEADROOM_PX)], "nice": VALUE_TICKS},
        "axis": {"tickCount": VALUE_TICKS},
    }
