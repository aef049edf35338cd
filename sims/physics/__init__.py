"""Shared serving physics: the one place a sim asks what a GPU, a model or a step costs.

Every sim that needs a bandwidth, a FLOP rate, a model's size or a step time asks this
package (`from sims.physics import ...`); no sim keeps its own copy of any figure. The
pieces, each in its own module of the package:

- `hardware`: GPUs from the catalogue (content/catalogue/gpus/, through the generated
  `catalogue_data`), and the efficiencies this model assumes;
- `shapes`: model shapes from their config.json (content/catalogue/models/);
- `precision`: number formats per tensor class (weights, experts, activations, KV);
- `pricing`: a step priced operator by operator (the formulas are stated there);
- `collectives`: all-reduce, all-to-all and sends, fitted to measured NCCL times;
- `capacity`: how many sequences fit; `drafters`: speculative decoding's drafters.

This module (the package's own) puts them together behind stable names (GPUS, MODELS,
step_cost, decode_step, prefill, memory_fit, allreduce_time, ...) and checks what a sim may
ask: a group no larger than the GPU's scale-up domain, a format the GPU can compute in, a
tensor-parallel degree that divides the model's heads. Those refusals are InputErrors
naming the input (`tp`, `weights`, `activations`, `layout`), so a page shows them next to
the control.
"""

from __future__ import annotations

from collections.abc import Iterable

from sims.kit.contract import Choice, InputError
from sims.physics import catalogue_data, collectives
from sims.physics.fits import MemoryFit
from sims.physics.hardware import Gpu, build_gpus
from sims.physics.precision import (
    LABELS,
    PRECISIONS,
    WEIGHT_FORMATS,
    Precision,
    bytes_per_value,
    wider,
)
from sims.physics.pricing import LAYOUTS, pricer
from sims.physics.profile import KernelProfile, build_profiles
from sims.physics.shapes import Model, build_models
from sims.physics.step import StepCost, Work, experts_per_gpu, touched_experts

__all__ = [
    "GPUS", "KV_INPUT", "LAYOUTS", "MODELS", "PRECISIONS", "PROFILES",
    "SCALE_OUT_LATENCY_S", "TP_DEGREES", "USABLE_MEMORY_FRACTION", "WEIGHTS_INPUT", "Gpu",
    "KernelProfile", "MemoryFit", "Model", "Precision", "StepCost", "Work",
    "all_to_all_time", "allreduce_fit", "allreduce_time", "check_group", "decode_step",
    "host_link_time", "memory_fit", "p2p_time", "precision_for", "prefill", "ridge_tokens",
    "scale_out_time", "smallest_fitting_tp", "step_cost", "step_series", "touched_experts",
    "tp_degrees",
]

PROFILES: dict[str, KernelProfile] = build_profiles(catalogue_data.KERNELS)
GPUS: dict[str, Gpu] = build_gpus(catalogue_data.GPUS, PROFILES)
MODELS: dict[str, Model] = build_models(catalogue_data.MODELS)

# Tensor-parallel degrees a sim offers; a GPU allows those within its scale-up domain.
TP_DEGREES = (1, 2, 4, 8)

# The formats a sim lets the reader pick, as every sim spells them (precision_for reads them).
WEIGHTS_INPUT = Choice("weights", "Weights", "native", ("native", *WEIGHT_FORMATS),
                       help="The weights' format: native keeps the checkpoint's own; INT8 and "
                            "INT4 are weight-only (they compute in the activations' format).")
KV_INPUT = Choice("kv", "KV cache", "bf16", PRECISIONS, help="The KV cache's format.")

# Share of memory that can hold weights and KV; the rest goes to activations, the CUDA
# context and allocator slack. vLLM's default gpu_memory_utilization is 0.9.
USABLE_MEMORY_FRACTION = 0.9

# A send over the network between nodes starts with this fixed cost: Vidur's measured
# send_recv between two DGX H100 nodes (data/profiling/network/h100_dgx/send_recv.csv,
# rows 0-14, 2 KB to 117 KB) has a median of 20 us.
SCALE_OUT_LATENCY_S = 20e-6


def tp_degrees(gpu: Gpu) -> tuple[int, ...]:
    """The degrees of TP_DEGREES that fit in the GPU's scale-up domain."""
    return tuple(tp for tp in TP_DEGREES if tp <= gpu.scale_up_gpus)


def check_group(gpu: Gpu, model: Model, gpus: int, layout: str = "tp", *,
                gpus_input: str = "tp", layout_input: str = "layout") -> None:
    """Refuse a group the physics cannot price, naming the input at fault (a sim whose
    inputs have other names passes them)."""
    if layout not in LAYOUTS:
        raise InputError(layout_input, f"expected one of {', '.join(LAYOUTS)}, got {layout!r}")
    if gpus < 1 or gpus > gpu.scale_up_gpus:
        raise InputError(gpus_input, f"expected 1 to {gpu.scale_up_gpus} GPUs, the {gpu.name}'s "
                                     f"scale-up domain ({gpu.scale_up_link}), got {gpus}")
    if layout == "ep":
        if not model.experts:
            raise InputError(layout_input, f"expected tp for {model.name}, got ep: expert "
                                           f"parallelism needs a mixture of experts, and "
                                           f"{model.name} is dense")
        if gpus > model.experts:
            raise InputError(gpus_input, f"expected at most one GPU per expert of {model.name} "
                                         f"({model.experts}), got {gpus}")
    elif model.heads % gpus:
        raise InputError(gpus_input, f"expected a degree that divides the {model.heads} query "
                                     f"heads of {model.name}, got {gpus}")


def precision_for(
    gpu: Gpu, model: Model, weights: str | None = None, activations: str | None = None,
    kv: str = "bf16",
) -> Precision:
    """The formats of one deployment. `weights` None (or "native") keeps the checkpoint's own
    (config.json's quantization_config); any other format applies to every weight in the
    layers. `activations` None (or "auto") is what engines do: the weights' format when the
    GPU computes in it (FP8 W8A8 on a Hopper), else BF16 (weight-only, e.g. FP4 on a
    Hopper, or INT4: W4A16; INT4 with FP8 activations asked for is W4A8). An activation
    format the GPU has no rate for is refused."""
    for name, value in (("weights", weights), ("activations", activations), ("kv", kv)):
        allowed = (*WEIGHT_FORMATS, "native") if name == "weights" else (
            (*PRECISIONS, "auto") if name == "activations" else PRECISIONS)
        if value is not None and value not in allowed:
            raise InputError(name, f"expected one of {', '.join(allowed)}, got {value!r}")
    native = weights in (None, "native")
    w, e = (model.native.weights, model.native.experts) if native else (weights, weights)
    if activations in (None, "auto"):
        activations = w if w in gpu.dense_flops else "bf16"
    elif activations not in gpu.dense_flops:
        has = ", ".join(LABELS[p] for p in PRECISIONS if p in gpu.dense_flops)
        raise InputError("activations", f"expected a format the {gpu.name} computes in "
                                        f"({has}), got {activations}: the {gpu.name} has no "
                                        f"{LABELS[activations]} tensor-core rate")
    return Precision(w, e, activations, kv)


def step_cost(
    gpu: Gpu, model: Model, work: Iterable[Work], tp: int = 1,
    precision: Precision | None = None, layout: str = "tp", all_reduce: str = "auto",
    exchange: str = "all_to_all",
) -> StepCost:
    """One forward step over `work` on a group of `tp` GPUs (sims.physics.pricing states how).

    `precision` defaults to `precision_for(gpu, model)`: the checkpoint's formats;
    `all_reduce` to the fastest implementation the GPU's profile has; `exchange` (an expert-
    parallel step's token exchange) to all-to-all."""
    check_group(gpu, model, tp, layout)
    return pricer(gpu, model, precision or precision_for(gpu, model), tp, layout,
                  all_reduce, exchange).price(work)


def step_series(
    gpu: Gpu, model: Model, fixed: list[Work], new: int, first: int, stride: int, count: int,
    tp: int = 1, precision: Precision | None = None, layout: str = "tp",
    logit_tokens: int | None = None,
) -> list[float]:
    """Times (s) of `count` steps, step k over `fixed` plus Work(new, first + k * stride,
    logit_tokens): a prefill cut into chunks of `new` tokens riding along the same work, as
    step_cost would price each, in a fraction of its time (sims.physics.pricing.Pricer.series)."""
    check_group(gpu, model, tp, layout)
    chosen = precision or precision_for(gpu, model)
    return pricer(gpu, model, chosen, tp, layout).series(fixed, new, first, stride, count,
                                                         logit_tokens)


def decode_step(
    gpu: Gpu, model: Model, batch: int, context_tokens: int, tp: int = 1,
    precision: Precision | None = None, layout: str = "tp",
) -> StepCost:
    """One decode step: `batch` sequences each add one token after `context_tokens`."""
    return step_cost(gpu, model, [Work(1, context_tokens, count=batch)], tp, precision, layout)


def prefill(
    gpu: Gpu, model: Model, tokens: int, batch: int = 1, cached_tokens: int = 0, tp: int = 1,
    precision: Precision | None = None, layout: str = "tp",
) -> StepCost:
    """A prefill of `tokens` prompt tokens for each of `batch` sequences, as one step, on top
    of `cached_tokens` already cached. Each needs logits at its last position only."""
    work = [Work(tokens, cached_tokens, count=batch, logit_tokens=1 if tokens else 0)]
    return step_cost(gpu, model, work, tp, precision, layout)


def memory_fit(
    gpu: Gpu, model: Model, batch: int, context_tokens: int, tp: int = 1,
    precision: Precision | None = None, layout: str = "tp",
    more: Iterable[tuple[int, int]] = (),
) -> MemoryFit:
    """Weights and the KV of `batch` sequences of `context_tokens` each (and of `more`, as
    (sequences, context tokens) pairs), over `tp` GPUs.

    Tensor parallel: weights split evenly, each layer's KV heads split (copied beyond their
    number; a linear layer's state by its value heads), a latent cache held whole by every
    GPU. Expert parallel (attention data-parallel): routed
    experts split (the busiest GPU's share, sims.physics.step.experts_per_gpu), everything
    else held by every GPU, and each GPU holds whole sequences:
    the busiest ceil(sequences / n) of each kind, never a part of one."""
    check_group(gpu, model, tp, layout)
    precision = precision or precision_for(gpu, model)
    groups = ((batch, context_tokens), *more)
    weights = model.weight_bytes(precision)
    if layout == "ep":
        experts = model.expert_weight_bytes(precision)
        held = experts_per_gpu(model.experts, tp) / model.experts
        per_gpu = weights - experts + experts * held
        kv_per_gpu = sum(-(-count // tp) * model.kv_bytes(context, precision.kv)
                         for count, context in groups)
    else:
        per_gpu = weights / tp
        kv_per_gpu = sum(count * model.kv_bytes(context, precision.kv, tp)
                         for count, context in groups)
    return MemoryFit(per_gpu, kv_per_gpu, gpu.hbm_bytes * USABLE_MEMORY_FRACTION, gpu.name)


def smallest_fitting_tp(
    gpu: Gpu, model: Model, batch: int, context_tokens: int, precision: Precision | None = None
) -> int | None:
    """The fewest GPUs (a degree of tp_degrees(gpu) that divides the heads) that hold the
    weights and the KV; None when even the largest cannot."""
    for tp in tp_degrees(gpu):
        if model.heads % tp == 0 and memory_fit(gpu, model, batch, context_tokens, tp,
                                                precision).fits:
            return tp
    return None


def ridge_tokens(gpu: Gpu, model: Model, precision: Precision | None = None) -> int:
    """Tokens per step at which the weight matmuls turn from memory- to compute-bound.

    A matmul over n tokens does 2 FLOPs per weight per token and reads each weight once, so
    its intensity is 2n / (bytes per weight) FLOP per byte; setting that equal to the GPU's
    ridge at the shares of peak its GEMMs reach (its profile), for the matmul's format,
    gives n. Attention, KV and activations, left out here, move the real crossing a little."""
    precision = precision or precision_for(gpu, model)
    fmt = wider(precision.weights, precision.activations)
    return round(gpu.ridge(fmt, efficient=True) * bytes_per_value(precision.weights) / 2)


def allreduce_time(gpu: Gpu, message_bytes: float, tp: int, implementation: str = "auto"
                   ) -> float:
    """One all-reduce of `message_bytes` over `tp` GPUs of `gpu`'s domain (s): NCCL's, an
    engine's custom kernels', or (auto) what engines pick (sims.physics.collectives)."""
    return collectives.allreduce_time(gpu, message_bytes, tp, implementation)


def allreduce_fit(gpu: Gpu, message_bytes: float, tp: int, implementation: str = "auto"
                  ) -> tuple[float, float]:
    """(fixed latency in s, message bytes per second) of the all-reduce that runs for a
    message of `message_bytes` over `tp` GPUs (sims.physics.collectives)."""
    return collectives.allreduce_fit(gpu, message_bytes, tp, implementation)


def all_to_all_time(gpu: Gpu, bytes_per_gpu: float, gpus: int) -> float:
    """One all-to-all in which each of `gpus` GPUs sends `bytes_per_gpu` (s)."""
    return collectives.all_to_all_time(gpu, bytes_per_gpu, gpus)


def p2p_time(gpu: Gpu, message_bytes: float) -> float:
    """A send between two GPUs of one domain, e.g. between pipeline stages (s)."""
    return collectives.p2p_time(gpu, message_bytes)


def scale_out_time(gpu: Gpu, message_bytes: float) -> float:
    """A send to a GPU of another node over its network (s): SCALE_OUT_LATENCY_S plus the
    bytes at the network's full rate per GPU (an upper bound on the rate); ValueError for a
    GPU whose catalogue entry has no network figure."""
    if gpu.scale_out_bytes_per_s is None:
        raise ValueError(f"the catalogue has no network figure for the {gpu.name}")
    return SCALE_OUT_LATENCY_S + message_bytes / gpu.scale_out_bytes_per_s


def host_link_time(gpu: Gpu, message_bytes: float) -> float:
    """Bytes between a GPU and its host's memory (s), at the host link's full rate one way
    (an upper bound on the rate); ValueError for a GPU whose entry has no host link."""
    if gpu.host_link_bytes_per_s is None:
        raise ValueError(f"the catalogue has no host-link figure for the {gpu.name}")
    return message_bytes / gpu.host_link_bytes_per_s
