"""Rows on one clock: the chart for sims that show who is doing what, and when.

A timeline is a set of rows (a GPU, a stream, a request) along one time axis. Each row
holds spans (a GPU busy, waiting on a transfer, a request waiting for its first token) and
marks (a token delivered). The chunked-prefill and parallelism sims both draw one; they
share this module so that their charts read alike and the drawing logic lives once.

Sims that compare schedules draw one chart per schedule with the same `domain`, so the
reader can line them up by eye: one clock, several charts.

The rows' names are data, never part of the spec: each data row carries its row's rank,
and the axis sorts by it. So when an input renames or adds rows (more micro-batches, a
different stream count), the page keeps its chart view and swaps the data.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from sims.kit import charts

# Colours that keep their contrast on a white and on a near-black page (from Vega's
# Tableau palette). Named by role, so that the same kind of time looks the same in every
# timeline on the site: sims map each of their states to one of these.
WORK = "#4c78a8"  # a GPU doing the work the chart is about
OTHER_WORK = "#f58518"  # a different kind of work, to contrast with WORK
MIXED_WORK = "#54a24b"  # the two kinds together
COMMUNICATION = "#e45756"  # waiting on another GPU
IDLE = "#bab0ac"  # nothing to do: a pipeline bubble, a request not yet answered
TOKEN = "#b279a2"  # a token delivered

ROW_HEIGHT = 26
# Marks are ticks 2 px thick: in one row, ticks nearer each other than the clock's span over
# MARK_RESOLUTION overlap on any plot under 2,000 px wide (a live chart is as wide as the
# page's column, under 1,000 px), so a mark that near the last one kept in its row is left
# out. A long answer at a slow pace would otherwise send thousands of ticks that draw one
# solid band (a 32k-token prompt prefilled alone on a slow GPU: 7,300 on one row).
MARK_RESOLUTION = 1000
# Half the widest time label ("1,000" is about 30 px): a label whose tick is nearer an end
# of the clock than this is drawn flush with that end.
FLUSH_PX = 20


class Span(NamedTuple):
    """A stretch of time a row spends in one state. (Tuples: schedules make hundreds.)"""

    row: str
    start: float
    end: float
    state: str
    label: str = ""  # what the row is busy with, for the tooltip (a micro-batch, say)


class Mark(NamedTuple):
    """An instant on a row: a token arriving, say."""

    row: str
    time: float
    state: str


def _merged(spans: Sequence[Span]) -> list[Span]:
    """Join spans that continue one another in the same row, state and label.

    Joining them keeps the chart's data small when a schedule runs hundreds of identical
    steps; spans with different labels stay apart (and the chart leaves a hairline
    between touching bars, so the reader still sees where one ends).
    """
    out: list[Span] = []
    open_by_row: dict[str, int] = {}
    for span in spans:
        row, start, end, state, label = span
        index = open_by_row.get(row)
        if index is not None:
            last = out[index]
            if (last.state == state and last.label == label
                    and math.isclose(last.end, start, rel_tol=1e-9, abs_tol=1e-12)):
                out[index] = Span(row, last.start, end, state, label)
                continue
        open_by_row[row] = len(out)
        out.append(span)
    return out


def _ticks(marks: Sequence[Mark], rank: Mapping[str, int], low: float, high: float,
           scale: float) -> list[dict[str, Any]]:
    """The data rows of the marks within [low, high], thinned to MARK_RESOLUTION per row:
    every mark left out is within one resolution step of a kept one in its row."""
    apart = (high - low) / MARK_RESOLUTION
    last: dict[str, float] = {}  # each row's latest kept mark
    out: list[dict[str, Any]] = []
    for row, time, state in marks:
        if low <= time <= high and abs(time - last.get(row, -math.inf)) >= apart:
            last[row] = time
            out.append({"row": row, "rank": rank[row], "state": state, "start": time * scale})
    return out


def timeline_chart(
    title: str,
    description: str,
    *,
    rows: Sequence[str],
    spans: Sequence[Span],
    marks: Sequence[Mark],
    states: Mapping[str, str],
    domain: tuple[float, float],
    unit: str,
    scale: float,
) -> dict[str, Any]:
    """A chart of `rows` top to bottom, spans as bars and marks as ticks.

    `states` maps every state a span or mark may have to its colour, in legend order.

    Times are given in seconds and drawn in `unit` (`scale` is how many of them make a
    second: 1000 for ms). Spans and marks outside `domain` are dropped, and those that
    cross its edges clipped, so every chart that shares a domain shares a clock.
    """
    low, high = domain
    rank = {name: index for index, name in enumerate(rows)}
    table: list[dict[str, Any]] = []
    for row, start, end, state, label in _merged(spans):
        if end > low and start < high:
            table.append({
                "row": row,
                "rank": rank[row],
                "state": state,
                "label": label,
                "start": max(start, low) * scale,
                "end": min(end, high) * scale,
            })
    table += _ticks(marks, rank, low, high, scale)
    x_title = f"Time ({unit})"
    x = {
        "field": "start",
        "type": "quantitative",
        "title": x_title,
        "scale": {"domain": [low * scale, high * scale], "nice": False, "zero": False},
        # The clock ends where the schedule does, rarely on a tick: a centred label near
        # the end sticks out past the plot by a few pixels more or less on every run, and
        # the chart then narrows or widens its plot to fit, laying out and drawing every bar
        # twice. Labels that close to an end are aligned inside it instead.
        "axis": {"labelFlush": FLUSH_PX},
    }
    y = {"field": "row", "type": "nominal", "sort": {"field": "rank", "op": "min"},
         "title": None}
    color = {
        "field": "state",
        "type": "nominal",
        "title": None,
        "scale": {"domain": list(states), "range": list(states.values())},
        "legend": {"orient": "bottom", "columns": 2, "symbolType": "square", "symbolOpacity": 1},
    }
    tooltip_row = {"field": "row", "title": "Row"}
    tooltip_state = {"field": "state", "title": "State"}
    return charts.chart(
        title,
        description,
        table,
        height=ROW_HEIGHT * len(rows),
        # Shared by both layers, so that the page lifts the clock's domain once.
        encoding={"x": x, "y": y, "color": color},
        layer=[
            {
                "transform": [{"filter": "isValid(datum.end)"}],
                "mark": {"type": "bar", "clip": True, "x2Offset": -1},
                "encoding": {
                    "x2": {"field": "end"},
                    "tooltip": [
                        tooltip_row, tooltip_state, {"field": "label", "title": "Work"},
                        {"field": "start", "title": f"From ({unit})", "format": ".4~f"},
                        {"field": "end", "title": f"To ({unit})", "format": ".4~f"},
                    ],
                },
            },
            {
                "transform": [{"filter": "!isValid(datum.end)"}],
                "mark": {"type": "tick", "thickness": 2, "clip": True},
                "encoding": {
                    "tooltip": [
                        tooltip_row, tooltip_state,
                        {"field": "start", "title": f"At ({unit})", "format": ".4~f"},
                    ],
                },
            },
        ],
    )
