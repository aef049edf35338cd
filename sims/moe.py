"""Mixture of experts: a model far larger than the work one token does, and what that costs.

Each MoE layer holds E experts (small MLPs) and a router that sends each token to k of them,
so a token is multiplied by a small share of the weights (the active parameters) while the
GPUs must hold them all. In a decode step every token of the batch picks its own k experts;
the experts the step must read are the distinct ones picked, about E(1 - (1 - k/E)^T) for T
tokens (`sims.physics.touched_experts`), which climbs from k at batch 1 towards all E.
So the bytes a step reads, and with them the time of a memory-bound step, grow with the
batch much faster than for a dense model of the same active size, whose weights are read
once whatever the batch.

The dense equivalent here is the same model with every MoE layer routing to the same k
experts: its weights are exactly the active ones (the router aside, under 0.3% for the
models here), in the same formats, on the same GPUs.

Two ways to spread an MoE model over a group of GPUs, priced by the shared physics
(`sims.physics.pricing` states both): tensor parallel, every expert cut across the GPUs, two
all-reduces per layer; and expert parallel, each GPU holding whole experts (1/n of them)
and running attention on its own share of the sequences, with two all-to-alls per MoE layer
that send each token to the GPUs of its experts and bring the results back.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any

from sims.kit import charts
from sims.kit.contract import Choice, InputError, Number, simulation
from sims.physics import (
    GPUS,
    MODELS,
    TP_DEGREES,
    Gpu,
    Model,
    Precision,
    StepCost,
    Work,
    check_group,
    decode_step,
    memory_fit,
    precision_for,
    touched_experts,
)
from sims.physics.accuracy import step_regime
from sims.physics.model_choice import model_for, model_inputs, refuse_unless

TITLE = "671 billion parameters, 37 billion at a time"
# Issue 19 allows its sims 100 ms at their most expensive inputs (the others get 20).
WORST_MS = 100

MOE_MODELS = tuple(key for key, model in MODELS.items() if model.experts)
MAX_BATCH = 512
BATCH_SWEEP = tuple(2**k for k in range(10))  # 1 .. 512 sequences
TP, EP, DENSE = "MoE, tensor parallel", "MoE, expert parallel", "dense equivalent"
LAYOUT_OF = {"off": "tp", "on": "ep"}
COLOURS = {TP: "#4c78a8", EP: "#f58518", DENSE: "#54a24b"}

INPUTS = (
    *model_inputs("deepseek-v3", keys=MOE_MODELS,
                  help="The mixtures of experts in the catalogue, in their checkpoints' "
                       "formats."),
    Choice("gpu", "GPU", "h200", tuple(GPUS)),
    Choice("gpus", "GPUs", "8", tuple(str(t) for t in TP_DEGREES),
           help="GPUs in the group the model is spread over."),
    Choice("expert_parallel", "Expert parallel", "on", tuple(LAYOUT_OF),
           help="On: each GPU holds whole experts, tokens travel by all-to-all. Off: every "
                "expert is cut across the GPUs (tensor parallel)."),
    Number("batch_size", "Batch size", default=64, min=1, max=MAX_BATCH, unit="sequences",
           help="Sequences decoding together, one new token each per step."),
    Number("context_tokens", "Context per sequence", default=2048, min=0, max=32768, step=256,
           unit="tokens", help="Tokens already in each sequence's KV cache."),
)

METRICS = {
    "params_b": "Parameters in all (billions)",
    "active_params_b": "Parameters one token is multiplied by (billions)",
    "experts": "Routed experts per MoE layer (experts)",
    "experts_per_token": "Experts each token is routed to (experts)",
    "experts_touched_per_layer": "Distinct experts one decode step reads per layer (experts)",
    "bytes_per_step": "Bytes one decode step reads, each counted once (GB)",
    "dense_bytes_per_step": "The same for the dense equivalent (GB)",
    "decode_step_s": "Decode step in the chosen layout (s)",
    "dense_equivalent_step_s": "Decode step of the dense equivalent, tensor parallel (s)",
    "moe_over_dense": "MoE step over the dense equivalent's (x)",
    "tp_step_s": "Decode step, tensor parallel (s)",
    "ep_step_s": "Decode step, expert parallel (s)",
    "all_to_all_s": "All-to-alls in one expert-parallel step (s)",
    "allreduce_s": "All-reduces in one tensor-parallel step (s)",
    "fits": "Weights and KV cache fit, chosen layout",
    "memory": "Memory each GPU needs, against what it can use",
    "accuracy": "Regime of the decode step in the chosen layout and the measured error there",
}


@lru_cache(maxsize=16)
def dense_equivalent(model: Model) -> Model:
    """`model` with each MoE layer routing every token to the same k experts: a dense model
    whose weights are the active parameters, in the same formats (only the router shrinks)."""
    return replace(model, key=f"{model.key}/dense-equivalent", name=f"{model.name}, dense "
                   "equivalent", experts=model.experts_per_token)


def check_gpus(gpu: Gpu, model: Model, gpus: int) -> None:
    """Both layouts must be possible on this group; a refusal names the `gpus` input."""
    for layout in LAYOUT_OF.values():
        try:
            check_group(gpu, model, gpus, layout)
        except InputError as error:
            raise InputError("gpus", str(error).partition(": ")[2]) from None


def _steps(gpu: Gpu, model: Model, gpus: int, precision: Precision, batch: int,
           context: int) -> dict[str, StepCost]:
    twin = dense_equivalent(model)
    return {
        TP: decode_step(gpu, model, batch, context, gpus, precision, "tp"),
        EP: decode_step(gpu, model, batch, context, gpus, precision, "ep"),
        DENSE: decode_step(gpu, twin, batch, context, gpus, precision, "tp"),
    }


def _log_batch_axis() -> dict[str, Any]:
    return {"field": "batch", "type": "quantitative", "title": "Batch size (sequences)",
            "scale": {"type": "log", "base": 2, "domain": [1, MAX_BATCH]},
            "axis": {"values": list(BATCH_SWEEP)}}


def _touched_chart(model: Model, batch: int) -> dict[str, Any]:
    rows = []
    for n in sorted({*BATCH_SWEEP, batch}):
        rows.append({"series": "MoE: distinct experts read", "batch": n,
                     "experts": touched_experts(model, n), "current": n == batch})
        rows.append({"series": "dense equivalent: always the same", "batch": n,
                     "experts": float(model.experts_per_token), "current": False})
    x = _log_batch_axis()
    y = {"field": "experts", "type": "quantitative",
         "title": "Experts one step reads, per layer (experts)", **charts.value_axis(model.experts)}
    series = {"field": "series", "type": "nominal", "title": None,
              "scale": {"range": [COLOURS[TP], COLOURS[DENSE]]}, "legend": {"orient": "top"}}
    tooltip = [{"field": "series", "title": "Series"},
               {"field": "batch", "type": "quantitative", "title": "Batch"},
               {"field": "experts", "type": "quantitative", "title": "Experts",
                "format": ".1f"}]
    return charts.chart(
        f"Every sequence picks its own {model.experts_per_token} of {model.experts} experts",
        f"Distinct routed experts one decode step of {model.name} reads in each MoE layer "
        f"against the batch size, E(1 - (1 - k/E)^T) with E = {model.experts} and "
        f"k = {model.experts_per_token}, against the dense equivalent's fixed "
        f"{model.experts_per_token}; the dashed rule is all {model.experts} experts.",
        rows,
        layer=[
            {"mark": {"type": "rule", "strokeDash": [4, 4], "color": "#888888"},
             "encoding": {"y": {"datum": model.experts}}},
            {"mark": {"type": "text", "align": "left", "baseline": "top", "dx": 4, "dy": 4,
                      "color": "#888888"},
             "encoding": {"x": {"value": 0}, "y": {"datum": model.experts},
                          "text": {"value": f"all {model.experts} experts"}}},
            {"mark": {"type": "line", "point": True},
             "encoding": {"x": x, "y": y, "color": series, "tooltip": tooltip}},
            {"transform": [{"filter": "datum.current"}],
             "mark": {"type": "point", "filled": True, "size": 140, "opacity": 1,
                      "color": COLOURS[TP]},
             "encoding": {"x": x, "y": y, "tooltip": tooltip}},
        ],
    )


def _time_chart(gpu: Gpu, model: Model, gpus: int, precision: Precision, batch: int,
                context: int, chosen: str, note: str) -> dict[str, Any]:
    rows = []
    for n in sorted({*BATCH_SWEEP, batch}):
        for series, cost in _steps(gpu, model, gpus, precision, n, context).items():
            rows.append({"series": series, "batch": n, "ms": cost.time_s * 1e3,
                         "gb": cost.bytes / 1e9,
                         "current": n == batch and series == chosen})
    x = _log_batch_axis()
    y = {"field": "ms", "type": "quantitative", "title": "Decode step (ms)",
         **charts.value_axis(max(row["ms"] for row in rows))}
    series = {"field": "series", "type": "nominal", "title": None,
              "scale": {"domain": list(COLOURS), "range": list(COLOURS.values())},
              "legend": {"orient": "top"}}
    tooltip = [{"field": "series", "title": "Series"},
               {"field": "batch", "type": "quantitative", "title": "Batch"},
               {"field": "ms", "type": "quantitative", "title": "Step (ms)", "format": ".2f"},
               {"field": "gb", "type": "quantitative", "title": "Bytes read (GB)",
                "format": ".1f"}]
    return charts.chart(
        charts.titled("The MoE step climbs with the batch long before its dense equivalent "
                      "does", note),
        f"One decode step of {model.name} on {gpus} x {gpu.name} against the batch size, "
        f"tensor parallel and expert parallel, and of a dense model of its active size "
        f"(tensor parallel); the large dot is the current batch and layout.",
        rows,
        layer=[
            {"mark": {"type": "line", "point": True},
             "encoding": {"x": x, "y": y, "color": series, "tooltip": tooltip}},
            {"transform": [{"filter": "datum.current"}],
             "mark": {"type": "point", "filled": True, "size": 140, "opacity": 1},
             "encoding": {"x": x, "y": y, "color": {**series, "legend": None},
                          "tooltip": tooltip}},
        ],
    )


def _split_chart(steps: dict[str, StepCost], gpus: int, batch: int) -> dict[str, Any]:
    """One step under each layout: the operators' time, then what the GPUs wait to exchange."""
    rows = []
    for order, (layout, part) in enumerate(((TP, "all-reduces"), (EP, "all-to-alls"))):
        cost = steps[layout]
        rows.append({"layout": layout, "part": "weights, KV cache and arithmetic",
                     "order": 0, "ms": cost.ops_s * 1e3, "rank": order})
        rows.append({"layout": layout, "part": f"waiting on {part}", "order": 1,
                     "ms": cost.collective_s * 1e3, "rank": order})
    longest = max(steps[layout].time_s for layout in (TP, EP)) * 1e3
    parts = ["weights, KV cache and arithmetic", "waiting on all-reduces",
             "waiting on all-to-alls"]
    return charts.chart(
        "Tensor parallel waits on all-reduces, expert parallel on all-to-alls",
        f"One decode step at batch {batch} on {gpus} GPUs under each layout, split into its "
        f"operators (reading weights and KV cache, the arithmetic, kernel overheads) and the "
        f"collectives it waits for.",
        rows,
        mark={"type": "bar"},
        encoding={
            "y": {"field": "layout", "type": "nominal", "title": None, "sort": [TP, EP]},
            # A domain rounded out to the axis's own ticks past the longer bar (value_axis,
            # for this axis as for a y axis): the last label lands in the same place on every
            # run, so a new run does not move the plot (a kept view would redraw every mark).
            "x": {"field": "ms", "type": "quantitative", "title": "Time in one step (ms)",
                  "stack": "zero", **charts.value_axis(longest)},
            "color": {"field": "part", "type": "nominal", "title": None,
                      "scale": {"domain": parts, "range": ["#4c78a8", "#e45756", "#f58518"]},
                      "legend": {"orient": "top", "columns": 1}},
            "order": {"field": "order"},
            "tooltip": [{"field": "layout", "title": "Layout"},
                        {"field": "part", "title": "Part"},
                        {"field": "ms", "type": "quantitative", "title": "Time (ms)",
                         "format": ".2f"}],
        },
        height=140,
    )


@simulation(INPUTS)
def simulate(*, model: str, model_config: str,
             gpu: str, gpus: str, expert_parallel: str, batch_size: int,
             context_tokens: int) -> dict[str, Any]:
    chip, shape, group = GPUS[gpu], model_for(model, model_config), int(gpus)
    refuse_unless(shape.experts > 0, "is a dense model: this sim compares the layouts of a "
                                     "mixture of experts (its config names no experts)")
    check_gpus(chip, shape, group)
    precision = precision_for(chip, shape)
    layout = LAYOUT_OF[expert_parallel]
    chosen = EP if layout == "ep" else TP
    steps = _steps(chip, shape, group, precision, batch_size, context_tokens)
    fit = memory_fit(chip, shape, batch_size, context_tokens + 1, group, precision, layout)
    step, dense = steps[chosen], steps[DENSE]
    regime = step_regime(chip, shape, precision, group, layout,
        [Work(1, context_tokens, count=batch_size)])
    return {
        "summary": {
            "params_b": shape.params / 1e9,
            "active_params_b": shape.params_active / 1e9,
            "experts": shape.experts,
            "experts_per_token": shape.experts_per_token,
            "experts_touched_per_layer": touched_experts(shape, batch_size),
            "bytes_per_step": step.bytes / 1e9,
            "dense_bytes_per_step": dense.bytes / 1e9,
            "decode_step_s": step.time_s,
            "dense_equivalent_step_s": dense.time_s,
            "moe_over_dense": step.time_s / dense.time_s,
            "tp_step_s": steps[TP].time_s,
            "ep_step_s": steps[EP].time_s,
            "all_to_all_s": steps[EP].collective_s,
            "allreduce_s": steps[TP].collective_s,
            "fits": fit.fits,
            "memory": fit.reason,
            "accuracy": f"Decode step, {'expert' if layout == 'ep' else 'tensor'} parallel: "
                        f"{regime}",
        },
        "charts": [
            _touched_chart(shape, batch_size),
            _time_chart(chip, shape, group, precision, batch_size, context_tokens, chosen,
                        fit.note),
            _split_chart(steps, group, batch_size),
        ],
    }
