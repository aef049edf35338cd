"""The KV-memory sim's charts: where the memory goes over a run, requests in flight under
each allocator, what the block size trades, and what a preemption costs either way.

As in the other sims, every axis the inputs move has its domain given (sims/kit/charts.py), so
the page's kept chart view takes a new run as new data.
"""

from __future__ import annotations

from typing import Any

from sims.kit import charts, timeline
from sims.physics.hardware import Gpu
from sims.serving.kv_allocators import MAX_STEPS
from sims.serving.kv_meter import PARTS, Outcome
from sims.serving.kv_space import KvSpace, swap_s
from sims.serving.step_table import StepTable

PART_COLOURS = (timeline.WORK, "#9ecae9", timeline.OTHER_WORK, timeline.MIXED_WORK,
                timeline.COMMUNICATION, timeline.IDLE)
ALLOCATOR_COLOURS = {"paged": timeline.WORK, "contiguous": timeline.OTHER_WORK}
# The clock runs a little past the last sample, whose line would otherwise end on the
# plot's edge and stick out by its width on some runs and not on others.
EDGE_ROOM = 1.02
STEPS_TITLE = "Decode steps since the backlog arrived (steps)"


def _steps_axis(last: float) -> dict[str, Any]:
    return {"field": "step", "type": "quantitative", "title": STEPS_TITLE,
            "scale": {"domain": [0, max(1, last)], "nice": False},
            # The run ends rarely on a tick: flush labels keep the plot in place (timeline).
            # No tick marks: one that falls within a pixel of the end sticks out by half its
            # stroke, and the plot narrows to fit it (the grid lines mark the ticks).
            "axis": {"labelFlush": timeline.FLUSH_PX, "ticks": False}}


def _memory_chart(name: str, outcome: Outcome, last: float) -> dict[str, Any]:
    samples = outcome.samples or [(0, 0, dict.fromkeys(PARTS, 0.0))]
    total = sum(samples[0][2].values()) or 1.0
    rows = [{"step": step, "part": part, "rank": rank, "share_pct": parts[part] / total * 100}
            for step, _, parts in samples for rank, part in enumerate(PARTS)]
    return charts.chart(
        f"Where the KV memory goes: {name}",
        f"Shares of the KV cache's room over the run under the {name} allocator, stacked: "
        f"tokens' KV at the bottom, then reservation, fragmentation and free memory.",
        rows,
        mark={"type": "area", "interpolate": "step-after"},
        encoding={
            "x": _steps_axis(last),
            "y": {"field": "share_pct", "type": "quantitative", "stack": "zero",
                  "title": "Share of the KV room (%)", "scale": {"domain": [0, 100]}},
            "order": {"field": "rank"},
            "color": {"field": "part", "type": "nominal", "title": None,
                      "scale": {"domain": list(PARTS), "range": list(PART_COLOURS)},
                      "legend": {"orient": "bottom", "columns": 2}},
            "tooltip": [{"field": "step", "title": "step"}, {"field": "part", "title": "part"},
                        {"field": "share_pct", "title": "share (%)", "format": ".1f"}],
        },
    )


def _running_chart(runs: dict[str, Outcome], last: float) -> dict[str, Any]:
    rows = [{"step": step, "allocator": name, "running": running}
            for name, outcome in runs.items()
            for step, running, _ in outcome.samples or [(0, 0, {})]]
    top = max(row["running"] for row in rows) or 1
    return charts.chart(
        "Requests in flight: paged blocks hold more",
        "Requests running at once over the run, under each allocator, for the same backlog.",
        rows,
        mark={"type": "line", "interpolate": "step-after"},
        encoding={
            "x": _steps_axis(last),
            "y": {"field": "running", "type": "quantitative",
                  "title": "Requests in flight (requests)", **charts.value_axis(top)},
            "color": {"field": "allocator", "type": "nominal", "title": None,
                      "scale": {"domain": list(ALLOCATOR_COLOURS),
                                "range": list(ALLOCATOR_COLOURS.values())},
                      "legend": {"orient": "bottom"}},
            "tooltip": [{"field": "allocator", "title": "allocator"},
                        {"field": "step", "title": "step"},
                        {"field": "running", "title": "requests in flight"}],
        },
    )


def _right_axis(top: float) -> dict[str, Any]:
    """charts.value_axis for a y axis on the right: ticks from zero and a domain rounded out
    so that no label sticks out above the plot, which would move it between runs."""
    axis = charts.value_axis(top)
    return {"scale": axis["scale"], "axis": {**axis["axis"], "orient": "right"}}


def _block_chart(sweep: dict[int, Outcome], chosen: int) -> dict[str, Any]:
    rows = [{"block_size": size, "waste_pct": outcome.waste * 100,
             "running": outcome.mean_running} for size, outcome in sweep.items()]
    sizes = [rows[0]["block_size"], rows[-1]["block_size"]]
    x = {"field": "block_size", "type": "quantitative", "title": "Block size (tokens)",
         "scale": {"type": "log", "base": 2, "domain": sizes}}
    waste_title, running_title = "Waste (% of the KV room)", "Requests in flight, mean (requests)"
    tooltip = [{"field": "block_size", "title": "block size (tokens)"},
               {"field": "waste_pct", "title": waste_title, "format": ".2f"},
               {"field": "running", "title": running_title, "format": ".1f"}]
    return charts.chart(
        "Bigger blocks waste their last block",
        "For the paged allocator, the share of the KV room wasted in partly filled last "
        "blocks, and the requests in flight, against the block size, with the chosen size "
        "marked.",
        rows,
        encoding={"x": x},
        layer=[
            {"mark": {"type": "line", "point": True},
             "encoding": {"y": {"field": "waste_pct", "type": "quantitative",
                                "title": waste_title, "axis": {"orient": "left"},
                                **charts.value_axis(max(r["waste_pct"] for r in rows) or 1)},
                          "color": {"datum": "waste (%)", "legend": {"orient": "bottom"}},
                          "tooltip": tooltip}},
            {"mark": {"type": "line", "point": True, "strokeDash": [6, 3]},
             "encoding": {"y": {"field": "running", "type": "quantitative",
                                "title": running_title,
                                **_right_axis(max(r["running"] for r in rows) or 1)},
                          "color": {"datum": "requests in flight",
                                    "legend": {"orient": "bottom"}},
                          "tooltip": tooltip}},
            {"mark": {"type": "rule", "strokeDash": [2, 2], "color": "#9e9e9e"},
             "encoding": {"x": {"datum": chosen}}},
        ],
        resolve={"scale": {"y": "independent"}},
    )


def _preemption_chart(table: StepTable, space: KvSpace, gpu: Gpu, longest: int
                      ) -> dict[str, Any]:
    lengths = []
    length = 256
    while length < longest:
        lengths.append(length)
        length *= 2
    lengths.append(longest)
    rows = []
    for tokens in lengths:
        rows.append({"tokens": tokens, "way": "recompute",
                     "ms": table.time_s(0, 0, tokens, 0.0) * 1000})
        swap = swap_s(space, gpu, tokens)
        if swap is not None:
            rows.append({"tokens": tokens, "way": "swap out and back", "ms": swap * 1000})
    link = gpu.host_link or "no host link in the catalogue"
    return charts.chart(
        "Recompute or swap a preempted request",
        f"Time to recompute a preempted request's KV (a prefill of every token it held) and "
        f"to copy it to host memory and back over the host link ({link}), against its "
        f"length.",
        rows,
        mark={"type": "line", "point": True},
        encoding={
            "x": {"field": "tokens", "type": "quantitative",
                  "title": "Tokens the request held (tokens)",
                  "scale": {"type": "log", "base": 2, "domain": [256, longest]}},
            "y": {"field": "ms", "type": "quantitative", "title": "Time (ms, log scale)",
                  "scale": {"type": "log"}},
            "color": {"field": "way", "type": "nominal", "title": None,
                      "scale": {"domain": ["recompute", "swap out and back"],
                                "range": [timeline.WORK, timeline.OTHER_WORK]},
                      "legend": {"orient": "bottom"}},
            "tooltip": [{"field": "way", "title": "way"},
                        {"field": "tokens", "title": "tokens"},
                        {"field": "ms", "title": "time (ms)", "format": ".3~g"}],
        },
    )


def first_charts(allocator: str, runs: dict[str, Outcome]) -> list[dict[str, Any]]:
    """The charts of the two runs the summary reads (the page shows them first); every run
    on one clock of decode steps."""
    # A run that served nobody (the weights fill the GPU) spans the longest a run may, so
    # that its clock, like others, does not end on a tick.
    last = max(sample[0] for outcome in runs.values()
               for sample in outcome.samples or [(MAX_STEPS,)]) * EDGE_ROOM
    return [_memory_chart(allocator, runs[allocator], last), _running_chart(runs, last)]


def later_charts(sweep: dict[int, Outcome], block: int, table: StepTable, space: KvSpace,
                 gpu: Gpu, longest: int) -> list[dict[str, Any]]:
    """The block-size sweep's chart and the preemption costs, after the first two."""
    return [_block_chart(sweep, block), _preemption_chart(table, space, gpu, longest)]
