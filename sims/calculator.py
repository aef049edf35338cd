"""The physics calculator: one step on one deployment, priced by the shared physics.

A sim like the others (a page can embed it, `python -m sims calculator --gpu h200 ...`
prints it), and the functions behind the command line's physics calculator:
`python -m sims step ...` prints `step_json`, `python -m sims allreduce ...` prints
`allreduce_json`, and `python -m sims --catalogue` prints `catalogue_json`, the whole
catalogue with the figures derived from it.

A decode step: `batch` sequences each add one token after `context` tokens. A prefill: each
of `batch` sequences computes `prompt_tokens` new tokens on top of `context` cached ones, or
with `prompt_tokens` 0, its whole `context` as the prompt (nothing cached).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from sims.kit import charts
from sims.kit.contract import Choice, InputError, Number, simulation, validate
from sims.physics import (
    GPUS,
    KV_INPUT,
    LAYOUTS,
    MODELS,
    TP_DEGREES,
    WEIGHTS_INPUT,
    Work,
    allreduce_time,
    memory_fit,
    precision_for,
    step_cost,
)
from sims.physics.accuracy import step_note
from sims.physics.kinds import SLIDING
from sims.physics.model_choice import model_for, model_inputs
from sims.physics.precision import PRECISIONS
from sims.physics.pricing import pricer

TITLE = "One step on one deployment, priced"

MAX_TOKENS = 131_072  # the upper bound of the token inputs (128 Ki)

INPUTS = (
    Choice("gpu", "GPU", "h100", tuple(GPUS)),
    *model_inputs("llama-3.1-8b"),
    Choice("tp", "GPUs", "1", tuple(str(t) for t in TP_DEGREES),
           help="GPUs the model is spread over, within one scale-up domain."),
    Number("batch", "Sequences", default=1, min=1, max=1024, unit="sequences"),
    Number("context", "Context", default=2048, min=0, max=MAX_TOKENS, unit="tokens",
           help="Tokens already cached per sequence (a prefill of 0 new tokens: the prompt)."),
    Choice("phase", "Phase", "decode", ("decode", "prefill")),
    Number("prompt_tokens", "Prompt tokens", default=0, min=0, max=MAX_TOKENS, unit="tokens",
           help="A prefill's new tokens per sequence; 0 for the whole context."),
    WEIGHTS_INPUT,
    Choice("activations", "Activations", "auto", ("auto", *PRECISIONS),
           help="auto: the weights' format if the GPU computes in it, else BF16."),
    KV_INPUT,
    Choice("layout", "Layout", "tp", LAYOUTS,
           help="tp: tensor parallel; ep: expert parallel (mixtures of experts only)."),
)

METRICS = {
    "time_s": "The step (s)",
    "compute_s": "Its operators' compute times, summed (s)",
    "memory_s": "Their memory times, summed (s)",
    "collective_s": "Collectives it waits for (s)",
    "flops": "Arithmetic, every GPU together (FLOP)",
    "bytes": "Bytes moved, every GPU together (bytes)",
    "bound": "What dominates its operators (compute or memory)",
    "fits": "Weights and KV fit in each GPU's usable memory",
    "memory": "Memory each GPU needs, against what it can use",
    "precision": "Formats of weights, activations and KV",
    "accuracy": "Regime of the step and the measured error there",
}

STEP_KEYS = ("time_s", "compute_s", "memory_s", "collective_s", "flops", "bytes", "fits")

ALLREDUCE_INPUTS = (
    Choice("gpu", "GPU", "h100", tuple(GPUS)),
    Choice("tp", "GPUs", "8", tuple(str(t) for t in TP_DEGREES),
           help="GPUs taking part, within one scale-up domain."),
    Number("bytes", "Message", default=1048576, min=0, max=10**12, unit="bytes"),
)


def _work(phase: str, batch: int, context: int, prompt_tokens: int) -> tuple[Work, int]:
    """The step's work and the context each sequence holds after it."""
    if phase == "decode":
        return Work(1, context, count=batch), context + 1
    if not (prompt_tokens or context):  # a prefill of nothing has no step to price
        raise InputError("prompt_tokens", f"expected 1 to {MAX_TOKENS} tokens for a prefill "
                         "with no context (or a context of at least 1 token as the prompt), "
                         "got 0")
    new, cached = (prompt_tokens, context) if prompt_tokens else (context, 0)
    return Work(new, cached, count=batch, logit_tokens=1), cached + new


@simulation(INPUTS)
def simulate(
    *, gpu: str, model: str, model_config: str, tp: str, batch: int, context: int, phase: str,
    prompt_tokens: int, weights: str, activations: str, kv: str, layout: str,
) -> dict[str, Any]:
    chip, shape, gpus = GPUS[gpu], model_for(model, model_config), int(tp)
    precision = precision_for(chip, shape, weights, activations, kv)
    work, held = _work(phase, batch, context, prompt_tokens)
    cost = step_cost(chip, shape, [work], gpus, precision, layout)
    fit = memory_fit(chip, shape, batch, held, gpus, precision, layout)
    priced = pricer(chip, shape, precision, gpus, layout)
    parts = priced.parts([work])
    rows = [{"part": part, "ms": seconds * 1e3, "order": i}
            for i, (part, seconds) in enumerate(parts.items())]
    return {
        "summary": {
            "time_s": cost.time_s, "compute_s": cost.compute_s, "memory_s": cost.memory_s,
            "collective_s": cost.collective_s, "flops": cost.flops, "bytes": cost.bytes,
            "bound": cost.bound, "fits": fit.fits, "memory": fit.reason,
            "precision": precision.label,
            "accuracy": f"{phase.capitalize()} step: "
                        + step_note(chip, priced.classes([work])),
        },
        "charts": [charts.chart(
            charts.titled(f"Where one GPU's {phase} step goes", fit.note),
            f"Time of one {phase} step of {shape.name} on {gpus} {chip.name} GPU(s), by kind "
            f"of operator, each operator priced on its own, and the collectives.",
            rows,
            mark="bar",
            encoding={
                "y": {"field": "part", "type": "nominal", "title": "Operators",
                      "sort": {"field": "order"}},
                "x": {"field": "ms", "type": "quantitative", "title": "Time (ms)",
                      **charts.value_axis(max([row["ms"] for row in rows], default=1.0))},
                "tooltip": [{"field": "part", "title": "Operators"},
                            {"field": "ms", "title": "Time (ms)", "format": ".3f"}],
            },
        )],
    }


def step_json(given: dict[str, Any]) -> dict[str, Any]:
    """`python -m sims step`: the step's figures under STEP_KEYS (refusals as ValueError)."""
    summary = simulate(**given)["summary"]
    return {key: summary[key] for key in STEP_KEYS}


def allreduce_json(given: dict[str, Any]) -> dict[str, float]:
    """`python -m sims allreduce`: one all-reduce's time (s)."""
    values = validate(ALLREDUCE_INPUTS, given)
    chip, gpus = GPUS[values["gpu"]], int(values["tp"])
    if gpus > chip.scale_up_gpus:
        raise InputError("tp", f"expected 1 to {chip.scale_up_gpus} GPUs, the {chip.name}'s "
                               f"scale-up domain, got {gpus}")
    return {"time_s": allreduce_time(chip, values["bytes"], gpus)}


def catalogue_json() -> dict[str, Any]:
    """`python -m sims --catalogue`: every GPU and model with the figures derived from it."""
    gpus = {
        key: {
            "name": gpu.name,
            "dense_flops": dict(gpu.dense_flops),
            "hbm_bytes": gpu.hbm_bytes,
            "hbm_bytes_per_s": gpu.hbm_bytes_per_s,
            "interconnect_bytes_per_s": gpu.scale_up_bytes_per_s,
            "scale_up_gpus": gpu.scale_up_gpus,
            "host_link_bytes_per_s": gpu.host_link_bytes_per_s,
            "scale_out_bytes_per_s": gpu.scale_out_bytes_per_s,
            "peak_ridge_flops_per_byte": gpu.ridge_flops_per_byte,
            "effective_ridge_flops_per_byte": gpu.effective_ridge_flops_per_byte,
            "topology": gpu.topology,
            "kernel_profile": gpu.kernels.key,
            "allreduce_latency_s": {
                name: {algorithm.traffic: {str(n): s for n, s in algorithm.latency_s.items()}
                       for algorithm in fit.algorithms
                       if algorithm.traffic != "in_switch" or gpu.topology == "switch"}
                for name, fit in gpu.kernels.all_reduce.items()},
        }
        for key, gpu in GPUS.items()
    }
    models = {
        key: {
            "name": model.name,
            "params_total": model.params,
            "params_active": model.params_active,
            "kv_bytes_per_token": {p: model.kv_bytes_per_token(p) for p in PRECISIONS},
            "weight_bytes": model.weight_bytes(),
            "layers": model.layers,
            "experts": model.experts,
            "experts_per_token": model.experts_per_token,
            "latent_attention": model.latent,
            "sliding_window_layers": sum(1 for kind in model.kinds if kind.attention == SLIDING),
            "layer_kinds": dict(sorted(Counter(kind.attention for kind in model.kinds).items())),
        }
        for key, model in MODELS.items()
    }
    return {"gpus": gpus, "models": models}
