"""A steady-state estimate of what one replica serves within a latency target.

`serve` runs every step of a few hundred requests (about 0.1 s a run); a plan weighs over
a thousand set-ups at every load, so it cannot run `serve` for each. This estimate prices a
handful of steps per set-up instead and reasons about the steady state (sims.planning.verify
then runs the cheapest candidates through `serve` itself). With `n` requests decoding:

- a decode step takes s0(n) (every sequence at the mean context, isl + osl / 2, with the
  engine's per-step overhead), and each prompt token riding in a step adds c(n) (the step
  with a chunk of P prompt tokens, less the step without, over P);
- prompts arrive at rate r and each request decodes osl - 1 tokens, so by Little's law
  n = r (osl - 1) s, and the mean step carries r isl s prompt tokens: s = s0 + c r isl s.
  Together: s(n) = s0(n) + c(n) isl n / (osl - 1), and r(n) = n / ((osl - 1) s(n));
- a request's time per output token is s0 plus the prompts that arrive while it decodes
  (Poisson, n of them on average), each adding c isl, spread over its osl - 1 tokens: at
  percentile p, TPOT = s0 + c isl Q_p(n) / (osl - 1), Q_p the Poisson quantile;
- its first token: the engine's intake, half a step of waiting for the step under way, a
  queue for the token budget (M/D/1 at the budget's load), then its own prefill, k chunks
  of what the budget leaves beside the decodes, in steps of s0 plus c per prompt token.

The highest load is the largest n at which both percentiles meet the target and the batch
limit and the KV cache hold n sequences; found by doubling n, then bisecting between the
priced points (linear between them). The estimate leaves out what makes `serve` slower
(preemption, uneven lengths, a closed loop's bursts), so it is optimistic, which is what
pruning needs: a set-up the estimate rules out cannot meet the target in `serve` (tests
check this), while one it admits is run through `serve` before it is recommended.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from sims.physics import Gpu, Model, Precision, Work
from sims.physics.pricing import pricer
from sims.planning.tails import poisson_quantile
from sims.serving.engines import Engine
from sims.serving.kv_space import KvSpace

# The smallest load the search tries, as requests decoding at once: below it a replica is
# idle nearly all the time and latencies are a lone request's.
LOWEST_N = 1 / 64
BISECTIONS = 10
# The prompt-token cost c(n) changes slowly with n (the chunk's own work dominates it): it
# is priced at powers of C_SPACING only, and interpolated in log n between them.
C_SPACING = 32


def burst_requests(users: float) -> int:
    """Requests a verification run of a closed loop sends (sims.planning.verify's rule,
    here so that the estimate knows what share of them the first round is)."""
    return min(MOST_REQUESTS, max(VERIFY_REQUESTS, 3 * math.ceil(users)))


VERIFY_REQUESTS = 200  # per run (closed loops: at least three rounds of the users)
MOST_REQUESTS = 600


class Target(NamedTuple):
    """The latency target: first token and per-token time at a percentile (a share)."""

    ttft_s: float
    tpot_s: float
    share: float  # 0.9 for p90


class Traffic(NamedTuple):
    """The workload's mean lengths and the prompt at the target's percentile."""

    isl: float
    osl: float
    isl_at_share: float


class Point(NamedTuple):
    """The estimate at one load (n requests decoding at once)."""

    n: float
    rate: float  # requests per second
    concurrency: float  # requests in flight (waiting, prefilling or decoding)
    ttft_s: float  # at the target's percentile
    tpot_s: float  # at the target's percentile
    tpot_mean_s: float
    queue_s: float  # the first token's wait for the budget
    fits: bool  # within the batch limit and KV room
    stable: bool  # the budget keeps up with the prompts


class Capacity(NamedTuple):
    """The highest load one replica serves within the target, and what stops it there."""

    point: Point | None  # None: no load meets the target, by the estimate
    binding: str
    curve: tuple[Point, ...]  # the priced loads, for the frontier


class Curve:
    """One physics configuration's decode step and prompt-token cost against n, priced at
    powers of two when first asked for, and linear between them."""

    def __init__(self, gpu: Gpu, model: Model, gpus: int, layout: str, precision: Precision,
                 engine: Engine, space: KvSpace, traffic: Traffic, chunk: int,
                 closed: bool = False) -> None:
        self.pricer = pricer(gpu, model, precision, gpus, layout, engine.all_reduce_on(gpu),
                             engine.exchange_on(gpu, model, gpus))
        self.overhead = engine.step_overhead
        self.engine, self.space, self.traffic = engine, space, traffic
        self.ranks = gpus if layout == "ep" else 1
        self.context = round(traffic.isl + traffic.osl / 2)
        self.chunk = max(1, chunk)
        self._decode: dict[int, float] = {}
        self._prompt: dict[int, float] = {}
        self.closed = closed
        self._prefill_token_s: float | None = None
        self._reach: dict[int, float] = {}

    def reach_token_s(self, prompt: float) -> float:
        """What a prompt token of a `prompt`-token prompt adds for attending to the tokens
        before it in earlier chunks, on average: a chunk at half the prompt's length, less
        the same chunk at its start, per token (attention work grows with the position, so
        a long prompt's later chunks cost more than its first)."""
        key = round(prompt)
        found = self._reach.get(key)
        if found is None:
            middle = max(0, round(prompt / 2 - self.chunk / 2))
            if middle == 0:
                found = 0.0
            else:
                far = self.pricer.price([Work(self.chunk, middle, logit_tokens=1)]).time_s
                found = max(0.0, far / self.chunk - self.prefill_token_s())
            self._reach[key] = found
        return found

    def prefill_token_s(self) -> float:
        """A prompt token's share of a prompt-only step of `chunk` tokens (s)."""
        if self._prefill_token_s is None:
            step = self.pricer.price([Work(self.chunk, 0, logit_tokens=1)]).time_s
            self._prefill_token_s = step / self.chunk
        return self._prefill_token_s

    def burst_s(self, users: float, share: float) -> float:
        """A closed loop's first round: every user sends at once, as a benchmark's
        --max-concurrency run starts, so the last of them waits for every prompt before
        its own. Its first tokens spread over users x isl prompt tokens' time; they are
        users / requests of the run's requests, so the run's `share` quantile lies that far
        into the spread (0 if the round is too small a part of the run to reach it)."""
        if not self.closed or users <= 1:
            return 0.0
        part = min(1.0, users / burst_requests(users))
        reach = 1 - (1 - share) / part
        per_token = self.prefill_token_s() + self.reach_token_s(self.traffic.isl)
        return max(0.0, reach) * users * self.traffic.isl * per_token

    def decode_s(self, n: int) -> float:
        """s0 at a power of two n."""
        found = self._decode.get(n)
        if found is None:
            work = [Work(1, self.context, count=n)]
            found = self._decode[n] = (self.pricer.price(work).time_s
                                       + self.overhead.of(n, 0))
        return found

    def prompt_token_s(self, n: int) -> float:
        """c at a power of C_SPACING n: a chunk's step with n decodes, less theirs alone."""
        found = self._prompt.get(n)
        if found is None:
            work = [Work(1, self.context, count=n), Work(self.chunk, 0, logit_tokens=1)]
            mixed = self.pricer.price(work).time_s + self.overhead.of(n, self.chunk)
            found = self._prompt[n] = max(0.0, (mixed - self.decode_s(n)) / self.chunk)
        return found

    def step(self, n: float) -> tuple[float, float]:
        """(s0, c) at any n >= LOWEST_N: s0 linear between the powers of two around n, c
        linear in log n between the powers of C_SPACING."""
        return self.decode_at(n), self._prompt_at(n)

    def decode_at(self, n: float) -> float:
        if n <= 1:
            return self.decode_s(1)
        low = 1 << (math.floor(math.log2(n)))
        if low == n:
            return self.decode_s(low)
        a0, a1 = self.decode_s(low), self.decode_s(2 * low)
        return a0 + (n - low) / low * (a1 - a0)

    def _prompt_at(self, n: float) -> float:
        if n <= 1:
            return self.prompt_token_s(1)
        steps = math.log(n, C_SPACING)
        below = math.floor(steps)
        low = C_SPACING ** below
        c0 = self.prompt_token_s(low)
        if low == n:
            return c0
        c1 = self.prompt_token_s(low * C_SPACING)
        return c0 + (steps - below) * (c1 - c0)

    def kv_sequences(self) -> float:
        """Sequences of the mean held context the KV room holds (all ranks)."""
        held = (self.traffic.isl + self.traffic.osl / 2
                + self.space.window_slots(self.traffic.isl + self.traffic.osl))
        return self.space.token_slots() * self.ranks / held

    def point(self, n: float, target: Target, max_batch: int, budget: int) -> Point:
        """The estimate with n requests decoding (see the module's docstring)."""
        isl, osl = self.traffic.isl, self.traffic.osl
        s0, c = self.step(n)
        longest = self.traffic.isl_at_share
        c_own = c + self.reach_token_s(longest)  # the percentile prompt's own tokens
        c += self.reach_token_s(isl)
        decoding = max(1.0, osl - 1)
        s = s0 + c * isl * n / decoding
        rate = n / (decoding * s)
        tpot_p = s0 + c * isl * poisson_quantile(n, target.share) / decoding
        chunk = max(1.0, budget - n / self.ranks)  # what one rank's budget leaves a prompt
        load = rate * isl * s / (chunk * self.ranks)
        stable = load < 1
        steps = math.ceil(self.traffic.isl_at_share / chunk)
        prefill = steps * s0 + c_own * longest
        queue = (s / 2 * min(1.0, n) + load / (2 * (1 - load)) * isl / chunk * s
                 if stable else math.inf)
        ttft = self.engine.request_overhead_s + queue + prefill
        users = rate * (ttft + decoding * s)
        if math.isfinite(users):
            ttft = max(ttft, self.burst_s(users, target.share))
        limit = min(max_batch, budget) * self.ranks
        fits = n <= limit and n <= self.kv_sequences()
        return Point(n, rate, users, ttft, tpot_p, s, queue, fits, stable)

    def meets(self, point: Point, target: Target) -> bool:
        return (point.fits and point.stable and point.ttft_s <= target.ttft_s
                and point.tpot_s <= target.tpot_s)

    def capacity(self, target: Target, max_batch: int, budget: int) -> Capacity:
        """The largest n meeting the target (doubling, then bisection), and the binding
        limit: the first constraint the next step up breaks."""
        curve: list[Point] = []
        best: Point | None = None
        n = 1.0
        low_n = LOWEST_N
        while True:
            point = self.point(n, target, max_batch, budget)
            curve.append(point)
            if not self.meets(point, target):
                break
            best, low_n = point, n
            n *= 2
        high_n = n
        if best is None:  # below one request decoding: bisect down to LOWEST_N
            low_point = self.point(LOWEST_N, target, max_batch, budget)
            if not self.meets(low_point, target):
                return Capacity(None, self._binding(low_point, target, max_batch, budget),
                                tuple(curve))
            best, low_n = low_point, LOWEST_N
        for _ in range(BISECTIONS):
            mid = (low_n + high_n) / 2
            point = self.point(mid, target, max_batch, budget)
            if self.meets(point, target):
                best, low_n = point, mid
            else:
                high_n = mid
        above = self.point(high_n, target, max_batch, budget)
        return Capacity(best, self._binding(above, target, max_batch, budget), tuple(curve))

    def _binding(self, point: Point, target: Target, max_batch: int, budget: int) -> str:
        """Which limit the load just above the highest one breaks, in the planner's words."""
        if not point.fits:
            if point.n > self.kv_sequences():
                return "KV memory"
            return f"queueing (batch limit {min(max_batch, budget) * self.ranks})"
        if not point.stable or (point.ttft_s > target.ttft_s
                                and point.queue_s > (point.ttft_s - point.queue_s)):
            return "queueing"
        n = max(1, 1 << max(0, math.floor(math.log2(max(1.0, point.n)))))
        if point.ttft_s > target.ttft_s:
            cost = self.pricer.price([Work(self.chunk, 0, logit_tokens=1)])
        else:
            cost = self.pricer.price([Work(1, self.context, count=n)])
        if cost.collective_s >= max(cost.compute_s, cost.memory_s):
            return "collectives"
        return "compute" if cost.compute_s >= cost.memory_s else "memory bandwidth"
