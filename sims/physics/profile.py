"""Kernel profiles: how fast each class of kernel runs on one generation of GPUs.

A datasheet gives peak rates; kernels reach a share of them that depends on the kind of
kernel and its number format, and each has fixed costs a roofline does not show. A profile
(content/catalogue/kernels/<key>.yaml, through the generated catalogue_data) holds those
constants for one GPU generation and the kernels engines run on it, each fitted to measured
kernels of a declared training set (scripts/calibration.py) or assumed with a stated reason.
Code holds the formulas (sims.physics.kernels); the numbers live here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple


class GemmFit(NamedTuple):
    """A dense matmul in one compute format: its tensor-core share of peak, its share of the
    memory bandwidth, a fixed cost, and a cost per element of the reduced dimension (the
    kernel's main loop runs k / tile steps one after another, however few the rows)."""

    compute_efficiency: float
    memory_efficiency: float
    fixed_s: float
    k_step_s: float


class PrefillAttentionFit(NamedTuple):
    """The attention operator over new tokens (RoPE, the KV-cache write, the FMHA): its
    FLOPs at a share of peak, its tensors moved `memory_passes` times at full bandwidth, a
    fixed cost, and a cost per (sequence, head) tile row."""

    compute_efficiency: float
    memory_passes: float
    fixed_s: float
    per_sequence_head_s: float


class DecodeAttentionFit(NamedTuple):
    """Attention for one new token per sequence, reading its cached K and V: bandwidth at
    `memory_efficiency`, but each (sequence, KV head) unit streams at most `unit_share` of it
    (a few sequences cannot fill the GPU), plus a fixed cost and a cost per sequence."""

    memory_efficiency: float
    unit_share: float
    fixed_s: float
    per_sequence_s: float


class MoeFit(NamedTuple):
    """A mixture-of-experts layer's fused kernels of one kind (a compute format, or a
    weight-only kernel): the share of the bandwidth its matmuls and row moves reach (their
    arithmetic runs at the dense GEMMs' share of peak), a fixed cost for the layer, and a
    cost per routed row (routing's bookkeeping: sort, permute, finalize)."""

    memory_efficiency: float
    fixed_s: float
    per_row_s: float
    tile_rows: float  # the rows each expert's matmul tile holds (0: none: rows as routed)


class ElementwiseFit(NamedTuple):
    """Norms and activations: memory-bound kernels with a fixed cost each."""

    memory_efficiency: float
    fixed_s: float


class AllReduceAlgorithm(NamedTuple):
    """One algorithm of an all-reduce: the traffic it puts on each GPU's links for a message
    of S bytes over n GPUs (TRAFFIC), a fixed latency for each number of GPUs, and the
    share of the links' bandwidth that traffic moves at."""

    traffic: str
    latency_s: Mapping[int, float]
    bus_efficiency: float


class AllReduceFit(NamedTuple):
    """One all-reduce implementation: the algorithms it picks among by message size (the
    fastest runs: NCCL's ring or NVLink SHARP, an engine's one-shot or two-shot kernels)."""

    algorithms: tuple[AllReduceAlgorithm, ...]


# Bytes through each GPU's links per byte of message, over n GPUs: every other GPU's whole
# message read (one-shot), a reduce-scatter then an all-gather (ring, two-shot), or the
# message sent to the switch once and the sum read back once (in-switch reduction).
TRAFFIC = {"one_shot": lambda n: n - 1, "ring": lambda n: 2 * (n - 1) / n,
           "in_switch": lambda n: 1.0}


class Errors(NamedTuple):
    """A category's errors on one set of calibration points: |ours / measured - 1|."""

    points: int
    median: float
    p90: float


class KernelProfile(NamedTuple):
    key: str
    name: str
    overlap_exponent: float  # compute and memory of one kernel combine as (c^p + m^p)^(1/p)
    gemm: Mapping[str, GemmFit]  # by compute format
    prefill_attention: Mapping[str, PrefillAttentionFit]  # by the attention's format
    decode_attention: Mapping[str, DecodeAttentionFit]  # by the KV cache's format
    moe: Mapping[str, MoeFit]  # by the compute format of the experts' matmuls
    elementwise: ElementwiseFit
    all_reduce: Mapping[str, AllReduceFit]  # nccl, and custom where engines have one
    # How close these constants come to measurements, by (class or "throughput", format or
    # implementation or "", set): the calibration's errors, and whose GPUs they were
    # measured on (this profile's, or the one it is like).
    accuracy: Mapping[tuple[str, str, str], Errors] = {}
    measured_as: str = ""

    def format_of(self, table: Mapping[str, Any], fmt: str, what: str) -> str:
        """The format whose fit in `table` prices work in `fmt`: its own, or the nearest
        wider one the profile has (a format its kernels do not run natively runs in a wider
        one)."""
        for candidate in FORMAT_FALLBACK[fmt]:
            if candidate in table:
                return candidate
        raise ValueError(f"the {self.name} profile has no {what} for {fmt}")

    def for_format(self, table: Mapping[str, Any], fmt: str, what: str) -> Any:
        """The fit of `table` for `fmt` (see format_of)."""
        return table[self.format_of(table, fmt, what)]


FORMAT_FALLBACK = {"fp4": ("fp4", "fp8", "bf16"), "fp8": ("fp8", "bf16"), "bf16": ("bf16",),
                   # A weight-only MoE kernel without a fit of its own: its compute format's.
                   "w4a16": ("w4a16", "bf16"), "w4a8": ("w4a8", "fp8", "bf16"),
                   "w8a16": ("w8a16", "bf16"), "w8a8": ("w8a8", "fp8", "bf16"),
                   "w4a4": ("w4a4", "fp4", "fp8", "bf16")}
_CLASSES = {"gemm": GemmFit, "prefill_attention": PrefillAttentionFit,
            "decode_attention": DecodeAttentionFit, "moe": MoeFit}


def build_profiles(entries: Mapping[str, Mapping[str, Any]]) -> dict[str, KernelProfile]:
    """Every profile of the catalogue (catalogue_data.KERNELS) as a KernelProfile."""
    profiles = {}
    for key, entry in entries.items():
        by_format = {name: {fmt: cls(**fit) for fmt, fit in entry[name].items()}
                     for name, cls in _CLASSES.items()}
        all_reduce = {name: AllReduceFit(tuple(
            AllReduceAlgorithm(algorithm["traffic"],
                               {int(n): s for n, s in algorithm["latency_s"].items()},
                               algorithm["bus_efficiency"]) for algorithm in algorithms))
            for name, algorithms in entry["all_reduce"].items()}
        accuracy = {(kind, variant, chosen): Errors(points, median, p90)
                     for kind, variant, chosen, points, median, p90 in entry["accuracy"]}
        profiles[key] = KernelProfile(
            key=key, name=entry["name"], overlap_exponent=entry["overlap_exponent"],
            elementwise=ElementwiseFit(**entry["elementwise"]), all_reduce=all_reduce,
            accuracy=accuracy, measured_as=entry["measured_as"], **by_format)
    return profiles
