"""Rows on one clock: the chart for sims that show who is doing what, and when.

A timeline is a set of rows (a GPU, a stream, a request) along one time axis. Each row
holds spans (a GPU busy, waiting on a transfer, a request waiting for its first token) and
marks (a token delivered). The chunked-prefill and parallelism sims both draw one; they
share this module so that their charts read alike and the drawing logic lives once.

Sims that compare schedules draw one chart per schedule with the same `domain`, so the
reader can line them up by eye: one clock, several charts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sims import charts

# Colours that keep their contrast on a white and on a near-black page (Vega's Tableau
# palette, with a mid grey for idle time). States take them in the order a sim lists them.
PALETTE = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#9e9e9e", "#b279a2", "#72b7b2")

ROW_HEIGHT = 26


@dataclass(frozen=True)
class Span:
    """A stretch of time a row spends in one state."""

    row: str
    start: float
    end: float
    state: str


@dataclass(frozen=True)
class Mark:
    """An instant on a row: a token arriving, say."""

    row: str
    time: float
    state: str


def _merged(spans: Sequence[Span]) -> list[Span]:
    """Join spans that continue one another in the same row and state.

    Adjacent bars of one colour look like one bar anyway; joining them keeps the chart's
    data small when a schedule runs hundreds of identical steps.
    """
    out: list[Span] = []
    open_by_row: dict[str, int] = {}
    for span in spans:
        index = open_by_row.get(span.row)
        if index is not None:
            last = out[index]
            touching = math.isclose(last.end, span.start, rel_tol=1e-9, abs_tol=1e-12)
            if last.state == span.state and touching:
                out[index] = Span(last.row, last.start, span.end, last.state)
                continue
        open_by_row[span.row] = len(out)
        out.append(span)
    return out


def timeline_chart(
    title: str,
    description: str,
    *,
    rows: Sequence[str],
    spans: Sequence[Span],
    marks: Sequence[Mark],
    states: Sequence[str],
    domain: tuple[float, float],
    unit: str,
    scale: float,
) -> dict[str, Any]:
    """A chart of `rows` top to bottom, spans as bars and marks as ticks.

    Times are given in seconds and drawn in `unit` (`scale` is how many of them make a
    second: 1000 for ms). Spans and marks outside `domain` are dropped, and those that
    cross its edges clipped, so every chart that shares a domain shares a clock.
    """
    low, high = domain
    table: list[dict[str, Any]] = []
    for span in _merged(spans):
        if span.end > low and span.start < high:
            table.append({
                "kind": "span",
                "row": span.row,
                "state": span.state,
                "start": max(span.start, low) * scale,
                "end": min(span.end, high) * scale,
            })
    for mark in marks:
        if low <= mark.time <= high:
            table.append({
                "kind": "mark", "row": mark.row, "state": mark.state, "start": mark.time * scale,
            })
    x_title = f"Time ({unit})"
    x = {
        "field": "start",
        "type": "quantitative",
        "title": x_title,
        "scale": {"domain": [low * scale, high * scale], "nice": False, "zero": False},
    }
    y = {"field": "row", "type": "nominal", "sort": list(rows), "title": None}
    color = {
        "field": "state",
        "type": "nominal",
        "title": None,
        "scale": {"domain": list(states), "range": list(PALETTE[: len(states)])},
        "legend": {"orient": "bottom", "columns": 2, "symbolType": "square", "symbolOpacity": 1},
    }
    tooltip_row = {"field": "row", "title": "Row"}
    tooltip_state = {"field": "state", "title": "State"}
    return charts.chart(
        title,
        description,
        table,
        height=ROW_HEIGHT * len(rows),
        layer=[
            {
                "transform": [{"filter": "datum.kind === 'span'"}],
                "mark": {"type": "bar", "clip": True},
                "encoding": {
                    "x": x,
                    "x2": {"field": "end"},
                    "y": y,
                    "color": color,
                    "tooltip": [
                        tooltip_row, tooltip_state,
                        {"field": "start", "title": f"From ({unit})", "format": ".4~f"},
                        {"field": "end", "title": f"To ({unit})", "format": ".4~f"},
                    ],
                },
            },
            {
                "transform": [{"filter": "datum.kind === 'mark'"}],
                "mark": {"type": "tick", "thickness": 2, "clip": True},
                "encoding": {
                    "x": x,
                    "y": y,
                    "color": color,
                    "tooltip": [
                        tooltip_row, tooltip_state,
                        {"field": "start", "title": f"At ({unit})", "format": ".4~f"},
                    ],
                },
            },
        ],
    )
