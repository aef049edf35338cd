"""One kernel alone on one GPU, priced exactly as a step prices it (sims.physics.kernels with
the GPU's profile): what the calibration holds against measured kernels, and what the fit of
a profile's constants (scripts/calibration.py) varies them against.
"""

from __future__ import annotations

from collections.abc import Callable

from sims.physics import kernels
from sims.physics.hardware import Gpu
from sims.physics.kernels import Op
from sims.physics.precision import bytes_per_value, moe_variant, wider
from sims.physics.step import padded_rows


def gemm(gpu: Gpu, tokens: float, k: float, n: float, weights: str = "bf16",
         activations: str = "bf16") -> Op:
    """A (tokens x k) @ (k x n) matmul with weights and activations in these formats."""
    fmt = wider(weights, activations)
    return kernels.gemm(gpu.kernels, fmt, gpu.dense_flops, gpu.hbm_bytes_per_s, tokens, k, n,
                        bytes_per_value(weights), bytes_per_value(fmt))


def prefill_attention(gpu: Gpu, heads: int, kv_heads: int, head_dim: int, tokens: int,
                      batch: int = 1, activations: str = "bf16", kv: str = "bf16",
                      causal: bool = True, kernel_only: bool = False) -> float:
    """`batch` sequences of `tokens` new tokens attending to each other (causally, or to all
    of them), as the attention operator runs it; `kernel_only`: the FMHA kernel alone (as
    attention benchmarks time it: no RoPE, no KV-cache write, no operator overhead)."""
    fmt = wider(activations, kv)
    pairs = tokens * (tokens + 1) / 2 if causal else tokens * tokens
    flops = 4 * heads * head_dim * pairs * batch
    moved = batch * tokens * head_dim * (2 * heads * bytes_per_value(activations)
                                         + 2 * kv_heads * bytes_per_value(kv))
    op = kernels.prefill_attention(gpu.kernels, fmt, gpu.dense_flops, gpu.hbm_bytes_per_s,
                                   flops, moved, batch * heads)
    if not kernel_only:
        return op.time_s
    fit = gpu.kernels.for_format(gpu.kernels.prefill_attention, fmt, "prefill attention")
    return op.compute_s + fit.per_sequence_head_s * batch * heads


def decode_attention(gpu: Gpu, kv_heads: int, head_dim: int, batch: int, context: int,
                     kv: str = "bf16", heads: int = 0, activations: str = "bf16") -> Op:
    """One new token for each of `batch` sequences after `context` cached tokens: the read
    is the KV heads', the arithmetic the `heads` query heads' (none counted when not
    given)."""
    cached = batch * (context + 1) * 2 * kv_heads * head_dim * bytes_per_value(kv)
    flops = 4 * heads * head_dim * (context + 1) * batch
    return kernels.decode_attention(gpu.kernels, kv, gpu.hbm_bytes_per_s, cached, batch,
                                    batch * kv_heads, flops, wider(activations, kv),
                                    gpu.dense_flops)


def moe(gpu: Gpu, tokens: int, hidden: int, width: int, experts: int, experts_per_token: int,
        ep: int = 1, tp: int = 1, experts_format: str = "bf16", activations: str = "bf16",
        routed: float | None = None, touched: float | None = None,
        padded: Callable[[int], float] | None = None) -> Op:
    """One GPU's routed experts of an MoE layer over `tokens` tokens: it holds experts / ep
    of them, each cut tp ways. `routed` rows over `touched` of its experts and `padded(tile)`
    rows once each expert's are rounded up to whole tiles, as the measurement routed them;
    by default routing balanced and independent."""
    fmt = wider(experts_format, activations)
    if touched is None:
        touched = experts / ep * (1 - (1 - experts_per_token / experts) ** tokens)
    if routed is None:
        routed = tokens * experts_per_token / ep
    if padded is None:
        def padded(tile: int) -> float:
            return padded_rows(tokens, experts, experts_per_token, experts / ep, tile)
    return kernels.moe(gpu.kernels, moe_variant(experts_format, activations), fmt,
                       gpu.dense_flops, gpu.hbm_bytes_per_s, touched, routed, hidden,
                       width / tp, bytes_per_value(experts_format), bytes_per_value(activations),
                       tokens, experts, padded)
