"""The batching sim's charts: who holds each batch slot step by step, and when each request
gets its whole answer, under static and continuous batching."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sims.kit import charts

if TYPE_CHECKING:
    from sims.batching import Run


# Tableau 20 without its two greys, so that no request looks like an idle slot.
REQUEST_COLOURS = (
    "#4c78a8", "#9ecae9", "#f58518", "#ffbf79", "#54a24b", "#88d27a", "#b79a20", "#f2cf5b",
    "#439894", "#83bcb6", "#e45756", "#ff9d98", "#d67195", "#fcbfd2", "#b279a2", "#d6a5c9",
    "#9e765f", "#d8b5a5",
)
POLICY_LABELS = {"static": "Static", "continuous": "Continuous"}


def timeline_rows(policy: str, run: Run, batch_size: int) -> list[dict]:
    """One row per stretch of a slot: a request holding it, or the slot sitting idle."""
    rows = []
    by_slot: dict[int, list[tuple[int, int, int]]] = {slot: [] for slot in range(batch_size)}
    for request, slot, start, end in run.spans:
        by_slot[slot].append((start, end, request))
    for slot, held in by_slot.items():
        cursor = 0
        for start, end, request in sorted(held):
            if start > cursor:
                rows.append(_stretch(policy, slot, cursor, start, None))
            rows.append(_stretch(policy, slot, start, end, request))
            cursor = end
        if cursor < run.steps:
            rows.append(_stretch(policy, slot, cursor, run.steps, None))
    return rows


def _stretch(policy: str, slot: int, start: int, end: int, request: int | None) -> dict:
    return {
        "policy": POLICY_LABELS[policy],
        "slot": slot + 1,
        "start": start,
        "end": end,
        "steps": end - start,
        "request": None if request is None else request + 1,
        "holder": "idle" if request is None else f"request {request + 1}",
    }


def timeline_chart(rows: list[dict], note: str) -> dict:
    busy = {"filter": "datum.request != null"}
    idle = {"filter": "datum.request == null"}
    position = {
        "x": {"field": "start", "type": "quantitative", "title": "Steps since the start (count)"},
        "x2": {"field": "end"},
        "y": {"field": "policy", "type": "nominal", "title": "Batch slots",
              "sort": list(POLICY_LABELS.values())},
        "yOffset": {"field": "slot", "type": "ordinal"},
        "tooltip": [
            {"field": "policy", "title": "Policy"},
            {"field": "slot", "title": "Slot"},
            {"field": "holder", "title": "Held by"},
            {"field": "start", "title": "From step"},
            {"field": "end", "title": "To step"},
        ],
    }
    return charts.chart(
        charts.titled("Who holds each batch slot, step by step", note),
        "One row per batch slot under each policy, across decode steps. Coloured bars are "
        "requests holding a slot; grey stretches are slots holding no request.",
        rows,
        layer=[
            {"transform": [busy], "mark": {"type": "rect", "stroke": "#ffffff",
                                           "strokeWidth": 0.5},
             "encoding": {**position, "color": {"field": "request", "type": "nominal",
                                                "scale": {"range": list(REQUEST_COLOURS)},
                                                "legend": None}}},
            {"transform": [idle], "mark": {"type": "rect", "fillOpacity": 0.3},
             "encoding": {**position, "color": {"datum": "idle slot", "type": "nominal",
                                                "scale": {"range": ["#888888"]},
                                                "legend": {"title": None, "orient": "top"}}}},
        ],
        resolve={"scale": {"color": "independent"}},
    )


def latency_chart(rows: list[dict]) -> dict:
    return charts.chart(
        "When each request gets its whole answer",
        "Time from the common arrival until each request's last token, one pair of bars "
        "per request: static batching and continuous batching.",
        rows,
        mark={"type": "bar"},
        encoding={
            "x": {"field": "request", "type": "ordinal", "title": "Request (queue order)"},
            "xOffset": {"field": "policy", "sort": list(POLICY_LABELS.values())},
            "y": {"field": "latency_s", "type": "quantitative",
                  "title": "Time to complete answer (s)"},
            "color": {"field": "policy", "type": "nominal", "title": None,
                      "scale": {"domain": list(POLICY_LABELS.values())},
                      "legend": {"orient": "top"}},
            "tooltip": [
                {"field": "request", "title": "Request"},
                {"field": "policy", "title": "Policy"},
                {"field": "output_tokens", "title": "Answer (tokens)"},
                {"field": "latency_s", "title": "Done after (s)"},
            ],
        },
    )
