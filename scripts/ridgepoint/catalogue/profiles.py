"""Kernel and engine profiles as the sims read them: base units (seconds); a kernel profile
takes another's constants where it is `like` it, in the shape
sims.physics.profile.build_profiles expects; an engine's overheads for sims.serving.engines."""

from __future__ import annotations

from typing import Any

from ridgepoint.content.model import Site
from ridgepoint.content.profile_records import Engine, KernelProfile

_FORMATS = ("bf16", "fp8", "fp4")
# Each class's keys: its compute formats, and for MoE layers the weight-only kernels too.
_VARIANTS = {"gemm": _FORMATS, "prefill_attention": _FORMATS, "decode_attention": _FORMATS,
             "moe": (*_FORMATS, "w4a16", "w4a8", "w8a16")}
# Each field of a fit, and its factor to the sims' units: the files write times in
# microseconds and nanoseconds, the sims take seconds.
_FIELDS = {
    "gemm": {"compute_efficiency": 1, "memory_efficiency": 1, "fixed_us": 1e-6,
             "k_step_ns": 1e-9},
    "prefill_attention": {"compute_efficiency": 1, "memory_passes": 1, "fixed_us": 1e-6,
                          "per_sequence_head_ns": 1e-9},
    "decode_attention": {"memory_efficiency": 1, "unit_share": 1, "fixed_us": 1e-6,
                         "per_sequence_ns": 1e-9},
    "moe": {"memory_efficiency": 1, "fixed_us": 1e-6, "per_row_ns": 1e-9, "tile_rows": 1},
    "elementwise": {"memory_efficiency": 1, "fixed_us": 1e-6},
}


def _seconds(fit: Any, fields: dict[str, float]) -> dict[str, float]:
    """A fit's constants under the sims' names (`fixed_us` as `fixed_s`, ...)."""
    renamed = {}
    for name, factor in fields.items():
        target = name.replace("_us", "_s").replace("_ns", "_s")
        renamed[target] = getattr(fit, name) * factor
    return renamed


def _own(profile: KernelProfile) -> dict[str, Any]:
    assert profile.overlap_exponent and profile.elementwise and profile.all_reduce
    sims: dict[str, Any] = {"overlap_exponent": profile.overlap_exponent.value}
    for section in ("gemm", "prefill_attention", "decode_attention", "moe"):
        fits = getattr(profile, section)
        sims[section] = {fmt: _seconds(getattr(fits, fmt), _FIELDS[section])
                         for fmt in _VARIANTS[section] if getattr(fits, fmt) is not None}
    sims["elementwise"] = _seconds(profile.elementwise, _FIELDS["elementwise"])
    sims["all_reduce"] = {
        name: [{"traffic": algorithm.traffic,
                "latency_s": {point.gpus: point.us * 1e-6
                              for point in sorted(algorithm.latency, key=lambda p: p.gpus)},
                "bus_efficiency": algorithm.bus_efficiency}
               for algorithm in fit.algorithms]
        for name, fit in (("nccl", profile.all_reduce.nccl), ("custom", profile.all_reduce.custom))
        if fit is not None}
    return sims


def _accuracy(profile: KernelProfile) -> list[dict[str, Any]]:
    """The profile's errors per category, as plain lists: [kind, variant or "", set, points,
    median, p90] for each set of each category."""
    if profile.accuracy is None:
        return []
    return [[category.kind, category.variant or "", name, errors.points, errors.median,
             errors.p90]
            for category in profile.accuracy.categories
            for name in ("training", "held_out")
            if (errors := getattr(category, name)) is not None]


def kernels_sims(site: Site) -> dict[str, Any]:
    """KERNELS for sims/physics/catalogue_data.py: every profile by key, keys sorted. A
    profile like another takes its constants and says whose they are (`measured_as`); the
    errors are always its own GPUs' (none where nothing of them was measured)."""
    data = {}
    for key in sorted(site.kernels):
        profile = site.kernels[key]
        source_key = profile.like or key
        data[key] = {"name": profile.name, **_own(site.kernels[source_key]),
                     "measured_as": source_key, "accuracy": _accuracy(profile)}
    return data


# -- engine profiles (content/catalogue/engines/): ENGINES, overheads in seconds ----------


def engine_sims(engine: Engine) -> dict[str, Any]:
    """One engine as the sims' data module holds it."""
    return {
        "name": engine.name,
        "admission": engine.admission.value,
        "token_budget": engine.token_budget.value,
        "max_batch": engine.max_batch.value,
        "graph_max_batch": engine.cuda_graphs.value,
        "all_reduce": engine.all_reduce.value,
        "expert_exchange": engine.expert_exchange.value,
        "graph_overhead_s": engine.step_overhead.graph_us * 1e-6,
        "eager_overhead_s": engine.step_overhead.eager_us * 1e-6,
        "request_overhead_s": engine.request_overhead.ms * 1e-3,
        "accuracy": {item.metric: {name: [errors.points, errors.median, errors.p90]
                                   for name, errors in (("training", item.training),
                                                        ("held_out", item.held_out))
                                   if errors is not None}
                     for item in (engine.accuracy.metrics if engine.accuracy else ())},
    }


def engines_sims(site: Site) -> dict[str, Any]:
    """ENGINES, keys sorted."""
    return {key: engine_sims(site.engines[key]) for key in sorted(site.engines)}
