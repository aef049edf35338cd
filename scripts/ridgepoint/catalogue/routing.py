"""How a measured MoE layer's tokens were routed: the rows on each expert of the GPU it timed.

A calibration point of an MoE layer says how its benchmark routed tokens (`distribution`);
the physics prices one GPU's rows over the experts that get any. aiconfigurator's TensorRT-
LLM MoE collector (collector/helper.py at commit 095f58a5: balanced_logits and
_generate_power_law_distribution) builds its routing like this, and so does this module:

- balanced: token t's j-th expert is (t + j x stride) mod E, stride = ceil(E / k) (fewer
  tokens than the stride are spread as t x stride / T); experts sit contiguously, E / ep on
  each GPU, and the GPU timed holds the first E / ep.
- power_law_<a>: each expert's load is an independent draw of a power law p(x) ~ x^-a on
  [1, 0.8 T] ([0.01, 2] when the layer routes no more rows than it has experts), scaled to
  sum to T x k, rounded, and capped at T (a token picks an expert once; the excess goes round
  robin, one at a time, to the least loaded experts under the cap); the busiest GPU is timed.
  The collector times a few draws and reports their mean: the rows, experts and padded rows
  here are the mean over DRAWS draws of a generator seeded the same every run (the time's
  dependence on them is nearly linear, so the mean's time stands for the mean of the times).
"""

from __future__ import annotations

import functools
import heapq
import math
import random
from collections.abc import Callable

DRAWS = 400
SEED = 38


class Routed:
    """The timed GPU's rows per local expert, one list per draw (one for balanced routing):
    its rows, its experts with any, and its rows once each expert's are padded to whole
    tiles of a kernel, each the mean over the draws."""

    def __init__(self, draws: list[list[int]]) -> None:
        self.draws = draws
        self.rows = sum(map(sum, draws)) / len(draws)
        self.touched = sum(sum(1 for n in counts if n) for counts in draws) / len(draws)

    @functools.lru_cache(maxsize=16)  # noqa: B019 - a few tiles per point, points are kept
    def padded(self, tile: int) -> float:
        return sum(sum(-(-n // tile) * tile for n in counts)
                   for counts in self.draws) / len(self.draws)


@functools.lru_cache(maxsize=1024)
def busiest(tokens: int, experts: int, per_token: int, ep: int, distribution: str | None
            ) -> Routed:
    """How the timed GPU's rows fall on its experts; remembered, since a fit prices each
    point thousands of times."""
    if distribution in (None, "balanced"):
        return Routed([_balanced(tokens, experts, per_token)[: experts // ep]])
    alpha = float(distribution.rsplit("_", 1)[1])
    draws = random.Random(SEED)
    return Routed([_power_law(tokens, experts, per_token, ep, alpha, draws)
                   for _ in range(DRAWS)])


def _balanced(tokens: int, experts: int, per_token: int) -> list[int]:
    stride = math.ceil(experts / per_token)
    counts = [0] * experts
    for t in range(tokens):
        for j in range(per_token):
            first = t + j * stride if tokens >= stride else math.floor(t * stride / tokens
                                                                       + j * stride)
            counts[first % experts] += 1
    return counts


def _power_law(tokens: int, experts: int, per_token: int, ep: int, alpha: float,
               draws: random.Random) -> list[int]:
    """One draw's rows per expert on the busiest GPU."""
    low, high = (1.0, tokens * 0.8) if tokens * per_token > experts else (0.01, 2.0)
    span = high ** (1 - alpha) - low ** (1 - alpha)
    loads = [(span * draws.random() + low ** (1 - alpha)) ** (1 / (1 - alpha))
             for _ in range(experts)]
    total = sum(loads)
    counts = [round(x / total * tokens * per_token) for x in loads]
    over = sum(max(0, n - tokens) for n in counts)
    counts = [min(n, tokens) for n in counts]
    width = experts // ep
    gpus = [counts[g * width:(g + 1) * width] for g in range(ep)]
    if over:
        _round_robin(gpus, over, lambda n: n < tokens, min, 1)
    missing = tokens * per_token - sum(map(sum, gpus))
    if missing > 0:
        _round_robin(gpus, missing, lambda n: n < tokens, min, 1)
    elif missing < 0:
        _round_robin(gpus, -missing, lambda n: n > 0, max, -1)
    return max(gpus, key=sum)


def _round_robin(gpus: list[list[int]], remaining: int, valid: Callable[[int], bool],
                 pick: Callable, step: int) -> None:
    """Move `remaining` rows one at a time, a GPU in turn, to (or from) the valid expert
    `pick` (min or max) chooses by load, the first of equals, as numpy's argmin and argmax
    do. Each GPU keeps its valid experts in a heap ordered by (load, or minus the load for
    max; index), whose top is that choice: a move costs a logarithm of the experts, not a
    scan of them (a draw moves thousands of rows, and a point takes hundreds of draws)."""
    sign = 1 if pick is min else -1
    heaps = []
    for counts in gpus:
        heap = [(sign * n, i) for i, n in enumerate(counts) if valid(n)]
        heapq.heapify(heap)
        heaps.append(heap)
    while remaining > 0:
        progressed = False
        for counts, heap in zip(gpus, heaps, strict=True):
            if not heap:
                continue
            _, chosen = heapq.heappop(heap)
            counts[chosen] += step
            if valid(counts[chosen]):
                heapq.heappush(heap, (sign * counts[chosen], chosen))
            remaining -= 1
            progressed = True
            if remaining == 0:
                break
        if not progressed:
            break
