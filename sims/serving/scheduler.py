"""The scheduler of one replica: who is admitted, who is planned into a step, who is
preempted, and what a request's end does to the replica's memory.

The policy is the one Sarathi-Serve and vLLM's current engine run. Every step (one forward
pass) carries, within `token_budget` tokens:

- chunked: one token for every request that is decoding, then prompt tokens: first the
  prompts already started, then new requests from the queue in arrival order, each given
  as much of its prompt as the budget has left (its prefill is cut into chunks);
- prefill-first (chunked off, as vLLM scheduled before chunking): whenever a request waits
  and can be admitted, the step is a prefill of whole prompts (as many as the budget holds,
  always at least one) and nobody decodes; otherwise it is a decode step.

A request is admitted when the running set is under `max_batch` and the KV cache has room
for its whole prompt (engines reserve a prompt's blocks when they admit it). An engine that
never evicts (`reserve`, TensorRT-LLM's default capacity policy, GUARANTEED_NO_EVICT)
admits a request only when the room it will hold at its end, prompt and whole reply, fits
beside what every admitted request will hold at its own: then nothing is ever preempted. A decoding
request adds one token of KV a step; when a step would need more than is free, the most
recently admitted request is preempted: its KV is dropped, it goes back to the head of the
queue, and when readmitted its prompt and the tokens it had generated are prefilled again
(recomputation, vLLM's default). A request that could not fit even alone is refused.

Memory is counted in token slots (`KvSpace.token_slots`), a sequence's sliding windows and
chunks as a fixed number of slots for its life, as many as the length it will reach fills
(a request shorter than a window never holds all of it); blocks are not modelled here
(their waste is kv_memory's subject).
How steps are run and timed is sims.serving.replica's.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Sequence
from typing import NamedTuple

from sims.serving.closed_loop import ClosedLoop
from sims.serving.known import known_requests
from sims.serving.kv_space import KvSpace, along
from sims.serving.step_table import StepTable
from sims.serving.workload import Request


class Policy(NamedTuple):
    """How the replica schedules: its token budget, batch limit, memory and chunking."""

    token_budget: int
    max_batch: int
    kv_slots: int  # token slots of KV room
    window_slots: int  # slots a sequence holds for its full sliding windows and chunks
    chunked: bool
    reserve: bool = False  # admit only what fits to its end (no preemption), else recompute
    # (tokens, slots) of that share for a sequence of `tokens` tokens (KvSpace's
    # window_slot_curve); empty: every sequence holds window_slots
    window_curve: tuple[tuple[int, int], ...] = ()

    def window_for(self, tokens: int) -> int:
        """The slots a sequence that will reach `tokens` tokens holds for its windows, from
        its admission to its end: as much as its longest length fills (a request shorter
        than a window never holds the whole window)."""
        return math.ceil(along(self.window_curve, tokens, self.window_slots))

    @classmethod
    def of_replica(cls, space: KvSpace, ranks: int, token_budget: int, max_batch: int,
                   chunked: bool, reserve: bool = False) -> Policy:
        """A replica's policy from its KV room and its attention ranks (1 under tensor
        parallelism; with attention data-parallel, one per GPU, each with its own budget,
        batch and room): the ranks are scheduled as one pool of all their budgets, batches
        and rooms, a request never split across them."""
        return cls(token_budget * ranks, max_batch * ranks, space.token_slots() * ranks,
                   space.window_slots(), chunked, reserve, space.window_slot_curve())


class Schedule:
    """The scheduler's state while a replica serves one list of requests: its decisions;
    the replica (sims.serving.replica) runs and times the steps they make."""

    def __init__(self, requests: Sequence[Request], policy: Policy, table: StepTable,
                 rate: float, concurrency: int = 0, intake_s: float = 0.0, seed: int = 0
                 ) -> None:
        """Open loop (`concurrency` 0): request i is sent at its arrival / `rate` and reaches
        the scheduler `intake_s` later. Closed loop: `concurrency` users (ClosedLoop, intake
        drawn around `intake_s` with `seed`); the requests' arrival times are unused and
        request i is the i-th to reach the scheduler; `arrivals[i]` is infinite until its
        time is known, and the replica refreshes the next one from the loop."""
        self.requests, self.policy, self.table = requests, policy, table
        count = len(requests)
        known = known_requests(tuple(requests), policy)
        self.loop = ClosedLoop(concurrency, count, intake_s, seed) if concurrency else None
        if self.loop is not None:
            self.arrivals = [math.inf] * count
            self.intake = [0.0] * count  # filled as each is taken in
        else:
            self.arrivals = [arrival / rate + intake_s for arrival in known.arrivals]
            self.intake = [intake_s] * count
        self.outputs = known.outputs  # only read, as are the windows and refusals
        self.first = [-1.0] * count
        self.finished = [-1.0] * count
        self.generated = [0] * count
        self.to_prefill = list(known.prompts)  # prompt (+ tokens, if preempted)
        self.done_prefill = [0] * count
        self.base = [0] * count  # a decoding request's context is base + self.clock
        self.finish_at = [0] * count  # ...and it is done when self.clock reaches this
        self.decoding = [False] * count
        self.active = [False] * count  # admitted and not yet finished or preempted
        self.windows, self.refused = known.windows, known.refused
        if self.loop is not None and any(self.refused):
            raise ValueError("a closed loop needs every request to fit: a refused one would "
                             "never end and its user would wait forever")
        self.committed = 0  # reserve: slots admitted requests will hold at their ends
        self.waiting: deque[int] = deque()
        self.admitted: list[int] = []  # in order of admission (finished ones skipped)
        self.prefilling: list[int] = []  # admitted, prompt not done, in order of admission
        self.finishing: list[tuple[int, int]] = []  # heap of (finish_at, request)
        self.running = 0
        self.clock = 0  # decode steps run so far
        self.decoders = 0
        self.base_sum = 0
        self.reserved = 0  # slots held by prefilling requests and every sequence's windows
        self.limit = min(policy.max_batch, policy.token_budget)
        self.now = 0.0
        self.next_arrival = 0
        self.preemptions = self.steps = 0
        self.busy = 0.0

    # -- memory ----------------------------------------------------------------------

    def _used(self) -> int:
        return self.reserved + self.base_sum + self.decoders * self.clock

    def _preempt(self) -> None:
        admitted = self.admitted
        while not self.active[admitted[-1]]:
            admitted.pop()
        victim = admitted.pop()
        self.active[victim] = False
        self.running -= 1
        window = self.windows[victim]
        if self.decoding[victim]:
            self.decoding[victim] = False
            self.decoders -= 1
            context = self.base[victim] + self.clock
            self.base_sum -= self.base[victim]
            self.reserved -= window
            # Prompt and every token so far, the last one (not yet in the cache) included.
            self.to_prefill[victim] = context + 1
            self.generated[victim] = self.outputs[victim] - (self.finish_at[victim] - self.clock)
        else:
            self.reserved -= self.to_prefill[victim] + window
            self.prefilling.remove(victim)
        self.done_prefill[victim] = 0
        self.waiting.appendleft(victim)
        self.preemptions += 1

    def _make_room(self) -> None:
        """Preempt until the decoding requests' next token each fits."""
        while self.running and self._used() + self.decoders > self.policy.kv_slots:
            self._preempt()

    def _admit_head(self, growth: int) -> int | None:
        """Admit the request at the head of the queue if the batch and the cache have room
        for it (its whole prompt, on top of `growth` slots this step adds); its index."""
        waiting = self.waiting
        if not waiting or self.running >= self.limit:
            return None
        request = waiting[0]
        need = self.to_prefill[request] + self.windows[request]
        if self._used() + growth + need > self.policy.kv_slots:
            return None
        if self.policy.reserve:
            end = self.requests[request].prompt_tokens + self.outputs[request] + (
                self.windows[request])
            if self.committed + end > self.policy.kv_slots:
                return None
            self.committed += end
        waiting.popleft()
        self.active[request] = True
        self.running += 1
        self.admitted.append(request)
        self.prefilling.append(request)
        self.reserved += need
        return request

    # -- one step --------------------------------------------------------------------

    def _plan_chunks(self) -> list[tuple[int, int]]:
        """(request, prompt tokens) for this step's prefill work, within what the budget
        leaves after one token for every decoding request."""
        decoders = self.decoders
        budget = self.policy.token_budget - decoders
        chunks = []
        to_prefill, done_prefill = self.to_prefill, self.done_prefill
        for request in self.prefilling:
            if budget <= 0:
                return chunks
            take = min(budget, to_prefill[request] - done_prefill[request])
            chunks.append((request, take))
            budget -= take
        waiting = self.waiting
        while budget > 0 and waiting:  # (an empty queue admits nobody: no call to ask)
            request = self._admit_head(decoders)
            if request is None:
                break
            take = min(budget, to_prefill[request])
            chunks.append((request, take))
            budget -= take
        return chunks

    def _plan_prefill_first(self) -> list[tuple[int, int]]:
        """Whole prompts from the queue while the budget holds them (at least one)."""
        chunks: list[tuple[int, int]] = []
        budget = self.policy.token_budget
        while self.waiting and (not chunks or self.to_prefill[self.waiting[0]] <= budget):
            request = self._admit_head(0)
            if request is None:
                break
            chunks.append((request, self.to_prefill[request]))
            budget -= self.to_prefill[request]
        return chunks

    # -- a request's end ------------------------------------------------------------

    def _finish(self, request: int) -> None:
        self.active[request] = False
        self.running -= 1
        self.reserved -= self.windows[request]
        self._ended(request, self.now)

    def _ended(self, request: int, now: float) -> None:
        """A request's last token came at `now`: its room promised back, and in a closed
        loop its user's next request sent."""
        self.finished[request] = now
        if self.policy.reserve:
            self.committed -= self.requests[request].prompt_tokens + self.outputs[request] + (
                self.windows[request])
        if self.loop is not None:
            self.loop.send(now)

    def take_in(self, index: int) -> None:
        """Request `index` reaches the scheduler (a closed loop hands it over and says when
        the next one will)."""
        loop = self.loop
        if loop is not None:
            self.intake[index] = loop.take()
            if index + 1 < len(self.arrivals):
                self.arrivals[index + 1] = loop.head()

    def next_due(self, index: int) -> None:
        """Bring the time request `index` reaches the scheduler up to date (a closed loop
        may have sent requests since)."""
        if self.loop is not None and index < len(self.arrivals):
            self.arrivals[index] = self.loop.head()

    def _start_decoding(self, request: int) -> None:
        """A prefill just ended with this step: its token is out; decode the rest."""
        prefilling = self.prefilling
        if prefilling[0] == request:  # the usual case: the oldest prompt ends first
            del prefilling[0]
        else:
            prefilling.remove(request)
        self.generated[request] += 1
        if self.first[request] < 0:
            self.first[request] = self.now
        self.reserved -= self.to_prefill[request]  # held as a decoding context from now
        remaining = self.outputs[request] - self.generated[request]
        if remaining <= 0:
            self._finish(request)
            return
        self.decoding[request] = True
        self.decoders += 1
        self.base[request] = self.to_prefill[request] - self.clock
        self.base_sum += self.base[request]
        self.finish_at[request] = self.clock + remaining
        heapq.heappush(self.finishing, (self.finish_at[request], request))

    def _retire(self) -> None:
        """Decoding requests whose last token came with the steps just run."""
        finishing = self.finishing
        while finishing and finishing[0][0] <= self.clock:
            at, request = heapq.heappop(finishing)
            if not self.decoding[request] or self.finish_at[request] != at:
                continue  # preempted since: a stale entry
            self.decoding[request] = False
            self.decoders -= 1
            self.base_sum -= self.base[request]
            self.generated[request] = self.outputs[request]
            self._finish(request)
