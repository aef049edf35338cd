"""One kernel alone on one GPU, priced exactly as a step prices it: what the calibration
holds against measured kernels (a linear layer, an attention kernel).
"""

from __future__ import annotations

from sims.physics.hardware import COMPUTE_EFFICIENCY, MEMORY_EFFICIENCY, Gpu
from sims.physics.precision import Precision, bytes_per_value, wider
from sims.physics.step import PROJECTIONS, StepCost, _Step, attended

BF16 = Precision()


def matmul_cost(gpu: Gpu, tokens: int, k: int, n: int, precision: Precision = BF16
                ) -> StepCost:
    """One (tokens x k) @ (k x n) matmul alone on one GPU, priced as a step prices its
    matmuls: what the calibration holds against measured linear layers."""
    step = _Step()
    rate = gpu.flops(wider(precision.weights, precision.activations)) * COMPUTE_EFFICIENCY
    step.matmul(PROJECTIONS, 1, tokens, k, n, bytes_per_value(precision.weights),
                bytes_per_value(precision.activations), rate, (1.0, 1.0, 1.0),
                gpu.hbm_bytes_per_s * MEMORY_EFFICIENCY)
    return step.cost()


def attention_cost(gpu: Gpu, heads: int, kv_heads: int, head_dim: int, tokens: int,
                   context: int = 0, precision: Precision = BF16) -> StepCost:
    """One grouped-query attention kernel alone on one GPU, priced as a step prices it:
    `tokens` new tokens (causal) after `context` cached ones."""
    step = _Step()
    rate = gpu.flops(wider(precision.activations, precision.kv)) * COMPUTE_EFFICIENCY
    step.attention(1, heads, kv_heads, head_dim, tokens, attended(tokens, context, 0),
                   context + tokens, bytes_per_value(precision.activations),
                   bytes_per_value(precision.kv), rate, (1.0, 1.0, 1.0),
                   gpu.hbm_bytes_per_s * MEMORY_EFFICIENCY)
    return step.cost()
