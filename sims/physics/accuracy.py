"""Which regime a result falls in, and how far the physics was from measurements there.

Each kernel profile carries the calibration's errors per category (content/catalogue/
kernels/, written by scripts/calibration.py --fit): for a kernel class in one number format
(or an all-reduce implementation), and for offline throughput, the median and 90th-percentile
|ours / measured - 1| over the points nothing was fitted to (held out), or over the training
points where no point was held out. A sim says, beside its answer, which classes its step
spends its time in and those errors, so a reader knows how much to trust the figure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sims.physics.hardware import Gpu
from sims.physics.precision import Precision
from sims.physics.pricing import Work, pricer
from sims.physics.profile import Errors
from sims.physics.shapes import Model

# How a class is named in a sentence, and the smallest share of a step worth naming.
NAMES = {"gemm": "GEMMs", "prefill_attention": "prefill attention",
         "decode_attention": "decode attention", "moe": "MoE experts",
         "all_reduce": "all-reduce", "all_to_all": "all-to-all",
         "all_gather": "all-gather and reduce-scatter", "elementwise": "element-wise",
         "throughput": "offline throughput"}
FORMATS = {"bf16": "BF16", "fp8": "FP8", "fp4": "FP4", "w4a16": "with 4-bit weights (W4A16)",
           "w4a8": "with 4-bit weights (W4A8)", "w8a16": "with 8-bit weights (W8A16)",
           "nccl": "NCCL", "custom": "custom kernels", "nvls": "NCCL with NVLink SHARP"}
NAMED_SHARE = 0.1
MOST_NAMED = 3


def _errors(gpu: Gpu, kind: str, variant: str) -> tuple[str, Errors] | None:
    """The held-out errors of a category, else its training errors, with the set's name."""
    accuracy = gpu.kernels.accuracy
    for chosen in ("held_out", "training"):
        found = accuracy.get((kind, variant, chosen))
        if found is not None:
            return chosen, found
    return None


def _measured(gpu: Gpu, kind: str, variant: str) -> str:
    found = _errors(gpu, kind, variant)
    if found is None:
        return "not measured"
    chosen, errors = found
    where = "held-out" if chosen == "held_out" else "training (none held out)"
    return (f"{where} median error {errors.median:.0%}, p90 {errors.p90:.0%} over "
            f"{errors.points} points")


def _whose(gpu: Gpu) -> str:
    profile = gpu.kernels
    if profile.measured_as and profile.measured_as != profile.key:
        return (f"{gpu.name} ({profile.key} kernels, priced with the {profile.measured_as} "
                f"profile's constants: an assumption, not a fit)")
    return f"{gpu.name} ({profile.key} kernels)"


def step_note(gpu: Gpu, classes: Mapping[tuple[str, str], float]) -> str:
    """The kernel classes a step spends at least NAMED_SHARE of its time in (the largest
    at least, MOST_NAMED at most), each with its share and the measured error there."""
    total = sum(classes.values())
    if not total:
        return f"{_whose(gpu)}: no work"
    ranked = sorted(classes.items(), key=lambda item: -item[1])
    named = [item for item in ranked if item[1] >= NAMED_SHARE * total][:MOST_NAMED] or ranked[:1]
    parts = []
    for (kind, variant), seconds in named:
        label = NAMES.get(kind, kind) + (f" {FORMATS.get(variant, variant)}" if variant else "")
        parts.append(f"{seconds / total:.0%} {label}: {_measured(gpu, kind, variant)}")
    return f"{_whose(gpu)}. " + "; ".join(parts)


def step_regime(gpu: Gpu, model: Model, precision: Precision, gpus: int, layout: str,
                work: Iterable[Work], exchange: str = "all_to_all") -> str:
    """step_note for one step over `work`, priced as the sims price it."""
    return step_note(gpu, pricer(gpu, model, precision, gpus, layout,
                                 exchange=exchange).classes(work))


def throughput_note(gpu: Gpu, named: bool = True) -> str:
    """How close whole offline runs of an engine came on this GPU's kernels (after a step
    note, `named=False` leaves out the GPU it has already named)."""
    runs = (f"Offline throughput against TensorRT-LLM's published runs: "
            f"{_measured(gpu, 'throughput', '')}")
    return f"{_whose(gpu)}. {runs}" if named else runs
