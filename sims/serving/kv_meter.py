"""Where KV memory goes over an allocator's run: each part's share of the room, averaged over
the steps during which requests waited, and samples for the charts (sims.serving.kv_allocators
meters its two allocators with it)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from sims.serving.workload import Request

# Where memory goes, in the order the charts stack it.
USED = "tokens' KV"
FUTURE = "reserved for tokens to come"
NEVER = "reserved, never used"
SLACK = "last block's empty slots"
EXTERNAL = "gaps too small to use"
FREE = "free"
PARTS = (USED, FUTURE, NEVER, SLACK, EXTERNAL, FREE)
SAMPLES = 120  # points of the memory-over-time charts


class Outcome(NamedTuple):
    """One allocator's run over the backlog."""

    shares: dict[str, float]  # each part's share of the room, averaged while requests waited
    mean_running: float  # requests in flight, averaged over the same steps
    max_running: int
    preempted_tokens: list[int]  # for each preemption, the tokens the victim held
    refused: int  # requests too long to fit in the room even alone
    steps: int  # until the last request finished
    samples: list[tuple[int, int, dict[str, float]]]  # (step, running, slots by part)

    @property
    def waste(self) -> float:
        """Share of the room the allocator held without a token's KV in it, or left in gaps
        too small to use: reservation, internal and external fragmentation (free memory too
        little for the next request is not the allocator's doing)."""
        return self.shares[FUTURE] + self.shares[NEVER] + self.shares[SLACK] + self.shares[
            EXTERNAL]


class _Sums:
    """Each part's slots and the requests running, summed over steps."""

    def __init__(self) -> None:
        self.parts = dict.fromkeys(PARTS, 0.0)
        self.running = 0.0
        self.steps = 0

    def add(self, span: int, running: int, parts: dict[str, float]) -> None:
        for part, value in parts.items():
            self.parts[part] += value * span
        self.running += running * span
        self.steps += span


class Meter:
    """Sums over the steps during which requests waited and over all steps, and samples."""

    def __init__(self, slots: int, stride: int) -> None:
        self.slots, self.stride = slots, stride
        self.waiting, self.all = _Sums(), _Sums()
        self.samples: list[tuple[int, int, dict[str, float]]] = []

    def add(self, step: int, span: int, running: int, parts: dict[str, float],
            waiting: bool) -> None:
        """`span` steps from `step` on, each holding `parts` (slots by part; a part that
        grows linearly over the span is given at its midpoint)."""
        if waiting:
            self.waiting.add(span, running, parts)
        self.all.add(span, running, parts)
        if step // self.stride != (step + span) // self.stride or not self.samples:
            self.samples.append((step, running, parts))

    def outcome(self, max_running: int, preempted: list[int], refused: int, steps: int
                ) -> Outcome:
        sums = self.waiting if self.waiting.steps else self.all
        seen = sums.steps or 1
        shares = {part: value / seen / self.slots if self.slots else 0.0
                  for part, value in sums.parts.items()}
        every = max(1, -(-len(self.samples) // SAMPLES))  # thinned to at most SAMPLES
        return Outcome(shares, sums.running / seen, max_running, preempted, refused, steps,
                       self.samples[::every])


def sample_stride(requests: Sequence[Request], slots: int) -> int:
    """Steps between samples: the run's likely length over SAMPLES."""
    tokens = sum(r.output_tokens for r in requests)
    held = sum(r.prompt_tokens + r.output_tokens / 2 for r in requests) / max(1, len(requests))
    in_flight = max(1.0, min(len(requests), slots / max(1.0, held)))
    return max(1, math.ceil(tokens / in_flight / SAMPLES))
