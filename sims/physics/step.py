"""A step's vocabulary, shared by everything that prices one: the work it carries
(`Work`), what it costs (`StepCost`), how much attention and which experts that work
touches, and the sums of its operators as sims.physics.pricing adds them up (`_Step`).

Each operator is one kernel priced by its class (sims.physics.kernels): an `Op` of compute,
memory and fixed times; the step is their sum plus the collectives it waits for.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from sims.physics.kernels import Op
from sims.physics.shapes import Model


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


def experts_per_gpu(experts: int, gpus: int) -> int:
    """Routed experts the busiest GPU of an expert-parallel group of `gpus` holds: all of
    them split evenly where `gpus` divides them, else one more on some GPUs (as engines
    place them: 256 experts over 72 GPUs leave 4 on the busiest, the spare slots filled
    with copies of busy experts by load balancers such as EPLB), which set the pace."""
    return -(-experts // gpus)


def padded_rows(tokens: float, experts: int, per_token: int, local: float, tile: int
                ) -> float:
    """Rows `local` experts' matmuls compute once each expert's rows are rounded up to
    whole tiles of `tile`, when `tokens` tokens each pick `per_token` of `experts` at random:
    an expert's rows X are Binomial(tokens, k/E), and it runs a tile for every `tile` rows
    it has begun, tile x sum over j >= 0 of P(X > j tile). The first term is exactly the
    chance it is touched at all; the rest take the binomial as normal (erfc)."""
    p = per_token / experts
    touched = 1 - (1 - p) ** tokens
    mean, spread = tokens * p, math.sqrt(2 * tokens * p * (1 - p)) or 1.0
    tiles, j = touched, 1
    while j * tile < tokens:
        beyond = 0.5 * math.erfc((j * tile + 0.5 - mean) / spread)
        if beyond < 1e-9:
            break
        tiles += beyond
        j += 1
    return local * tile * tiles


# What the operators are, for a breakdown of a step's time (`Pricer.parts`).
PROJECTIONS, ATTENTION, MLP, EXPERTS, ELEMENTWISE, EDGES = (
    "attention projections", "attention", "MLP", "experts", "element-wise", "embedding and head")


class _Step:
    """Sums of one step's operators: FLOPs and bytes (the operators whole, as if on one GPU)
    and one GPU's times; when `parts` is a dict, each kind of operator's time, and when
    `classes` is, each kernel class's (by class and format)."""

    __slots__ = ("flops", "bytes", "compute", "memory", "ops", "parts", "record", "classes")

    def __init__(self, parts: dict[str, float] | None = None,
                 record: list[tuple[float, Op]] | None = None,
                 classes: dict[tuple[str, str], float] | None = None) -> None:
        self.flops = self.bytes = self.compute = self.memory = self.ops = 0.0
        self.parts = parts
        self.record = record  # when a list: each operator's (layers, Op)
        self.classes = classes

    def add(self, part: str, layers: float, flops: float, moved: float, op: Op) -> None:
        """`layers` copies of one operator doing `flops` and moving `moved` bytes in all,
        which costs one GPU `op`."""
        self.flops += layers * flops
        self.bytes += layers * moved
        self.compute += layers * op.compute_s
        self.memory += layers * op.memory_s
        time = layers * op.time_s
        self.ops += time
        if self.record is not None:
            self.record.append((layers, op))
        if self.parts is not None:
            self.parts[part] = self.parts.get(part, 0.0) + time
        if self.classes is not None:
            key = (op.kind, op.variant)
            self.classes[key] = self.classes.get(key, 0.0) + time

    def cost(self, collectives: int = 0, collective_s: float = 0.0) -> StepCost:
        return StepCost(self.flops, self.bytes, self.compute, self.memory, self.ops,
                        collectives, collective_s)
