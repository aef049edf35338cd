"""The set-ups a plan searches: every way to lay one model out that the physics can price.

A set-up is a GPU type, GPUs per replica (1, 2, 4, 8 within the GPU's scale-up domain, and
the domain itself), tensor or expert parallelism (experts only for a mixture of experts,
with attention data-parallel), the weights' and KV cache's formats among those the GPU
computes in (plus the checkpoint's own where it mixes formats, as gpt-oss's MXFP4 experts
do), the batch limit and token budget (the engine's, and smaller ones: a smaller batch
limit trades throughput for time per token, a smaller budget trades first-token time for
smaller stalls), and aggregated or disaggregated serving (a prefill pool and a decode pool
of the same replicas; the ratio between them is worked out for the load, not searched).
"""

from __future__ import annotations

from typing import NamedTuple

from sims.physics import PRECISIONS, TP_DEGREES, Gpu, Model, Precision, precision_for
from sims.serving.engines import Engine

# Batch limits (requests per attention rank) tried beside the engine's own, and token
# budgets (tokens per step per attention rank) beside the engine's.
BATCH_LIMITS = (256, 64, 16)
TOKEN_BUDGETS = (2048,)


class Setup(NamedTuple):
    """One way to serve the model (knobs per attention rank, as the engines count them)."""

    gpu: str
    gpus: int  # per replica (per instance, for a disaggregated pool)
    parallel: str  # tp | ep
    weights: str  # bf16 | fp8 | fp4 | native
    kv: str
    max_batch: int
    token_budget: int
    disaggregated: bool

    @property
    def physics(self) -> tuple[str, int, str, str, str]:
        """What its steps' prices depend on (the knobs and the pooling do not)."""
        return (self.gpu, self.gpus, self.parallel, self.weights, self.kv)

    def describe(self) -> dict[str, object]:
        """The set-up as plain JSON fields."""
        return {"gpu": self.gpu, "gpus_per_replica": self.gpus, "parallel": self.parallel,
                "weights": self.weights, "kv": self.kv, "max_batch": self.max_batch,
                "token_budget": self.token_budget, "disaggregated": self.disaggregated}


def group_sizes(gpu: Gpu) -> tuple[int, ...]:
    """GPUs per replica: TP_DEGREES within the domain, and the whole domain."""
    sizes = {n for n in TP_DEGREES if n <= gpu.scale_up_gpus} | {gpu.scale_up_gpus}
    return tuple(sorted(sizes))


def layouts(model: Model) -> tuple[str, ...]:
    return ("tp", "ep") if model.experts else ("tp",)


def weight_formats(gpu: Gpu, model: Model) -> tuple[str, ...]:
    """Formats the GPU computes in, and the checkpoint's own where it is none of them."""
    computed = tuple(p for p in PRECISIONS if p in gpu.dense_flops)
    native = precision_for(gpu, model, "native")
    plain = {precision_for(gpu, model, p) for p in computed}
    return (*computed, "native") if native not in plain else computed


def kv_formats(gpu: Gpu) -> tuple[str, ...]:
    return tuple(p for p in PRECISIONS if p in gpu.dense_flops)


def precision_of(gpu: Gpu, model: Model, setup: Setup) -> Precision:
    return precision_for(gpu, model, setup.weights, None, setup.kv)


def knobs(engine: Engine) -> tuple[tuple[int, int], ...]:
    """(batch limit, token budget) pairs: the engine's and the smaller ones."""
    batches = (engine.max_batch, *(b for b in BATCH_LIMITS if b < engine.max_batch))
    budgets = (engine.token_budget, *(t for t in TOKEN_BUDGETS if t < engine.token_budget))
    return tuple((b, t) for b in batches for t in budgets)


def setups(gpus: list[Gpu], model: Model, engine: Engine) -> list[Setup]:
    """Every set-up of the search, GPU by GPU."""
    found = []
    pairs = knobs(engine)
    decode_batches = sorted({b for b, _ in pairs}, reverse=True)
    for gpu in gpus:
        for size in group_sizes(gpu):
            for layout in layouts(model):
                for weights in weight_formats(gpu, model):
                    for kv in kv_formats(gpu):
                        found += [Setup(gpu.key, size, layout, weights, kv, b, t, False)
                                  for b, t in pairs]
                        found += [Setup(gpu.key, size, layout, weights, kv, b,
                                        engine.token_budget, True) for b in decode_batches]
    return found
