"""Step times for simulators that run thousands of steps: the shared physics on a grid.

`physics.step_cost` prices a step operator by operator, which takes tens of microseconds
(more for a mixture of experts). A load simulation runs thousands of steps for each of a
dozen arrival rates, and must answer within milliseconds; so it asks this table instead.

What a step is, here: `decodes` sequences adding one token each after `decode_context`
tokens of context in all, and `prefill` prompt tokens (any number of chunks) whose
attention reaches `prefill_reach` earlier positions in all (the sum over chunks of chunk
length times tokens already done). How it is priced:

- At points of a grid over (decodes, prefill tokens), the step is priced by
  `physics.step_cost` three times: decodes at context C0 and the chunk at context 0; the
  decodes' context raised to C1; the chunk's raised to D1. That gives the step's time and
  how fast it grows with either context, which is nearly linear in both: a decode's
  attention reads its whole cache (memory-bound, so the time is the bytes), a chunk's
  attention does work in proportion to the positions it reaches.
- Between grid points the three figures are interpolated linearly (bilinear over the two
  coordinates), then the step's own contexts are applied.

The grid is dense at the bottom and about 1.4x apart beyond (GRID); each point is priced
when first needed and kept for the table's life. Tests hold the table within a few percent
of `step_cost` at random steps.

What the grid's representative step assumes: every decode at the mean context (exact for
full attention, since a decode's cost is linear in its context), every chunk of the step
together as one chunk (exact for one chunk; for several short prompts in one step it counts
their attention among themselves a little high), and logits for every decode plus the one
chunk that ends a prompt.

An engine adds its own time to every step (`StepOverhead`: scheduling, sampling, launching
kernels), less for a decode step that replays a captured CUDA graph; a table made with one
adds it to every figure it gives, so runs of steps carry it once a step.
"""

from __future__ import annotations

import bisect
from functools import lru_cache
from typing import NamedTuple

from sims.physics import Gpu, Model, Precision, Work, step_cost

# Decode contexts and chunk contexts at which slopes are measured. C0 lies past every
# sliding window in the catalogue (128 tokens), so the slope is the full layers' growth.
C0, C1 = 1024, 8192
D1 = 4096


# Decodes and prefill tokens both: every integer to 4, then alternately 1.5x and 4/3x apart
# (powers of two and their midpoints). Dense at the bottom because there a mixture of
# experts' cost bends sharply: one more token wakes up to `experts_per_token` new experts.
GRID = (0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024,
        1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536, 98304,
        131072)


class StepOverhead(NamedTuple):
    """What an engine adds to each step beyond the GPU's kernels (s)."""

    graph_s: float  # a decode-only step of at most graph_max_batch sequences (a CUDA graph)
    eager_s: float  # any other step: one with prompt tokens, or a batch past the graphs
    graph_max_batch: int

    def of(self, decodes: int, prefill: int) -> float:
        """The overhead of a step of `decodes` decodes and `prefill` prompt tokens."""
        return self.graph_s if not prefill and decodes <= self.graph_max_batch else self.eager_s


NO_OVERHEAD = StepOverhead(0.0, 0.0, 0)


class StepTable:
    """Step times for one (GPU, model, group, formats, collectives, engine overhead), from
    `step_cost` on a grid."""

    def __init__(self, gpu: Gpu, model: Model, tp: int, precision: Precision,
                 layout: str = "tp", all_reduce: str = "auto",
                 overhead: StepOverhead = NO_OVERHEAD, exchange: str = "all_to_all") -> None:
        self.gpu, self.model, self.tp, self.precision = gpu, model, tp, precision
        self.layout, self.all_reduce, self.overhead = layout, all_reduce, overhead
        self.exchange = exchange
        # The priced points, shared by every table of this setup whatever its overhead
        # (the costly part; a fit that tries overheads reprices nothing).
        self._points = _points(gpu, model, tp, precision, layout, all_reduce, exchange)
        # The coefficients made so far, by (decodes, prefill): a run that prices hundreds
        # of steps looks here first and calls coefficients() only for a step not yet seen.
        # Only read outside this class.
        self.made: dict[tuple[int, int], tuple[float, float, float, float]] = {}

    def _price(self, decodes: int, context: int, prefill: int, reach: int) -> float:
        work = []
        if decodes:
            work.append(Work(1, context, count=decodes))
        if prefill:
            work.append(Work(prefill, reach, logit_tokens=1))
        return step_cost(self.gpu, self.model, work, self.tp, self.precision,
                         self.layout, self.all_reduce, self.exchange).time_s

    def _point(self, decodes: int, prefill: int) -> tuple[float, float, float, float]:
        """At one grid point: the time at the reference contexts (decodes at C0, the chunk
        at 0), its growth per token of decode context, per position of chunk reach, and
        the growth of the one with the other (both contexts share one attention kernel,
        whose memory and compute times do not simply add)."""
        point = self._points.get((decodes, prefill))
        if point is None:
            base = self._price(decodes, C0, prefill, 0)
            context = decodes * (C1 - C0)
            reach = prefill * D1
            longer = self._price(decodes, C1, prefill, 0) if decodes else base
            further = self._price(decodes, C0, prefill, D1) if prefill else base
            both = self._price(decodes, C1, prefill, D1) if decodes and prefill else base
            point = self._points[(decodes, prefill)] = (
                base,
                (longer - base) / context if decodes else 0.0,
                (further - base) / reach if prefill else 0.0,
                (both - longer - further + base) / (context * reach)
                if decodes and prefill else 0.0,
            )
        return point

    def coefficients(self, decodes: int, prefill: int) -> tuple[float, float, float, float]:
        """(a, b, c, d) such that a step of `decodes` decodes with S tokens of context in all
        and `prefill` prompt tokens reaching R positions takes a + b S + c R + d S R seconds:
        the four corners' figures around (decodes, prefill), interpolated, made once."""
        key = (decodes, prefill)
        found = self.made.get(key)
        if found is not None:
            return found
        d0, d1, wd = _bracket(decodes)
        p0, p1, wp = _bracket(prefill)
        base = per_context = per_reach = cross = 0.0
        for d, weight_d in ((d0, 1 - wd), (d1, wd)):
            for p, weight_p in ((p0, 1 - wp), (p1, wp)):
                weight = weight_d * weight_p
                if weight:
                    corner = self._point(d, p)
                    base += weight * corner[0]
                    per_context += weight * corner[1]
                    per_reach += weight * corner[2]
                    cross += weight * corner[3]
        offset = decodes * C0  # the corners' figures are at decode context C0
        found = self.made[key] = (
            base - per_context * offset + self.overhead.of(decodes, prefill), per_context,
            per_reach - cross * offset, cross)
        return found

    def time_s(self, decodes: int, decode_context: float, prefill: int = 0,
               prefill_reach: float = 0.0) -> float:
        """One step: `decodes` sequences with `decode_context` tokens of context in all, and
        `prefill` prompt tokens reaching `prefill_reach` earlier positions in all (s)."""
        if not decodes and not prefill:
            return 0.0
        a, b, c, d = self.coefficients(decodes, prefill)
        return a + b * decode_context + (c + d * decode_context) * prefill_reach

    def decode_run_s(self, decodes: int, decode_context: float, steps: int) -> float:
        """`steps` decode steps in a row, every context growing by one token a step (s):
        the time is linear in the context, so the run is its mean step times its length."""
        if steps <= 0 or not decodes:
            return 0.0
        a, b, _, _ = self.coefficients(decodes, 0)
        return steps * (a + b * (decode_context + decodes * (steps - 1) / 2))

    def chunk_run_s(self, decodes: int, decode_context: float, prefill: int, done: int,
                    steps: int) -> float:
        """`steps` steps in a row, each with `decodes` decodes (their contexts growing by a
        token a step) and the next `prefill` tokens of one prompt of which `done` are
        already computed: the sum of time_s over the run, in closed form (s)."""
        if steps <= 0:
            return 0.0
        a, b, c, d = self.coefficients(decodes, prefill)
        # Step j has context S0 + decodes j and reach prefill (done + prefill j).
        s0, s1 = decode_context, decodes
        r0, r1 = prefill * done, prefill * prefill
        ones = steps
        js = steps * (steps - 1) / 2
        squares = (steps - 1) * steps * (2 * steps - 1) / 6
        return (a * ones + b * (s0 * ones + s1 * js) + c * (r0 * ones + r1 * js)
                + d * (s0 * r0 * ones + (s0 * r1 + s1 * r0) * js + s1 * r1 * squares))


@lru_cache(maxsize=64)
def _points(gpu: Gpu, model: Model, tp: int, precision: Precision, layout: str, all_reduce: str,
            exchange: str) -> dict[tuple[int, int], tuple[float, float, float, float]]:
    """The grid points one setup has priced, kept for every table of it."""
    return {}


def _bracket(value: int) -> tuple[int, int, float]:
    """The grid points around `value` and its weight toward the upper one."""
    if not 0 <= value < GRID[-1]:
        raise ValueError(f"{value} is outside the step table's grid (0 to {GRID[-1] - 1})")
    index = bisect.bisect_right(GRID, value) - 1
    low, high = GRID[index], GRID[index + 1]
    return low, high, (value - low) / (high - low)


@lru_cache(maxsize=64)
def step_table(gpu: Gpu, model: Model, tp: int, precision: Precision, layout: str = "tp",
               all_reduce: str = "auto", overhead: StepOverhead = NO_OVERHEAD,
               exchange: str = "all_to_all") -> StepTable:
    """The table for this setup, made once: its priced points serve every later run."""
    return StepTable(gpu, model, tp, precision, layout, all_reduce, overhead, exchange)
