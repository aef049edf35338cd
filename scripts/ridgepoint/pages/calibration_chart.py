"""The calibration page's chart: every point's predicted time against its measured one.

One glance should say how close the physics is and where it is not, so the chart puts all
the points on one log-log plane (kernels of microseconds and whole runs of seconds alike),
coloured by kernel class, training and held-out points told apart by shape and fill, beside
the line where ours equals measured and a band of 25% about it. Over seven decades that band
is a few pixels wide, so a second view under the first, on the same measured axis, draws
each point's ratio, ours over measured, where a 25% error is plain to see.

It is drawn at build time into inline SVG by the sims' own path (ridgepoint.sims.charts,
cached like theirs), so a reader without JavaScript sees it; its title and description are
its text alternative. The legend is HTML beside it, not part of the SVG: the SVG shrinks to
a phone's width, and a legend in the page's own text stays readable there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ridgepoint.base.markup import esc
from ridgepoint.catalogue.calibration import Errors, Row
from ridgepoint.catalogue.categories import LABELS
from ridgepoint.sims.charts import chart_svg

# The colour of each kernel class; whole steps and runs of many kernels share one. Each is
# at least 3:1 against both schemes' backgrounds (white and Material's slate), so one SVG
# reads in both.
CLASSES = {"gemm": "#3b7dd8", "prefill_attention": "#e8590c", "decode_attention": "#2b9a48",
           "moe": "#9c5fd0", "all_reduce": "#d6336c", "throughput": "#a07a2c"}
STEPS, STEPS_COLOUR = "Whole steps", "#7a7a7a"
# Each set's name, Vega's shape for it and the legend's (a path in a 12 px box about 0, 0):
# held-out points filled (what nothing was fitted to stands out), training points hollow,
# older points in no set as crosses.
SETS = {"held_out": ("Held out", "triangle-up", "M0,-4.3L-5,4.3L5,4.3Z"),
        "training": ("Training", "circle", "M4,0A4,4,0,1,1,-4,0A4,4,0,1,1,4,0"),
        None: ("In no set", "cross", "M-1.5,-4.5h3v3h3v3h-3v3h-3v-3h-3v-3h3Z")}
GUIDE = "#7a7a7a"  # the y = x line and the band: legible on both schemes
BAND = 0.25  # the band drawn about y = x: the kernel classes' p90 target
PLOT_PX, RATIO_PX = 380, 200
FONT_PX = 13  # the SVG scales to the column: at a phone's width this comes out near 10 px
SECONDS = ("datum.value >= 1 ? format(datum.value, '~g') + ' s' : datum.value >= 1e-3 ? "
           "format(datum.value * 1e3, '~g') + ' ms' : format(datum.value * 1e6, '~g') + ' µs'")


def class_label(row: Row) -> str:
    """The kernel class a row is coloured by: its category's class, or whole steps."""
    kind = row.category.kind
    return LABELS[kind] if kind in CLASSES else STEPS


def _classes(rows: Sequence[Row]) -> dict[str, str]:
    """The classes the rows hold, in a fixed order, with their colours."""
    colours = {LABELS[kind]: colour for kind, colour in CLASSES.items()} | {STEPS: STEPS_COLOUR}
    present = {class_label(row) for row in rows}
    return {label: colour for label, colour in colours.items() if label in present}


def _sets(rows: Sequence[Row]) -> list[tuple[str, str, str]]:
    return [SETS[key] for key in SETS if any(row.point.set == key for row in rows)]


def _decades(values: Sequence[float]) -> list[float]:
    """Powers of ten from the one at or below the least value to the one at or above the
    greatest."""
    low, high = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    return [10.0 ** exponent for exponent in range(low, high + 1)]


def _octaves(values: Sequence[float]) -> list[float]:
    """Powers of two about 1 that take in every value, and at least 1/2 to 2."""
    low = min(-1, math.floor(math.log2(min(values))))
    high = max(1, math.ceil(math.log2(max(values))))
    return [2.0 ** exponent for exponent in range(low, high + 1)]


def _seconds(value: float) -> str:
    """A time in seconds as the axes label it: 1 µs, 10 ms, 1 s."""
    unit, scale = next((u, s) for u, s in (("s", 1), ("ms", 1e-3), ("µs", 1e-6))
                       if value >= s or u == "µs")
    return f"{value / scale:g} {unit}"


def _guide(xs: Sequence[float], diagonal: bool) -> list[dict[str, Any]]:
    """The layers under the points: the band BAND either side of the line, and the line,
    y = x (`diagonal`) or the ratio's 1."""
    def at(x: float) -> dict[str, float]:
        y = x if diagonal else 1.0
        return {"m": x, "y": y, "lo": y * (1 - BAND), "hi": y * (1 + BAND)}
    data = {"values": [at(xs[0]), at(xs[-1])]}
    return [
        {"data": data, "mark": {"type": "area", "color": GUIDE, "opacity": 0.18, "clip": True},
         "encoding": {"y": {"field": "lo", "type": "quantitative"}, "y2": {"field": "hi"}}},
        {"data": data, "mark": {"type": "line", "color": GUIDE, "strokeWidth": 1, "clip": True},
         "encoding": {"y": {"field": "y", "type": "quantitative"}}},
    ]


def _view(marks: dict[str, Any], x: dict[str, Any], height: int, diagonal: bool,
          y: dict[str, Any], axis: dict[str, Any]) -> dict[str, Any]:
    """One of the two views: the guide, then the points with `y` on `axis`."""
    scale = {"type": "log", "domain": [axis["values"][0], axis["values"][-1]], "nice": False}
    return {"width": PLOT_PX, "height": height,
            "encoding": {"x": x, "y": {"type": "quantitative", "scale": scale}},
            "layer": [*_guide(x["axis"]["values"], diagonal), {**marks, "encoding": {
                **marks["encoding"], "x": x,
                "y": {**y, "type": "quantitative", "scale": scale, "axis": axis}}}]}


def spec(rows: Sequence[Row], held_out: Errors | None) -> dict[str, Any]:
    """The Vega-Lite spec: ours against measured with y = x and the band, then ours over
    measured with 1 and the band; the description says what a reader would read off it."""
    decades = _decades([t for row in rows for t in (row.measured_s, row.ours_s)])
    octaves = _octaves([row.ratio for row in rows])
    classes, sets = _classes(rows), _sets(rows)
    palette = {"domain": list(classes), "range": list(classes.values())}
    points = [{"m": float(f"{row.measured_s:.4g}"), "o": float(f"{row.ours_s:.4g}"),
               "r": float(f"{row.ratio:.4g}"), "c": class_label(row),
               "s": SETS[row.point.set][0]} for row in rows]
    marks = {
        "data": {"values": points},
        "mark": {"type": "point", "size": 28, "strokeWidth": 1.2, "opacity": 0.8, "clip": True},
        "encoding": {
            "color": {"field": "c", "type": "nominal", "scale": palette, "legend": None},
            # Filled for held-out points only: a scale of its own, with the same colours.
            "fill": {"condition": {"test": f"datum.s === '{SETS['held_out'][0]}'", "field": "c",
                                   "type": "nominal", "scale": palette, "legend": None},
                     "value": None},
            "shape": {"field": "s", "type": "nominal", "legend": None,
                      "scale": {"domain": [name for name, _, _ in sets],
                                "range": [shape for _, shape, _ in sets]}},
        },
    }
    x = {"field": "m", "type": "quantitative",
         "scale": {"type": "log", "domain": [decades[0], decades[-1]], "nice": False},
         "axis": {"values": decades, "labelExpr": SECONDS, "title": "Measured time (log scale)"}}
    return {
        "title": "Ours against measured, every point",
        "description": _description(rows, list(classes), decades, octaves, held_out),
        "background": None,
        "config": {"aria": False, "mark": {"aria": False},
                   "axis": {"labelFontSize": FONT_PX, "titleFontSize": FONT_PX},
                   "title": {"fontSize": FONT_PX + 1}},
        "vconcat": [
            _view(marks, x, PLOT_PX, True, {"field": "o"},
                  {"values": decades, "labelExpr": SECONDS, "title": "Our time (log scale)"}),
            _view(marks, x, RATIO_PX, False, {"field": "r"},
                  {"values": octaves, "format": "~g", "title": "Ours / measured (log scale)"}),
        ],
        "resolve": {"scale": {"y": "independent"}},
    }


def _description(rows: Sequence[Row], classes: list[str], decades: list[float],
                 octaves: list[float], held_out: Errors | None) -> str:
    held = (f" Over the {held_out.count} held-out points the median error is "
            f"{held_out.median:.0%} and the 90th percentile {held_out.p90:.0%}."
            if held_out else "")
    return (
        f"Two scatter plots of the same {len(rows)} published measurements against their "
        f"measured time, on a log scale from {_seconds(decades[0])} to {_seconds(decades[-1])}: "
        f"above, the time the physics gives (the same log scale), with a diagonal line where "
        f"ours equals measured and a shaded band {BAND:.0%} either side of it; below, ours "
        f"over measured, on a log scale from {octaves[0]:g} to {octaves[-1]:g}, with the "
        f"same band about 1. Points are coloured by kernel class ({', '.join(classes)}); "
        f"held-out points are filled triangles, training points hollow circles, points in "
        f"no set crosses. Above the line the physics is slower than measured, below it "
        f"faster.{held}")


def _key(path: str, fill: str, stroke: str) -> str:
    return (f'<svg class="rp-key" viewBox="-6 -6 12 12" aria-hidden="true">'
            f'<path d="{path}" fill="{fill}" stroke="{stroke}" stroke-width="1.3"/></svg>')


def legend(rows: Sequence[Row]) -> str:
    """The chart's legend in HTML: each class's colour, each set's mark."""
    circle = SETS["training"][2]
    classes = "".join(f"<li>{_key(circle, colour, colour)}{esc(label)}</li>"
                      for label, colour in _classes(rows).items())
    held = SETS["held_out"][0]
    sets = "".join(f"<li>{_key(path, 'currentColor' if name == held else 'none', 'currentColor')}"
                   f"{esc(name)}</li>" for name, _, path in _sets(rows))
    return (f'<div class="rp-chart-legend"><p>Kernel class</p><ul>{classes}</ul>'
            f"<p>Set</p><ul>{sets}</ul></div>")


def figure(rows: Sequence[Row], held_out: Errors | None, charts: Path | None) -> str:
    """The chart as a figure (drawn into `charts`, the SVG cache) with its legend and a
    caption that says how to read it; nothing when `charts` is None (`make check` draws no
    charts)."""
    if charts is None or not rows:
        return ""
    caption = ("Each mark is one published measurement. The line is ours = measured and the "
               f"shaded band ±{BAND:.0%}; below, the same points as ours / measured (under 1: "
               "ours faster). Throughput runs are drawn as the time per output token per GPU "
               "they imply.")
    return (f'<figure class="rp-chart" data-chart="calibration">'
            f'{chart_svg(spec(rows, held_out), "calibration-chart", charts)}{legend(rows)}'
            f"<figcaption>{esc(caption)}</figcaption></figure>")
