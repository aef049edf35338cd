"""Kernel classes: what one kernel costs on one GPU, by class, as its profile's fit says.

Every kernel is priced from its FLOPs and bytes by the formula of its class, with the
constants of the GPU's kernel profile (sims.physics.profile): its compute time c (FLOPs at
the class's share of the tensor-core rate), its memory time m (bytes at its share of the
bandwidth) and its fixed costs. A GEMM overlaps the two, (c^p + m^p)^(1/p) with the
profile's exponent p (p = 3 is close to max(c, m) far from the ridge and 26% above either at
it); the attention operator runs its parts one after another (p = 1). The step
(sims.physics.pricing) is a sum of these; the calibration holds each class to measurements
of that very kernel, priced by these same functions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

from sims.physics.profile import KernelProfile

ACTIVATION_OUT_BYTES = 2  # a matmul writes its output in BF16 whatever its inputs' format


class Op(NamedTuple):
    """One kernel on one GPU: compute and memory times, fixed costs, how c and m combine
    ((c^p + m^p)^(1/p)), and the class and format whose constants priced it (for the
    calibration's error in that regime: sims.physics.accuracy)."""

    compute_s: float
    memory_s: float
    fixed_s: float
    p: float
    kind: str = ""
    variant: str = ""

    @property
    def time_s(self) -> float:
        return self.fixed_s + overlap(self.compute_s, self.memory_s, self.p)


def overlap(compute: float, memory: float, p: float) -> float:
    """(c^p + m^p)^(1/p): how far two times that can overlap add up."""
    if p == 1:
        return compute + memory
    if not compute or not memory:
        return compute + memory
    return (compute ** p + memory ** p) ** (1 / p)


def gemm(profile: KernelProfile, fmt: str, peaks: Mapping[str, float], bandwidth: float,
         tokens: float, k: float, n: float, weight_bytes: float, activation_bytes: float
         ) -> Op:
    """A (tokens x k) @ (k x n) matmul computing in `fmt` (the wider of its weights' and
    activations' formats; a format the profile has no fit for runs as the nearest wider one
    it has, at that format's rate in `peaks`): the weights read once, the input read and
    the output written once. Activations below BF16 are quantized first, by a memory-bound
    pass over the input (read in BF16, written in the narrower format)."""
    variant = profile.format_of(profile.gemm, fmt, "GEMM")
    fit = profile.gemm[variant]
    compute = 2 * tokens * k * n / (fit.compute_efficiency * peaks[variant])
    moved = k * n * weight_bytes + tokens * (k * activation_bytes + n * ACTIVATION_OUT_BYTES)
    if activation_bytes < ACTIVATION_OUT_BYTES:
        moved_first = tokens * k * (ACTIVATION_OUT_BYTES + activation_bytes)
    else:
        moved_first = 0.0
    memory = moved / (fit.memory_efficiency * bandwidth)
    quantize = moved_first / (fit.memory_efficiency * bandwidth)
    return Op(compute, memory, fit.fixed_s + fit.k_step_s * k + quantize,
              profile.overlap_exponent, "gemm", variant)


def prefill_attention(profile: KernelProfile, fmt: str, peaks: Mapping[str, float],
                      bandwidth: float, flops: float, moved: float, sequence_heads: float
                      ) -> Op:
    """The attention operator over new tokens: `flops` at the class's share of the peak
    (of `fmt`, or of the nearest wider format the profile has a kernel for), `moved` bytes
    (queries, keys, values and outputs) `memory_passes` times at full bandwidth, a cost per
    (sequence, head) and a fixed cost, one after another."""
    variant = profile.format_of(profile.prefill_attention, fmt, "prefill attention")
    fit = profile.prefill_attention[variant]
    return Op(flops / (fit.compute_efficiency * peaks[variant]),
              fit.memory_passes * moved / bandwidth,
              fit.fixed_s + fit.per_sequence_head_s * sequence_heads, 1.0,
              "prefill_attention", variant)


def decode_attention(profile: KernelProfile, kv_fmt: str, bandwidth: float, cached_bytes: float,
                     sequences: float, units: float, flops: float = 0.0, fmt: str = "bf16",
                     peaks: Mapping[str, float] | None = None) -> Op:
    """Attention for decoding sequences (one new token each, or a few: a speculative
    verify): their cached K and V read at the class's share of the bandwidth, or at what
    `units` (sequence, KV head) pairs can stream, whichever is less; their `flops` (in the
    attention's format `fmt`) at the prefill kernel's share of the peak, the two overlapping
    as the profile's kernels do; a cost per sequence and a fixed cost."""
    variant = profile.format_of(profile.decode_attention, kv_fmt, "decode attention")
    fit = profile.decode_attention[variant]
    share = min(fit.memory_efficiency, units * fit.unit_share)
    compute = 0.0
    if flops and peaks is not None:
        computing = profile.format_of(profile.prefill_attention, fmt, "prefill attention")
        compute = flops / (profile.prefill_attention[computing].compute_efficiency
                           * peaks[computing])
    return Op(compute, cached_bytes / (share * bandwidth),
              fit.fixed_s + fit.per_sequence_s * sequences, profile.overlap_exponent,
              "decode_attention", variant)


def elementwise(profile: KernelProfile, bandwidth: float, moved: float, kernels: int) -> Op:
    """`kernels` memory-bound kernels moving `moved` bytes in all."""
    fit = profile.elementwise
    return Op(0.0, moved / (fit.memory_efficiency * bandwidth), kernels * fit.fixed_s, 1.0,
              "elementwise")


def moe(profile: KernelProfile, variant: str, fmt: str, peaks: Mapping[str, float],
        bandwidth: float, touched: float, routed: float, hidden: float, width: float,
        expert_bytes: float, activation_bytes: float, tokens: float, experts: int,
        padded: Callable[[int], float] | None = None) -> Op:
    """One GPU's routed experts in an MoE layer, as fused MoE kernels run them: `routed`
    token-expert rows over `touched` of its experts, each expert's gated MLP two grouped
    matmuls (hidden -> 2 x width, width -> hidden). Each expert's rows run in whole tiles of
    the kernel's `tile_rows` (an expert with 3 rows computes a tile's worth), so the
    arithmetic counts the padded rows `padded(tile)` gives (sims.physics.step.padded_rows
    for random routing, or a measurement's own); without it, the routed rows. The
    arithmetic runs at the share of the peak (of `fmt`, the compute format, as its dense
    GEMMs run) those GEMMs reach, the traffic (every touched expert's weights once, each real
    row in and out) at the MoE kernel's share of the bandwidth, the two combined as
    sqrt(c^2 + m^2). Around them, memory-bound kernels move the rows (permute and quantize
    them, the gated activation, gather each token's k results, the router's logits), and
    the layer pays a fixed cost and a cost per row (routing's bookkeeping). `variant` names
    the kernel (sims.physics.precision.moe_variant): a weight-only one has constants of its
    own."""
    fit = profile.moe[profile.format_of(profile.moe, variant, "MoE layer")]
    computed = profile.format_of(profile.gemm, fmt, "GEMM")
    gemm = profile.gemm[computed]
    share = fit.memory_efficiency * bandwidth
    tile = int(fit.tile_rows)
    rows = padded(tile) if tile and padded is not None else routed
    compute = 6 * rows * hidden * width / (gemm.compute_efficiency * peaks[computed])
    weights = touched * 3 * hidden * width * expert_bytes
    # Each row into and out of both matmuls: in at the activations' format, out in BF16.
    rows_in_out = routed * ((hidden + width) * activation_bytes
                            + (2 * width + hidden) * ACTIVATION_OUT_BYTES)
    around = (routed * hidden * (ACTIVATION_OUT_BYTES + activation_bytes)  # permute, quantize
              + routed * (2 * width * ACTIVATION_OUT_BYTES + width * activation_bytes)  # gate
              + routed * hidden * ACTIVATION_OUT_BYTES  # the k results gathered per token
              + tokens * hidden * ACTIVATION_OUT_BYTES  # the layer's output
              + tokens * experts * ACTIVATION_OUT_BYTES)  # the router's logits
    return Op(compute, (weights + rows_in_out) / share,
              fit.fixed_s + fit.per_row_s * routed + around / share, 2.0, "moe", variant)
