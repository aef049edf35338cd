"""A kernel profile as YAML: the fitted constants with the training points they come from,
and the rest as the profile's file gives them (with their stated sources)."""

from __future__ import annotations

from typing import Any

from calibrate.accuracy import SETS, CategoryErrors
from calibrate.fit import Fitted
from ridgepoint.content.profile_records import KernelProfile

HEADER = ("# yaml-language-server: $schema=../../../scripts/ridgepoint/schemas/"
          "kernels.schema.json\n"
          "# Written by scripts/calibration.py --fit (make fit) from the calibration's training\n"
          "# points; a class without any keeps the constants and source given here.\n")
HEADER_LIKE = ("# yaml-language-server: $schema=../../../scripts/ridgepoint/schemas/"
               "kernels.schema.json\n"
               "# Its accuracy is written by scripts/calibration.py --fit (make fit); the rest "
               "is hand-written.\n")
FORMATS = ("bf16", "fp8", "fp4")
MOE_KERNELS = ("w4a16", "w4a8", "w8a16")  # weight-only MoE kernels, after the formats
ACCURACY_SOURCE = ("scripts/calibration.py --fit: the constants above against the calibration "
                   "points of this profile's GPUs (content/catalogue/calibration/); |ours / "
                   "measured - 1| as fractions")
UNITS = {"fixed_s": ("fixed_us", 1e6), "k_step_s": ("k_step_ns", 1e9),
         "per_sequence_head_s": ("per_sequence_head_ns", 1e9),
         "per_sequence_s": ("per_sequence_ns", 1e9), "per_row_s": ("per_row_ns", 1e9)}


def _number(value: float) -> str:
    return f"{value:.4g}"


def _source(found: Fitted) -> str:
    return (f"fitted by scripts/calibration.py to {found.points} training points of "
            f"{', '.join(found.files)}")


def _fields(fit: Any) -> str:
    parts = []
    for name, value in fit._asdict().items():
        written, factor = UNITS.get(name, (name, 1))
        parts.append(f"{written}: {_number(value * factor)}")
    return ", ".join(parts)


def _record_fields(record: Any) -> str:
    return ", ".join(f"{name}: {_number(value)}" for name, value in vars(record).items()
                     if name != "source")


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _errors(found: CategoryErrors) -> str:
    variant = f", variant: {found.variant}" if found.variant else ""
    sets = "".join(
        f", {name}: {{points: {errors.count}, median: {_number(errors.median)}, "
        f"p90: {_number(errors.p90)}}}"
        for name in SETS if (errors := found.errors.get(name)) is not None)
    return f"  - {{kind: {found.kind}{variant}{sets}}}"


def _accuracy(accuracy: list[CategoryErrors]) -> list[str]:
    if not accuracy:
        return []
    return ["accuracy:", f"  source: {_quote(ACCURACY_SOURCE)}", "  categories:",
            *(_errors(found) for found in accuracy)]


def render_like(record: KernelProfile, accuracy: list[CategoryErrors]) -> str:
    """A profile like another: its name, whose constants and why, and the errors its own
    GPUs' points show under them."""
    assert record.like and record.assumption
    lines = [f"name: {_quote(record.name)}", f"like: {record.like}",
             f"assumption: {_quote(record.assumption)}", *_accuracy(accuracy)]
    return HEADER_LIKE + "\n".join(lines) + "\n"


def render(record: KernelProfile, fitted: dict[tuple[str, str], Fitted],
           accuracy: list[CategoryErrors]) -> str:
    assert record.overlap_exponent and record.elementwise and record.all_reduce
    lines = [f"name: {_quote(record.name)}",
             f"overlap_exponent: {{value: {_number(record.overlap_exponent.value)}, "
             f"source: {_quote(record.overlap_exponent.source)}}}"]
    for cls in ("gemm", "prefill_attention", "decode_attention", "moe"):
        lines.append(f"{cls}:")
        written = getattr(record, cls)
        for fmt in (*FORMATS, *MOE_KERNELS) if cls == "moe" else FORMATS:
            found = fitted.get((cls, fmt))
            if found is not None:
                lines.append(f"  {fmt}: {{{_fields(found.fit)}, source: "
                             f"{_quote(_source(found))}}}")
            elif getattr(written, fmt) is not None:
                entry = getattr(written, fmt)
                lines.append(f"  {fmt}: {{{_record_fields(entry)}, source: "
                             f"{_quote(entry.source)}}}")
    lines.append(f"elementwise: {{{_record_fields(record.elementwise)}, source: "
                 f"{_quote(record.elementwise.source)}}}")
    lines.append("all_reduce:")
    for name in ("nccl", "custom"):
        found, entry = fitted.get(("all_reduce", name)), getattr(record.all_reduce, name)
        if found is not None:
            algorithms = [(a.traffic, sorted((n, s * 1e6) for n, s in a.latency_s.items()),
                           a.bus_efficiency) for a in found.fit.algorithms]
            source = _source(found)
        elif entry is not None:
            algorithms = [(a.traffic, [(p.gpus, p.us) for p in a.latency], a.bus_efficiency)
                          for a in entry.algorithms]
            source = entry.source
        else:
            continue
        lines.append(f"  {name}:")
        lines.append("    algorithms:")
        for traffic, latency, share in algorithms:
            points = ", ".join(f"{{gpus: {n}, us: {_number(us)}}}" for n, us in latency)
            lines.append(f"    - {{traffic: {traffic}, latency: [{points}], "
                         f"bus_efficiency: {_number(share)}}}")
        lines.append(f"    source: {_quote(source)}")
    lines += _accuracy(accuracy)
    return HEADER + "\n".join(lines) + "\n"
