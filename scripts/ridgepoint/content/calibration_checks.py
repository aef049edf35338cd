"""What a schema cannot say about a calibration set: each point's GPU and model are in the
catalogue, its figure is the one its kind is measured by, its inputs are the ones its kind
needs (and an implementation only of its kind), its key is unique across the sets, it has a
band, the reason it has none or its set, and a file with points in sets says how they were
split (`split`). A catalogue kind's rule (ridgepoint.content.kinds,
ridgepoint.content.checks.Check); like every rule it reads the raw data defensively, since a
file may also have failed its schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ridgepoint.base.errors import ContentError
from ridgepoint.content.checks import CrossFile, Documents
from ridgepoint.content.yamldoc import Document

# The inputs the physics prices each kind of point with.
CASE_FIELDS = {
    "linear": ("tokens", "k", "n"),
    "attention": ("heads", "head_dim", "tokens"),
    "attention_decode": ("heads", "kv_heads", "head_dim", "batch", "context"),
    "moe": ("tokens", "hidden", "expert_ffn", "experts", "experts_per_token", "ep", "tp",
            "experts_format"),
    "all_reduce": ("gpus", "bytes"),
    "layer": ("model", "tokens", "tp"),
    "decode": ("model", "tp", "batch", "context"),
    "prefill": ("model", "tp", "batch", "tokens"),
    "request": ("model", "tp", "batch", "tokens", "output"),
    "throughput": ("model", "tp", "isl", "osl"),
    **{kind: ("model", "tp", "isl", "osl", "engine", "statistic")
       for kind in ("ttft", "tpot", "itl")},
    "serving_throughput": ("model", "tp", "isl", "osl", "engine"),
}
# Kinds measured as an output rate per GPU, not a time; and the served runs' kinds, whose load
# is a closed loop (concurrency) or an open one (rate).
RATE_KINDS = ("throughput", "serving_throughput")
SERVED_KINDS = ("ttft", "tpot", "itl", "serving_throughput")
# The implementations a point of each kind may name (case.implementation).
IMPLEMENTATIONS = {"all_reduce": ("nccl", "custom", "nvls"), "attention": ("fmha",)}


def calibration(documents: Documents, other: CrossFile) -> Iterator[ContentError]:
    """Point keys are unique across the sets; each point names a catalogue GPU (and model),
    gives one measured figure, a band, why it has none or its set, and the inputs its kind
    needs; a file with points in sets says how they were split."""
    seen: dict[str, str] = {}
    for document in documents.values():
        data = document.data if isinstance(document.data, dict) else {}
        points = data.get("points")
        points = points if isinstance(points, list) else []
        for index, point in enumerate(points):
            if isinstance(point, dict):
                yield from _point(document, ["points", index], point, seen, other)
        if "split" not in data and any(isinstance(p, dict) and "set" in p for p in points):
            yield document.error(["split"], "missing: the points with a set need it",
                                 "how the points were split into training and held-out sets")


def _one_of(document: Document, place: list[Any], point: dict[str, Any], fields: tuple[str, str],
            expected: str) -> Iterator[ContentError]:
    given = [field for field in fields if field in point]
    if len(given) != 1:
        message = "missing" if not given else f"given with {fields[1]}"
        yield document.error([*place, fields[0]], message, expected, at=place)


def _measured(document: Document, place: list[Any], point: dict[str, Any]
              ) -> Iterator[ContentError]:
    """The figure a point's kind is measured by, and no other: a throughput run's output
    rate; a kernel's or a step's time, or for an attention kernel its rate of computation
    (the only kind whose FLOPs the table can count)."""
    kind = point.get("kind")
    if kind in RATE_KINDS:
        others = [field for field in ("measured_ms", "measured_tflops") if field in point]
        rate = "measured_tokens_per_s_per_gpu" in point
        if not rate or others:
            message = (f"given with {others[0]}" if rate else
                       f"missing ({others[0]} is not a throughput run's figure)" if others
                       else "missing")
            yield document.error([*place, "measured_tokens_per_s_per_gpu"], message,
                                 "the output rate alone: measured_tokens_per_s_per_gpu",
                                 at=place)
        return
    if "measured_tokens_per_s_per_gpu" in point:
        yield document.error([*place, "measured_tokens_per_s_per_gpu"],
                             f"not a figure of a point of kind {kind}",
                             "measured_ms, or measured_tflops for an attention kernel", at=place)
    if "measured_tflops" in point and kind != "attention":
        yield document.error([*place, "measured_tflops"],
                             f"not a figure of a point of kind {kind}",
                             "measured_ms (a rate is kept for attention kernels)", at=place)
    yield from _one_of(document, place, point, ("measured_ms", "measured_tflops"),
                       "one measured figure: measured_ms, or measured_tflops for a rate")


def _point(document: Document, place: list[Any], point: dict[str, Any], seen: dict[str, str],
           other: CrossFile) -> Iterator[ContentError]:
    key = point.get("key")
    if isinstance(key, str):
        if key in seen:
            yield document.error([*place, "key"], f"{key!r} is already used by {seen[key]}",
                                 "a key no other calibration point has")
        seen.setdefault(key, f"{document.path}, points[{place[-1]}]")
    gpu = point.get("gpu")
    if isinstance(gpu, str) and gpu not in other.documents.get("gpus", {}):
        yield document.error([*place, "gpu"], f"{gpu!r} is not known",
                             f"a GPU key of {other.folders.get('gpus', 'the catalogue')}/")
    yield from _measured(document, place, point)
    if "set" not in point:
        yield from _one_of(document, place, point, ("band", "unbanded"),
                           "a band, or unbanded: why the point is held to none")
    elif "band" in point and "unbanded" in point:  # a point in a set may have either or none
        yield document.error([*place, "band"], "given with unbanded",
                             "a band, or unbanded: why the point is held to none", at=place)
    case, kind = point.get("case"), point.get("kind")
    if not isinstance(case, dict) or kind not in CASE_FIELDS:
        return
    for field in CASE_FIELDS[kind]:
        if field not in case:
            yield document.error([*place, "case", field], f"missing for a {kind} point",
                                 "the inputs: " + ", ".join(CASE_FIELDS[kind]),
                                 at=[*place, "case"])
    implementation = case.get("implementation")
    allowed = IMPLEMENTATIONS.get(kind, ())
    known = {name for names in IMPLEMENTATIONS.values() for name in names}
    # An unknown name is the schema's to report; a known one of another kind is this rule's.
    if implementation in known and implementation not in allowed:
        yield document.error([*place, "case", "implementation"],
                             f"{implementation!r} is not an implementation of a point of "
                             f"kind {kind}",
                             ", ".join(allowed) if allowed else "no implementation")
    if kind in SERVED_KINDS:
        yield from _one_of(document, [*place, "case"], case, ("concurrency", "rate"),
                           "the run's load: concurrency (users) or rate (requests per second)")
    yield from _warmup(document, place, case, kind)
    model = case.get("model")
    if isinstance(model, str) and model not in other.documents.get("models", {}):
        yield document.error([*place, "case", "model"], f"{model!r} is not known",
                             f"a model key of {other.folders.get('models', 'the catalogue')}/")


def _warmup(document: Document, place: list[Any], case: dict[str, Any], kind: str
            ) -> Iterator[ContentError]:
    """A warm-up belongs to a served run, and leaves some of its requests to measure."""
    warmup, requests = case.get("warmup"), case.get("requests")
    if warmup is None:
        return
    if kind not in SERVED_KINDS:
        yield document.error([*place, "case", "warmup"], f"given for a {kind} point",
                             "no warmup: only a served run (ttft, tpot, itl, "
                             "serving_throughput) leaves requests out")
    elif isinstance(warmup, int) and isinstance(requests, int) and warmup >= requests:
        yield document.error([*place, "case", "warmup"],
                             f"{warmup} leaves none of the run's {requests} requests",
                             "fewer than requests")
