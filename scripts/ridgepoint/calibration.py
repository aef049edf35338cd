"""The calibration table: each published measurement beside what the shared physics says.

The points are content (content/catalogue/calibration.yaml, loaded with the catalogue); the
physics is the sims' own (sims.pricing, sims.collectives), run here on the GPUs and models
of the same catalogue. A row's ratio is ours over measured, as times (a measured rate is
compared as the time it implies for the point's FLOPs); it is within its band when it is
off by at most the band. tests/sims/test_calibration.py holds every row to its band, and
the page "How close is this to a real GPU?" shows the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ridgepoint.catalogue_records import Catalogue, Reference
from sims.hardware import Gpu, build_gpus
from sims.physics import allreduce_time, decode_step, precision_for
from sims.precision import Precision
from sims.pricing import (
    ATTENTION,
    EDGES,
    KERNEL_OVERHEAD_S,
    Work,
    attention_cost,
    matmul_cost,
    pricer,
)
from sims.shapes import Model, build_models


@dataclass(frozen=True)
class Row:
    """One point of the table, priced."""

    reference: Reference
    measured_s: float
    ours_s: float
    plain_s: float | None = None  # a linear layer priced as max(compute, memory) instead

    @property
    def plain_ratio(self) -> float | None:
        return None if self.plain_s is None else self.plain_s / self.measured_s

    @property
    def ratio(self) -> float:
        return self.ours_s / self.measured_s

    @property
    def within(self) -> bool:
        return abs(self.ratio - 1) <= self.reference.band


def table(catalogue: Catalogue) -> list[Row]:
    """Every calibration point of the catalogue, priced, in the file's order."""
    gpus = build_gpus({key: entry.sims for key, entry in catalogue.gpus.items()})
    models = build_models({key: entry.sims for key, entry in catalogue.models.items()})
    return [_row(reference, gpus[reference.hardware], models) for reference in
            catalogue.references]


def _precision(case: dict[str, Any]) -> Precision:
    return Precision(case.get("weights", "bf16"), case.get("weights", "bf16"),
                     case.get("activations", "bf16"), case.get("kv", "bf16"))


def _row(reference: Reference, gpu: Gpu, models: dict[str, Model]) -> Row:
    case, kind = reference.case, reference.kind
    if kind == "attention":
        cost = attention_cost(gpu, case["heads"], case["heads"], case["head_dim"],
                              case["tokens"], 0, _precision(case))
        measured = (reference.measured_s if reference.measured_s is not None
                    else cost.flops / reference.measured_flops_per_s)
        return Row(reference, measured, cost.time_s)
    if kind == "linear":
        cost = matmul_cost(gpu, case["tokens"], case["k"], case["n"], _precision(case))
        plain = max(cost.compute_s, cost.memory_s) + KERNEL_OVERHEAD_S
        return Row(reference, reference.measured_s, cost.time_s, plain)
    if kind == "all_reduce":
        ours = allreduce_time(gpu, case["bytes"], case["gpus"])
    elif kind == "layer":
        model = models[case["model"]]
        parts = pricer(gpu, model, precision_for(gpu, model), case["tp"], "tp").parts(
            [Work(case["tokens"], 0, logit_tokens=0)])
        ours = sum(seconds for part, seconds in parts.items()
                   if part not in (ATTENTION, EDGES, "collectives")) / model.layers
    else:  # decode
        ours = decode_step(gpu, models[case["model"]], case["batch"], case["context"],
                           case["tp"]).time_s
    return Row(reference, reference.measured_s, ours)
