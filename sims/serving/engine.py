"""An iteration-level serving engine: one instance (a model on its tensor-parallel group)
running steps back to back over a stream of requests, as vLLM and SGLang schedule them.

Each step carries every sequence that is decoding (one token each) plus up to a budget of
prompt tokens taken first come, first served from the requests admitted but not yet
prefilled (chunked prefill, Sarathi-Serve's scheme). A request is admitted when the
instance's KV cache has room for it (`max_sequences`); it produces its first token at the
end of the step holding the last slice of its prompt and one more token at the end of every
later step until its reply is done. An instance can also be prefill-only (a request leaves
after its first token, for a prefill pool) or receive requests already prefilled elsewhere
(a decode pool: they join the batch at the next step boundary once their KV has arrived).

Steps are priced by the shared physics, cached on what sets their cost (one clock per
instance shape, `step_clock`, kept for every later run): the number of decoding sequences,
their mean context (to within about 1.5%, at least CONTEXT_BUCKET tokens; attention's cost
is linear in it) and the prompt slices. A stretch of plain decode steps between two events
(an arrival, a reply finishing) costs about the same each time, so it is advanced in one
leap and priced once at its middle context; what a reader is told (first-token times, the
gaps between tokens with how many tokens saw each) is what stepping one at a time gives, to
a fraction of a percent (tests/sims/test_serving_engine.py).
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from sims.physics import Gpu, Model, Precision, Work, step_cost

# A decode batch's mean context is priced to a bucket of this many tokens, or of a 64th to a
# 128th of the context where that is more: attention's share of a step is linear in it.
CONTEXT_BUCKET = 32
_BUCKET_SHIFT = CONTEXT_BUCKET.bit_length() - 1  # CONTEXT_BUCKET == 1 << _BUCKET_SHIFT
assert CONTEXT_BUCKET == 1 << _BUCKET_SHIFT, "the bucket is a power of two"
# Most steps one clock keeps priced. A run prices a few hundred; a clock lives as long as the
# page (step_clock), so a long session of changes would otherwise grow it without end.
PRICED_KEPT = 50_000


class StepClock:
    """Step times of one instance shape (GPU, model, tensor-parallel degree, formats)."""

    def __init__(self, gpu: Gpu, model: Model, tp: int, precision: Precision) -> None:
        self.gpu, self.model, self.tp, self.precision = gpu, model, tp, precision
        self._cache: dict[tuple, float] = {}

    def step_s(self, decodes: int, context_sum: int, slices: tuple[tuple[int, int, bool], ...]
               ) -> float:
        """A step with `decodes` sequences of `context_sum` cached tokens in all, plus prompt
        `slices` of (tokens, tokens already prefilled, is it the prompt's last slice)."""
        mean = 0
        if decodes:  # the mean context, to the nearest bucket
            # 1 << (bits - 7), a 64th to a 128th of the mean, or CONTEXT_BUCKET if that is
            # more (written without max(): this runs for every step of every run)
            shift = (context_sum // decodes).bit_length() - 7
            bucket = 1 << shift if shift > _BUCKET_SHIFT else CONTEXT_BUCKET
            mean = (2 * context_sum + decodes * bucket) // (2 * decodes * bucket) * bucket
        key = (decodes, mean, slices)
        cached = self._cache.get(key)
        if cached is None:
            if len(self._cache) >= PRICED_KEPT:
                self._cache.clear()
            work = [Work(1, mean, count=decodes)] if decodes else []
            work += [Work(tokens, done, logit_tokens=1 if last else 0)
                     for tokens, done, last in slices]
            cached = self._cache[key] = step_cost(self.gpu, self.model, work, self.tp,
                                                  self.precision).time_s
        return cached


@lru_cache(maxsize=64)
def step_clock(gpu: Gpu, model: Model, tp: int, precision: Precision) -> StepClock:
    """The clock for this instance shape, made once: the steps it has priced serve every
    later run (a reader's change to the traffic or the pools reprices nothing), as
    `sims.serving.step_table.step_table` does for the other serving engine."""
    return StepClock(gpu, model, tp, precision)


@dataclass
class Job:
    """One request's life on one instance."""

    index: int
    ready_s: float  # when it can join: its arrival, or its KV's arrival on a decode pool
    prompt_tokens: int
    to_prefill: int  # prompt tokens still to compute here (0 on a decode pool)
    output_tokens: int  # tokens of its reply still to come from this instance
    last_token_s: float = math.nan  # its latest token, for the gap before its next one
    # Filled in by the decode loop:
    finish_tick: int = 0
    base: int = 0  # its context minus the instance's tick count when it joined


@dataclass
class Served:
    """What one instance did: first-token and finish times by request index, and every gap
    between two tokens of one request as (seconds, how many such gaps)."""

    first_token_s: dict[int, float] = field(default_factory=dict)
    finish_s: dict[int, float] = field(default_factory=dict)
    gaps: list[tuple[float, float]] = field(default_factory=list)
    steps: int = 0  # steps priced one by one (mixed) plus plain-decode leaps


def prompt_slices(prefilling: Iterable[Job], budget_tokens: int) -> list[tuple[int, int, bool]]:
    """One step's share of the prompts in prefill, oldest first, within the token budget:
    (tokens computed now, tokens already cached before them, whether this ends the prompt),
    as StepClock.step_s prices them."""
    slices, left = [], budget_tokens
    for job in prefilling:
        take = job.to_prefill if job.to_prefill < left else left
        slices.append((take, job.prompt_tokens - job.to_prefill, take == job.to_prefill))
        left -= take
        if not left:
            break
    return slices


def serve(jobs: Iterable[Job], clock: StepClock, budget_tokens: int, max_sequences: int,
          decode: bool = True) -> Served:
    """Run one instance over `jobs` (any order) until every one is done."""
    if max_sequences < 1:
        raise ValueError("an instance that cannot hold one sequence serves nobody")
    pending = deque(sorted(jobs, key=lambda job: (job.ready_s, job.index)))
    waiting: deque[Job] = deque()  # arrived, no room yet
    prefilling: deque[Job] = deque()  # admitted, prompt not done
    running: list[tuple[int, int, Job]] = []  # heap of (finish tick, index, job)
    fresh: list[Job] = []  # joined the batch from elsewhere: their next gap is their own
    served = Served()
    now, ticks, held, base_sum = 0.0, 0, 0, 0

    def join(job: Job) -> None:
        nonlocal base_sum
        job.base, job.finish_tick = job.prompt_tokens - ticks, ticks + job.output_tokens
        base_sum += job.base
        heapq.heappush(running, (job.finish_tick, job.index, job))

    def retire() -> None:
        nonlocal held, base_sum
        while running and running[0][0] <= ticks:
            _, _, job = heapq.heappop(running)
            served.finish_s[job.index] = now
            held, base_sum = held - 1, base_sum - job.base

    step_s, add_gap = clock.step_s, served.gaps.append
    while pending or waiting or prefilling or running:
        while pending and pending[0].ready_s <= now:
            waiting.append(pending.popleft())
        while waiting and held < max_sequences:
            job, held = waiting.popleft(), held + 1
            if job.to_prefill:
                prefilling.append(job)
            else:
                join(job)
                fresh.append(job)
        if not prefilling and not running:
            now = max(now, pending[0].ready_s)  # idle until the next arrival
            continue
        decodes = len(running)
        if prefilling:  # one step, with prompt slices
            slices = prompt_slices(prefilling, budget_tokens)
            step = step_s(decodes, base_sum + decodes * ticks, tuple(slices))
            steps = 1
        else:  # a leap of plain decode steps, up to the next event
            first = step_s(decodes, base_sum + decodes * ticks, ())
            steps = running[0][0] - ticks
            if pending and held < max_sequences:
                until = math.ceil((pending[0].ready_s - now) / first)
                steps = until if until < steps else steps
                steps = steps if steps > 1 else 1
            step = first if steps < CONTEXT_BUCKET else step_s(
                decodes, base_sum + decodes * (ticks + steps // 2), ())
        start, now, ticks = now, now + steps * step, ticks + steps
        served.steps += 1
        if fresh:
            for job in fresh:  # their first gap runs from their last token elsewhere
                add_gap((start + step - job.last_token_s, 1))
            if decodes:
                add_gap((step, decodes * steps - len(fresh)))
            fresh.clear()
        elif decodes:
            add_gap((step, decodes * steps))
        if prefilling:
            for take, _, last in slices:
                job = prefilling[0]
                job.to_prefill -= take
                if last:
                    prefilling.popleft()
                    served.first_token_s[job.index] = job.last_token_s = now
                    job.output_tokens -= 1
                    if decode and job.output_tokens:
                        join(job)
                    else:
                        served.finish_s[job.index] = now
                        held -= 1
        if running and running[0][0] <= ticks:
            retire()
    return served
