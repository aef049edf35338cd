"""The calibration table: each published measurement beside what the shared physics says.

The points are content (content/catalogue/calibration/<set>.yaml, one set per publication);
the physics is the sims' own (sims/physics/: pricing, collectives), run here on the GPUs and
models of the same catalogue. A row's ratio is ours over measured, as times (a measured
rate is compared as the time it implies for the point's FLOPs); a banded row is within its
band when it is off by at most the band. tests/sims/test_calibration.py holds every banded
row to its band, and the page "How close is this to a real GPU?" shows them all. A point in
a set (training or held out) has no band: it counts towards its category's errors
(`summary`).

A kernel measured alone with no catalogue model behind it (an attention kernel with KV
heads or a batch, a decode attention kernel, an MoE layer) is priced by the sims' own
Pricer on a one-layer model of that shape, reading only that operator's time: what a step
of the sims would charge for it.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ridgepoint.catalogue.units import sims_data
from ridgepoint.content.catalogue_records import CalibrationCase, CalibrationPoint, CalibrationSet
from ridgepoint.content.model import Site
from ridgepoint.sims.simcode import SimCode

if TYPE_CHECKING:
    from sims.physics.hardware import Gpu
    from sims.physics.shapes import Model


@dataclass(frozen=True)
class Row:
    """One point of the table, priced."""

    point: CalibrationPoint
    publication: CalibrationSet  # the set it belongs to: the source and who measured it
    measured_s: float
    ours_s: float
    plain_s: float | None = None  # a linear layer priced as max(compute, memory) instead

    @property
    def ratio(self) -> float:
        return self.ours_s / self.measured_s

    @property
    def plain_ratio(self) -> float | None:
        return None if self.plain_s is None else self.plain_s / self.measured_s

    @property
    def within(self) -> bool | None:
        """Whether the ratio is within the band; None for a point held to none."""
        band = self.point.band
        return None if band is None else abs(self.ratio - 1) <= band


@dataclass(frozen=True)
class _Physics:
    """The sims' modules a point is priced with, all from one SimCode: the bytes the build
    read, so a save under `make serve` shows on this page as it does in the sims."""

    physics: ModuleType
    pricing: ModuleType
    precision: ModuleType
    kernels: ModuleType
    shapes: ModuleType

    @classmethod
    def of(cls, code: SimCode) -> _Physics:
        names = ("physics", "physics.pricing", "physics.precision", "physics.kernels",
                 "physics.shapes")
        return cls(*(code.module(name) for name in names))


def table(site: Site, code: SimCode) -> list[Row]:
    """Every calibration point of the site, priced by `code`'s physics: sets by key, points
    in file order."""
    gpu_data, model_data = sims_data(site)
    sims = _Physics.of(code)
    with code.active():  # an import inside the physics finds the same copy
        gpus = code.module("physics.hardware").build_gpus(gpu_data)
        models = code.module("physics.shapes").build_models(model_data)
        return [_row(sims, point, calibration, gpus[point.gpu], models)
                for calibration in site.calibration.values() for point in calibration.points]


def _precision(sims: _Physics, case: CalibrationCase) -> Any:
    weights = case.weights or "bf16"
    return sims.precision.Precision(weights, weights, case.activations or "bf16",
                                    case.kv or "bf16")


def _row(sims: _Physics, point: CalibrationPoint, calibration: CalibrationSet, gpu: Gpu,
         models: dict[str, Model]) -> Row:
    case, kind = point.case, point.kind
    measured = point.measured_ms / 1000 if point.measured_ms is not None else None
    if kind == "attention" and case.batch in (None, 1):
        cost = sims.kernels.attention_cost(gpu, case.heads, case.kv_heads or case.heads,
                                           case.head_dim, case.tokens, 0,
                                           _precision(sims, case))
        implied = cost.flops / (point.measured_tflops * 1e12) if measured is None else measured
        return Row(point, calibration, implied, cost.time_s)
    assert measured is not None  # the schema's checks ask for a time for every other kind
    if kind == "linear":
        cost = sims.kernels.matmul_cost(gpu, case.tokens, case.k, case.n, _precision(sims, case))
        plain = max(cost.compute_s, cost.memory_s) + sims.pricing.KERNEL_OVERHEAD_S
        return Row(point, calibration, measured, cost.time_s, plain)
    if kind in ("attention", "attention_decode", "moe"):
        return Row(point, calibration, measured, _kernel(sims, kind, case, gpu))
    return Row(point, calibration, measured, _priced(sims, kind, case, gpu, models))


def _kernel(sims: _Physics, kind: str, case: CalibrationCase, gpu: Gpu) -> float:
    """Our time for one attention kernel over a batch, or one GPU's share of an MoE layer:
    that operator's part of a step of a one-layer model of the point's shape."""
    pricing, precision = sims.pricing, _precision(sims, case)
    if kind == "moe":
        precision = precision._replace(weights="bf16", experts=case.experts_format)
        layer = sims.shapes.Model(
            key="calibration-moe", name="an MoE layer", hidden=case.hidden, heads=1,
            kv_heads=1, head_dim=1, vocab=1, kinds=(sims.shapes.LayerKind(0, True),),
            experts=case.experts, experts_per_token=case.experts_per_token,
            expert_ffn=case.expert_ffn, has_embedding=False, has_head=False)
        parts = pricing.Pricer(gpu, layer, precision, case.tp * case.ep, "tp").parts(
            [pricing.Work(case.tokens, 0, logit_tokens=0)])
        # The measured layer is handed its router's logits: its router matmul, which the
        # Pricer counts among the experts, is taken out again, priced as the Pricer prices it.
        router = sims.kernels.matmul_cost(gpu, case.tokens, case.hidden, case.experts, precision)
        return parts[pricing.EXPERTS] - router.time_s
    kv_heads = case.kv_heads or case.heads
    layer = sims.shapes.Model(
        key="calibration-attention", name="an attention layer", hidden=case.heads * case.head_dim,
        heads=case.heads, kv_heads=kv_heads, head_dim=case.head_dim, vocab=1,
        kinds=(sims.shapes.LayerKind(0, False),), has_embedding=False, has_head=False)
    work = (pricing.Work(1, case.context, count=case.batch) if kind == "attention_decode" else
            pricing.Work(case.tokens, 0, count=case.batch, logit_tokens=0))
    return pricing.Pricer(gpu, layer, precision, 1, "tp").parts([work])[pricing.ATTENTION]


def _priced(sims: _Physics, kind: str, case: CalibrationCase, gpu: Gpu,
            models: dict[str, Model]) -> float:
    """Our time for a point of a kind made of whole operators, steps or requests."""
    physics, pricing = sims.physics, sims.pricing
    if kind == "all_reduce":  # one fit for every implementation: the physics has no other
        return physics.allreduce_time(gpu, case.bytes, case.gpus)
    model = models[case.model]
    precision = physics.precision_for(gpu, model, case.weights, case.activations,
                                      case.kv or "bf16")
    if kind == "layer":
        parts = pricing.pricer(gpu, model, precision, case.tp, "tp").parts(
            [pricing.Work(case.tokens, 0, logit_tokens=0)])
        return sum(seconds for part, seconds in parts.items()
                   if part not in (pricing.ATTENTION, pricing.EDGES, "collectives")) / model.layers
    decode_step = physics.decode_step
    if kind == "decode":
        return decode_step(gpu, model, case.batch, case.context, case.tp, precision).time_s
    first = physics.prefill(gpu, model, case.tokens, batch=case.batch, tp=case.tp,
                            precision=precision).time_s
    if kind == "prefill":
        return first
    return first + sum(  # a request: the prefill, then a step for each further token
        decode_step(gpu, model, case.batch, case.tokens + step, case.tp, precision).time_s
        for step in range(case.output - 1))


# -- the errors per category, for points in a set ----------------------------------------

LABELS = {"linear": "GEMM", "attention": "Prefill attention",
          "attention_decode": "Decode attention", "moe": "MoE layer",
          "all_reduce": "All-reduce"}


def category(row: Row) -> str:
    """The category a point's error counts towards: its kind, with the number format for a
    GEMM, the implementation for an all-reduce, and the GPU."""
    point, case = row.point, row.point.case
    label = LABELS.get(point.kind, point.kind)
    if point.kind == "linear":
        label += f" {(case.weights or 'bf16').upper()}"
    elif point.kind == "all_reduce":
        label += f", {case.implementation or 'nccl'}"
    return f"{label}, {point.gpu}"


@dataclass(frozen=True)
class Errors:
    """The rows of one category and set: how many, and |ours / measured - 1| at the median
    and the 90th percentile, and the median ratio (below 1: ours too fast)."""

    count: int
    median: float
    p90: float
    median_ratio: float

    @classmethod
    def of(cls, rows: list[Row]) -> Errors:
        errors = [abs(row.ratio - 1) for row in rows]
        p90 = (statistics.quantiles(errors, n=10, method="inclusive")[-1] if len(errors) > 1
               else errors[0])
        return cls(len(rows), statistics.median(errors), p90,
                   statistics.median(row.ratio for row in rows))


def summary(rows: Iterable[Row]) -> dict[tuple[str, str], Errors]:
    """Errors by (category, set) over the rows in a set, categories in first-seen order."""
    grouped: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        if row.point.set is not None:
            grouped.setdefault((category(row), row.point.set), []).append(row)
    return {key: Errors.of(group) for key, group in grouped.items()}
