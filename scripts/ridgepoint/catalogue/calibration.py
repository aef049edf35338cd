"""The calibration table: each published measurement beside what the shared physics says.

The points are content (content/catalogue/calibration/<set>.yaml, one set per publication);
the physics is the sims' own (sims.pricing, sims.collectives), run here on the GPUs and
models of the same catalogue. A row's ratio is ours over measured, as times (a measured
rate is compared as the time it implies for the point's FLOPs); a banded row is within its
band when it is off by at most the band. tests/sims/test_calibration.py holds every banded
row to its band, and the page "How close is this to a real GPU?" shows them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ridgepoint.catalogue.units import sims_data
from ridgepoint.content.catalogue_records import CalibrationCase, CalibrationPoint, CalibrationSet
from ridgepoint.content.model import Site
from ridgepoint.sims.simcode import SimCode

if TYPE_CHECKING:
    from sims.hardware import Gpu
    from sims.shapes import Model


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

    @classmethod
    def of(cls, code: SimCode) -> _Physics:
        return cls(*(code.module(name) for name in ("physics", "pricing", "precision")))


def table(site: Site, code: SimCode) -> list[Row]:
    """Every calibration point of the site, priced by `code`'s physics: sets by key, points
    in file order."""
    gpu_data, model_data = sims_data(site)
    sims = _Physics.of(code)
    with code.active():  # an import inside the physics finds the same copy
        gpus = code.module("hardware").build_gpus(gpu_data)
        models = code.module("shapes").build_models(model_data)
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
    if kind == "attention":
        cost = sims.pricing.attention_cost(gpu, case.heads, case.heads, case.head_dim,
                                           case.tokens, 0, _precision(sims, case))
        implied = cost.flops / (point.measured_tflops * 1e12) if measured is None else measured
        return Row(point, calibration, implied, cost.time_s)
    assert measured is not None  # the schema's checks ask for a time for every other kind
    if kind == "linear":
        cost = sims.pricing.matmul_cost(gpu, case.tokens, case.k, case.n, _precision(sims, case))
        plain = max(cost.compute_s, cost.memory_s) + sims.pricing.KERNEL_OVERHEAD_S
        return Row(point, calibration, measured, cost.time_s, plain)
    return Row(point, calibration, measured, _priced(sims, kind, case, gpu, models))


def _priced(sims: _Physics, kind: str, case: CalibrationCase, gpu: Gpu,
            models: dict[str, Model]) -> float:
    """Our time for a point of a kind made of whole operators, steps or requests."""
    physics, pricing = sims.physics, sims.pricing
    if kind == "all_reduce":
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
