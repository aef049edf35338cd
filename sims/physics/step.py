"""A step's vocabulary, shared by everything that prices one: the work it carries
(`Work`), what it costs (`StepCost`), how much attention and which experts that work
touches, and the sums of its operators as sims.physics.pricing adds them up (`_Step`).

Each operator is priced on its own from its FLOPs and bytes: compute c at the rate given,
memory m at the bandwidth given, combined as sqrt(c^2 + m^2) plus KERNEL_OVERHEAD_S per
kernel (sims.physics.pricing says why that form).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from sims.physics.shapes import Model

# The fixed cost of one kernel beyond its roofline time: launch, the first wave's ramp-up,
# the tail. Vidur's smallest measured kernels on an A100 (norms, a 4096 x 4096 matmul at one
# token) take 4-5 us more than their bytes need.
KERNEL_OVERHEAD_S = 4e-6


class _WorkFields(NamedTuple):
    new_tokens: int
    context_tokens: int = 0
    count: int = 1
    logit_tokens: int | None = None


class Work(_WorkFields):
    """One sequence's share of a step: `new_tokens` computed on top of `context_tokens`
    already in the KV cache. A decode is Work(1, context); a prefill chunk Work(n, done).
    `count` identical sequences share one Work, so a step over a large batch costs one term.

    `logit_tokens` is how many of each sequence's new positions go through the output head.
    None means all of them (a decode, a speculative verify scores every guess); a prefill
    needs only its last (`prefill()` passes 1); a prefill chunk that is not the last, 0.

    An immutable tuple, checked when made: sims make hundreds per run."""

    __slots__ = ()

    def __new__(cls, new_tokens: int, context_tokens: int = 0, count: int = 1,
                logit_tokens: int | None = None) -> Work:
        self = tuple.__new__(cls, (new_tokens, context_tokens, count, logit_tokens))
        if new_tokens < 0 or context_tokens < 0 or count < 0:
            raise ValueError(f"token counts cannot be negative: {self}")
        if logit_tokens is not None and not 0 <= logit_tokens <= new_tokens:
            raise ValueError(f"logit_tokens must lie in [0, new_tokens]: {self}")
        return self

    @property
    def logits(self) -> int:
        return self.new_tokens if self.logit_tokens is None else self.logit_tokens


class StepCost(NamedTuple):
    """What one forward step costs on one GPU of its group. (A tuple: sims price hundreds.)"""

    flops: float  # the step's arithmetic, every GPU's share together
    bytes: float  # bytes it moves, every GPU's share together
    compute_s: float  # one GPU: its operators' compute times, summed
    memory_s: float  # one GPU: its operators' memory times, summed
    ops_s: float  # one GPU: every operator priced on its own, summed (overheads included)
    collectives: int  # collective calls the step waits for
    collective_s: float  # those calls, together

    @property
    def time_s(self) -> float:
        return self.ops_s + self.collective_s

    @property
    def bound(self) -> str:
        """Which of its operators' two times dominates the step."""
        return "compute" if self.compute_s >= self.memory_s else "memory"

    @property
    def intensity(self) -> float:
        """Arithmetic intensity in FLOP per byte moved."""
        return self.flops / self.bytes


def touched_experts(model: Model, tokens: float) -> float:
    """Distinct routed experts a step of `tokens` tokens sends work to, in one MoE layer, if
    each token picks its experts_per_token of E at random: E(1 - (1 - k/E)^T). Shared
    experts, which every token uses, are not counted. 0 for a dense model."""
    if not model.experts:
        return 0.0
    return model.experts * (1 - (1 - model.experts_per_token / model.experts) ** tokens)


def attended(new: int, context: int, window: int) -> float:
    """Positions `new` tokens after `context` cached ones attend to in all (causal, each
    token itself included; a window of 0 means no window)."""
    if not window or context + new <= window:
        return new * context + new * (new + 1) / 2
    if context >= window:
        return new * window
    return (window * (window + 1) - context * (context + 1)) / 2 + (context + new - window) * window


# What the operators are, for a breakdown of a step's time (`Pricer.parts`).
PROJECTIONS, ATTENTION, MLP, EXPERTS, ELEMENTWISE, EDGES = (
    "attention projections", "attention", "MLP", "experts", "element-wise", "embedding and head")


class _Step:
    """Sums of one step's operators: FLOPs, bytes (every GPU) and per-GPU times, and when
    `parts` is a dict, each kind of operator's time."""

    __slots__ = ("flops", "bytes", "compute", "memory", "ops", "parts", "record")

    def __init__(self, parts: dict[str, float] | None = None,
                 record: list[tuple[float, float, float, int]] | None = None) -> None:
        self.flops = self.bytes = self.compute = self.memory = self.ops = 0.0
        self.parts = parts
        self.record = record  # when a list: each operator's (layers, c, m, kernels)

    def add(self, part: str, layers: float, flops: float, first: float, second: float,
            rate: float, share: tuple[float, float, float], bandwidth: float,
            kernels: int = 1) -> None:
        """`layers` copies of one operator doing `flops` and moving `first` and `second`
        bytes (for a matmul its weights and its activations); `share` is the fraction of
        each of the three one GPU of the group handles."""
        compute = flops * share[0] / rate if rate else 0.0
        memory = (first * share[1] + second * share[2]) / bandwidth
        self.flops += layers * flops
        self.bytes += layers * (first + second)
        self.compute += layers * compute
        self.memory += layers * memory
        time = layers * (math.hypot(compute, memory) + kernels * KERNEL_OVERHEAD_S)
        self.ops += time
        if self.record is not None:
            self.record.append((layers, compute, memory, kernels))
        if self.parts is not None:
            self.parts[part] = self.parts.get(part, 0.0) + time

    def cost(self, collectives: int = 0, collective_s: float = 0.0) -> StepCost:
        return StepCost(self.flops, self.bytes, self.compute, self.memory, self.ops,
                        collectives, collective_s)

    def attention(self, layers: float, heads: int, kv_heads: int, head_dim: int,
                  new: float, pairs: float, cached: float, activation_bytes: float,
                  kv_bytes: float, rate: float, share: tuple[float, float, float],
                  bandwidth: float) -> None:
        """`layers` copies of grouped-query attention: 4 * heads * head_dim FLOPs per
        attended pair (scores and the weighted sum of values), the new tokens' queries and
        outputs moved once, every cached token's K and V read once."""
        self.add(ATTENTION, layers, 4 * heads * head_dim * pairs,
                 new * 2 * heads * head_dim * activation_bytes,
                 cached * 2 * kv_heads * head_dim * kv_bytes, rate, share, bandwidth)

    def matmul(self, part: str, layers: float, tokens: float, k: int, n: int,
               weight_bytes: float, activation_bytes: float, rate: float,
               share: tuple[float, float, float], bandwidth: float) -> None:
        """`layers` copies of a (tokens x k) @ (k x n) matmul: its weights read once, its
        input and output activations once."""
        self.add(part, layers, 2 * tokens * k * n, k * n * weight_bytes,
                 tokens * (k + n) * activation_bytes, rate, share, bandwidth)
