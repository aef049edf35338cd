"""Which category a calibration point counts towards: the kernel profile of its GPU, the
kernel class its kind measures, and the format (or all-reduce implementation) of that class.

The errors the "How close?" page reports, the fit (scripts/calibrate/) fits and the sims
quote for their results are all per category, so they are worked out here, once.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ridgepoint.content.calibration_records import CalibrationPoint
from ridgepoint.content.model import Site

# A kind of point, and the profile class whose constants price it; kinds not listed are
# whole steps and runs, priced by every class together and fitted by none.
CLASSES = {"linear": "gemm", "attention": "prefill_attention",
           "attention_decode": "decode_attention", "moe": "moe", "all_reduce": "all_reduce"}
LABELS = {"gemm": "GEMM", "prefill_attention": "Prefill attention",
          "decode_attention": "Decode attention", "moe": "MoE layer",
          "all_reduce": "All-reduce", "throughput": "Offline throughput",
          "layer": "Layer", "decode": "Decode step", "prefill": "Prefill",
          "request": "Request", "ttft": "Served TTFT", "tpot": "Served TPOT",
          "itl": "Served ITL", "serving_throughput": "Served throughput"}
# A served run's figures, by engine (issue 39): their categories name the engine.
SERVED = ("ttft", "tpot", "itl", "serving_throughput")


# The targets (issue 38) on the held-out points: the largest median and 90th-percentile
# |ours / measured - 1| of each kernel class, and of offline throughput (a median only). They
# hold a category whose constants were fitted to points of its own kind, that is one with
# training points; a category without any (a GPU priced with another generation's constants,
# an algorithm forced where the fit never saw it run) is shown with its errors, not held.
KERNEL_CLASSES = ("gemm", "prefill_attention", "decode_attention", "moe", "all_reduce")
# Issue 39's end-to-end targets on served runs' held-out points, per engine and generation.
SERVED_TARGETS: dict[str, tuple[float, float | None]] = {
    "ttft": (0.20, None), "tpot": (0.12, 0.30), "itl": (0.12, 0.30),
    "serving_throughput": (0.12, None)}
TARGETS: dict[str, tuple[float, float | None]] = {
    **{kind: (0.10, 0.25) for kind in KERNEL_CLASSES}, "throughput": (0.12, None),
    **SERVED_TARGETS}
# The issue names its classes: GEMMs per format and generation, all-reduce per
# implementation, and the attention kernels and MoE layers per generation, every format (or
# weight-only kernel) together. The categories shown are finer; the targets hold these.
POOLED = ("prefill_attention", "decode_attention", "moe")


class Category(NamedTuple):
    profile: str  # the kernel profile with its own constants
    kind: str  # a profile class (gemm, ...) or a kind of whole step or run
    variant: str  # the format, or the all-reduce implementation; "" for whole runs

    @property
    def label(self) -> str:
        plain = self.kind == "all_reduce" or self.kind in SERVED
        variant = f", {self.variant if plain else self.variant.upper()}"
        return f"{LABELS[self.kind]}{variant if self.variant else ''}, {self.profile}"


def held_as(category: Category) -> Category:
    """The class the targets hold a category's points in: itself, or its kind on its
    profile with every format together."""
    return category._replace(variant="") if category.kind in POOLED else category


def profile_of(site: Site, gpu: str) -> str:
    """The GPU's own profile. A profile `like` another prices with that one's constants but
    keeps its points apart: they measure how far the borrowed constants carry, and never
    train them."""
    return site.gpus[gpu].kernels


def category(site: Site, point: CalibrationPoint, formats: Any) -> Category:
    """The point's category; `formats` is the sims' sims.physics.precision (its rules for
    the format two operands are computed in and the kind of MoE kernel), from the copy of
    the sims in use."""
    case, kind = point.case, point.kind
    profile = profile_of(site, point.gpu)
    cls = CLASSES.get(kind)
    if cls == "gemm":
        weights = case.weights or "bf16"
        return Category(profile, cls, formats.wider(weights, case.activations or weights))
    if cls == "prefill_attention":
        return Category(profile, cls, formats.wider(case.activations or case.kv or "bf16",
                                                    case.kv or "bf16"))
    if cls == "decode_attention":
        return Category(profile, cls, case.kv or "bf16")
    if cls == "moe":
        return Category(profile, cls, formats.moe_variant(case.experts_format or "bf16",
                                                          case.activations or "bf16"))
    if cls == "all_reduce":
        return Category(profile, cls, case.implementation or "nccl")
    if kind in SERVED:
        return Category(profile, kind, case.engine or "")
    return Category(profile, kind, "")
