"""One replica serving a stream of requests: the steps its scheduler plans
(sims.serving.scheduler: iteration-level batching under a token budget and a KV-memory
limit, preemption by recomputation), run and timed on the shared physics.

The contract other sims rely on: `serve(requests, policy, table, rate)` takes requests
sorted by arrival (`sims.serving.workload.Request`, arrival times at one request per
second, divided by `rate`), a `Policy` and a `StepTable` (`sims.serving.step_table`, the
shared physics on a grid), and returns `Served`: per request, in input order, when its
first and last tokens came (s, on the arrivals' clock; -1 if refused) and whether it was
refused; for the run, the preemptions, steps and busy time. It keeps no state between
calls, so a sweep may call it once per rate over the same requests. Latency figures (TTFT,
TPOT, goodput) are the caller's to read off `Served` (sims.serving.rate_sweep does). The
load may be a closed loop of users instead, and the run may keep every gap between tokens
(sims.serving.deploy uses both).

Speed: between events (an arrival, a request finishing, memory running out) a run of
decode-only steps has a fixed batch whose contexts all grow by one token a step, so it is
summed in one go (`StepTable.decode_run_s`) rather than step by step; steps that carry
prompt tokens are priced one by one. Decoding requests are kept on one shared clock (the
count of decode steps), so a run advances every one of them without touching each.
When the cache is full and the head of the queue cannot be admitted, every step preempts
the newest request and runs decodes alone; such steps go back to back (`_run_decodes`),
without the loop's planning, the same steps the loop would take. A test runs the scheduler
one step at a time beside this one (tests/sims/test_load_parts.py).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from typing import NamedTuple

from sims.serving.scheduler import Policy, Schedule
from sims.serving.step_table import StepTable
from sims.serving.workload import Request

__all__ = ["Policy", "Served", "serve"]


class Served(NamedTuple):
    """What happened to each request (times in s; NaN-free: refused requests are listed)."""

    first_token: list[float]  # when each request got its first token (-1 if refused)
    finished: list[float]  # when it got its last (-1 if refused)
    refused: list[bool]
    preemptions: int
    steps: int
    busy_s: float  # time the replica spent running steps
    # Every gap between two tokens of a request, as (seconds, how many tokens came after a
    # gap that long), if kept: one entry per step or run of like steps (at their mean); a
    # preempted request's wait to be readmitted is not among them.
    gaps: tuple[tuple[float, int], ...] = ()
    # When each request was sent (s): its arrival / rate, or in a closed loop when its user
    # sent it; it reached the scheduler an intake time later.
    sent: tuple[float, ...] = ()


def _steps_to_reach(gap: float, first: float, growth: float) -> int:
    """Fewest steps, the first taking `first` s and each `growth` s longer than the one
    before, whose times add up to at least `gap` (at least 1)."""
    if gap <= first:
        return 1
    if growth <= 0:
        return math.ceil(gap / first)
    # j first + growth j (j - 1) / 2 >= gap, solved for j
    half = first - growth / 2
    return max(1, math.ceil((-half + math.sqrt(half * half + 2 * growth * gap)) / growth))


class _Replica(Schedule):
    """A schedule run: each step its plan makes, priced and put on the clock."""

    def __init__(self, requests: Sequence[Request], policy: Policy, table: StepTable,
                 rate: float, concurrency: int = 0, intake_s: float = 0.0,
                 keep_gaps: bool = False, seed: int = 0) -> None:
        super().__init__(requests, policy, table, rate, concurrency, intake_s, seed)
        self.gaps: list[tuple[float, int]] | None = [] if keep_gaps else None
        # (a, b) of StepTable.coefficients(decodes, 0) by decodes: the plain decode steps'
        # cost, looked up on every leap.
        self.decode_cost: dict[int, tuple[float, float]] = {}

    # -- one step -------------------------------------------------------------------

    def _run_prefill_step(self, chunks: list[tuple[int, int]], with_decodes: bool) -> None:
        decodes = self.decoders if with_decodes else 0
        done_prefill, to_prefill = self.done_prefill, self.to_prefill
        tokens = squares = reach = 0
        for request, take in chunks:
            tokens += take
            squares += take * take
            reach += take * done_prefill[request]
        # The table prices the chunks as one of `tokens` tokens: take away the attention
        # that one chunk would do among itself beyond what these chunks do (StepTable).
        reach -= (tokens * tokens - squares) / 2
        context = self.base_sum + decodes * self.clock if decodes else 0
        seconds = self.table.time_s(decodes, context, tokens, reach)
        if decodes and self.gaps is not None:
            self.gaps.append((seconds, decodes))
        self.now += seconds
        self.busy += seconds
        self.steps += 1
        if decodes:
            self.clock += 1
        for request, take in chunks:
            done_prefill[request] += take
            if done_prefill[request] == to_prefill[request]:
                self._start_decoding(request)
        if decodes and self.finishing and self.finishing[0][0] <= self.clock:
            self._retire()

    def _run_chunks(self) -> bool:
        """While the oldest unfinished prompt fills what the decodes leave of the budget,
        every step is alike (the decodes and its next chunk), whatever arrives meanwhile:
        run those steps in one go, up to the step before its last chunk or the next event
        (a request finishing, the cache full). False if fewer than two such steps."""
        decodes = self.decoders
        chunk = self.policy.token_budget - decodes
        request = self.prefilling[0]
        done = self.done_prefill[request]
        steps = (self.to_prefill[request] - done - 1) // chunk
        context = self.base_sum + decodes * self.clock
        if decodes:
            steps = min(steps, self.finishing[0][0] - self.clock,
                        (self.policy.kv_slots - self.reserved - context) // decodes)
        if steps < 2:
            return False
        seconds = self.table.chunk_run_s(decodes, context, chunk, done, steps)
        if decodes and self.gaps is not None:
            self.gaps.append((seconds / steps, decodes * steps))
        self.now += seconds
        self.busy += seconds
        self.steps += steps
        self.done_prefill[request] = done + steps * chunk
        if decodes:
            self.clock += steps
            self._retire()
        return True

    def _run_decodes(self) -> None:
        """Decode-only steps up to the next event (a request finishing, the cache full, a
        request arriving), in one go; then the same again for as long as the loop's next
        pass would only run decodes: the queue empty, or its head not admitted (no room for it
        in the cache or the batch).

        No prompt is under way here: the loop decodes alone only when it planned no chunk,
        and a prompt under way always gets one (the batch limit is within the budget).

        Past saturation that is most of a run: the cache full, each leap ends in a
        preemption or a request finishing, thousands a run. So the leaps go back to back
        here, with the scheduler's counts in locals, and each is the step the loop takes:
        the same arrivals taken in, the same room made, the same steps."""
        arrivals, refused, waiting, finishing = (self.arrivals, self.refused, self.waiting,
                                                 self.finishing)
        active, decoding, base = self.active, self.decoding, self.base
        to_prefill, finish_at, admitted = self.to_prefill, self.finish_at, self.admitted
        policy, coefficients, decode_cost = self.policy, self.table.coefficients, self.decode_cost
        kv_slots, windows, chunked = policy.kv_slots, self.windows, policy.chunked
        count, limit = len(arrivals), self.limit
        now, clock, busy, steps_run = self.now, self.clock, self.busy, self.steps
        decodes, base_sum, reserved = self.decoders, self.base_sum, self.reserved
        running, index, preemptions = self.running, self.next_arrival, self.preemptions
        gaps, closed = self.gaps, self.loop is not None
        while True:
            context = base_sum + decodes * clock
            steps = finishing[0][0] - clock
            room = (kv_slots - reserved - context) // decodes
            if room < steps:
                steps = room if room > 1 else 1
            elif steps < 1:
                steps = 1
            cost = decode_cost.get(decodes)
            if cost is None:
                cost = decode_cost[decodes] = coefficients(decodes, 0)[:2]
            a, b = cost
            # An arrival matters only to an empty queue: behind a waiting request it waits
            # (in a closed loop, one not yet sent has no time).
            if closed:
                self.next_due(index)
            if not waiting and index < count and arrivals[index] < math.inf:
                steps = min(steps, _steps_to_reach(arrivals[index] - now, a + b * context,
                                                   b * decodes))
            seconds = steps * (a + b * (context + decodes * (steps - 1) / 2))
            if gaps is not None:
                gaps.append((seconds / steps, decodes * steps))
            now += seconds
            busy += seconds
            steps_run += steps
            clock += steps
            while finishing and finishing[0][0] <= clock:  # done with these steps: _retire
                at, request = heapq.heappop(finishing)
                if not decoding[request] or finish_at[request] != at:
                    continue  # preempted since: a stale entry
                decoding[request] = active[request] = False
                decodes -= 1
                running -= 1
                base_sum -= base[request]
                reserved -= windows[request]
                self.generated[request] = self.outputs[request]
                self._ended(request, now)
            if closed:
                self.next_due(index)
            while index < count and arrivals[index] <= now:
                if closed:
                    self.take_in(index)
                if not refused[index]:
                    waiting.append(index)
                index += 1
            if not running:
                break
            # The loop's next pass, in its order: it would admit the head of the queue
            # (prefill-first: before making room), make room, then decode again unless it
            # admits the head now (chunked: beside the decodes; the budget has room for it,
            # since every running request decodes and the batch limit is within the budget).
            if (not chunked and waiting and running < limit and reserved + base_sum
                    + decodes * clock + to_prefill[waiting[0]] + windows[waiting[0]] <= kv_slots):
                break
            while running and reserved + base_sum + decodes * (clock + 1) > kv_slots:
                # Preempt the newest, as _preempt does: it is decoding, since no prompt is
                # under way here, and it is never the last (a lone request fits, or it
                # would have been refused).
                while not active[admitted[-1]]:
                    admitted.pop()
                victim = admitted.pop()
                decoding[victim] = active[victim] = False
                running -= 1
                decodes -= 1
                base_sum -= base[victim]
                reserved -= windows[victim]
                to_prefill[victim] = base[victim] + clock + 1
                self.generated[victim] = self.outputs[victim] - (finish_at[victim] - clock)
                self.done_prefill[victim] = 0
                waiting.appendleft(victim)
                preemptions += 1
            if (chunked and waiting and running < limit
                    and reserved + base_sum + decodes * (clock + 1) + to_prefill[waiting[0]]
                    + windows[waiting[0]] <= kv_slots):
                break
        self.now, self.clock, self.busy, self.steps = now, clock, busy, steps_run
        self.decoders, self.base_sum, self.reserved = decodes, base_sum, reserved
        self.running, self.next_arrival, self.preemptions = running, index, preemptions

    # -- the loop --------------------------------------------------------------------

    def serve(self) -> None:
        arrivals, refused, waiting = self.arrivals, self.refused, self.waiting
        policy = self.policy
        chunked, kv_slots = policy.chunked, policy.kv_slots
        count = len(arrivals)
        while True:
            index, now = self.next_arrival, self.now
            self.next_due(index)
            while index < count and arrivals[index] <= now:
                self.take_in(index)
                if not refused[index]:
                    waiting.append(index)
                index += 1
            self.next_arrival = index
            if not self.running and not waiting:
                if index == count:
                    return
                self.now = arrivals[index]
                continue
            if not chunked and waiting:
                chunks = self._plan_prefill_first()
                if chunks:
                    self._run_prefill_step(chunks, with_decodes=False)
                    continue
            decoders = self.decoders
            if self.reserved + self.base_sum + decoders * (self.clock + 1) > kv_slots:
                self._make_room()
            if chunked and self.prefilling:
                first = self.prefilling[0]
                # Cheap test first: a run needs a prompt that fills at least two more steps.
                if (self.to_prefill[first] - self.done_prefill[first] > 2 * (
                        policy.token_budget - self.decoders) and self._run_chunks()):
                    continue
            chunks = self._plan_chunks() if chunked and (self.prefilling or waiting) else None
            if chunks:
                self._run_prefill_step(chunks, with_decodes=True)
            elif self.decoders:
                self._run_decodes()
            else:  # cannot happen: an empty replica admits any request it did not refuse
                raise RuntimeError("the replica is idle with requests waiting")


def serve(requests: Sequence[Request], policy: Policy, table: StepTable, rate: float = 1.0,
          concurrency: int = 0, intake_s: float = 0.0, keep_gaps: bool = False, seed: int = 0
          ) -> Served:
    """Run the replica over `requests` until every one is done. Their arrival times are
    for a rate of one request per second; `rate` speeds them up (the gaps are divided).
    With `concurrency` users in a closed loop instead, the arrival times are unused: each
    user sends its next request when its last one ends. Each request reaches the scheduler
    `intake_s` after it is sent (in a closed loop, that on average: Schedule)."""
    replica = _Replica(requests, policy, table, rate, concurrency, intake_s, keep_gaps, seed)
    replica.serve()
    return Served(replica.first, replica.finished, list(replica.refused), replica.preemptions,
                  replica.steps, replica.busy, tuple(replica.gaps or ()),
                  tuple(at - intake for at, intake in zip(replica.arrivals, replica.intake,
                                                           strict=True)))
