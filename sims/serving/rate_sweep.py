"""The goodput sim's model: one scenario served at many rates, and what each run gives.

`Scenario.run` serves the scenario's requests at one rate (sims.serving.replica) and measures each
request against the SLO; `sweep_rates` spreads the sweep around the replica's saturation
estimate; `capacity` reads the highest rate that keeps the attainment target off the sweep.
sims/goodput.py declares the inputs and puts the summary together; sims/goodput_charts.py
draws the runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from sims.kit import memo
from sims.physics import Gpu, Model, Precision
from sims.serving.kv_space import KvSpace
from sims.serving.replica import Policy, Served, serve
from sims.serving.step_table import NO_OVERHEAD, StepOverhead, StepTable, step_table
from sims.serving.workload import Request, percentile

RATE_POINTS = 8
SWEEP_LOW, SWEEP_HIGH = 0.25, 2.0  # the sweep's range, as multiples of the saturation estimate


class Slo(NamedTuple):
    ttft_s: float
    tpot_s: float
    target: float


class Run(NamedTuple):
    """One rate's outcome, per request and in aggregate."""

    rate: float
    requests: tuple[Request, ...]  # arrivals at rate 1: divide by `rate`
    served: Served
    ttft: list[float]  # per request; -1 if refused
    tpot: list[float]  # per request; 0 for a one-token answer, -1 if refused
    met: list[bool]  # both SLOs
    ttft_attainment: float  # share of requests within the first-token SLO
    tpot_attainment: float  # ...within the per-token SLO
    throughput_rps: float  # see Scenario.run
    goodput_rps: float
    # Median and 99th percentile of the served requests' TTFT and TPOT (0, 0 if none served)
    ttft_percentiles: tuple[float, float]
    tpot_percentiles: tuple[float, float]

    @property
    def attainment(self) -> float:
        """Share of requests meeting both SLOs."""
        return sum(self.met) / len(self.met)


@dataclass(frozen=True)
class Scenario:
    """Everything a run needs but the rate."""

    gpu: Gpu
    model: Model
    tp: int
    precision: Precision
    requests: tuple[Request, ...]  # at rate 1 (`workload.draw`)
    policy: Policy
    slo: Slo
    space: KvSpace
    layout: str = "tp"  # or "ep": experts spread, attention data-parallel
    # What an engine adds (sims.serving.engines): its all-reduce, per-step overheads, the
    # time a request takes to reach the scheduler and its token exchange under expert
    # parallelism; the defaults are the GPU's steps alone.
    all_reduce: str = "auto"
    overhead: StepOverhead = NO_OVERHEAD
    intake_s: float = 0.0
    exchange: str = "all_to_all"

    @cached_property
    def table(self) -> StepTable:
        return step_table(self.gpu, self.model, self.tp, self.precision, self.layout,
                          self.all_reduce, self.overhead, self.exchange)

    def run(self, rate: float) -> Run:
        """Serve the requests at `rate`. Throughput and goodput are as serving benchmarks
        count them: requests completed (all, or those within the SLO) over the run's
        duration, from the first arrival to the last token."""
        served, ttft, tpot, tails = _measured(self.requests, self.policy, self.table, rate,
                                              self.intake_s)
        # Held against the SLO in whole lists: the latencies are the run's (kept with it),
        # only these comparisons are the SLO's, and a slider on the SLO redoes just them. A
        # refused request (latencies -1) meets no SLO.
        refused = served.refused
        early = [wait <= self.slo.ttft_s and not no for wait, no in zip(ttft, refused, strict=True)]
        steady = [gap <= self.slo.tpot_s and not no for gap, no in zip(tpot, refused, strict=True)]
        met = [a and b for a, b in zip(early, steady, strict=True)]
        done, good = len(ttft) - sum(refused), sum(met)
        duration = max(served.finished)  # the first request arrives at 0
        per_second = 1 / duration if duration > 0 else 0.0
        count = len(self.requests)
        return Run(rate, self.requests, served, ttft, tpot, met, sum(early) / count,
                   sum(steady) / count, done * per_second, good * per_second, *tails)

    def saturation_rps(self, prompt_mean: float, output_mean: float) -> float:
        """The arrival rate at which the replica is never idle: with as many requests
        decoding as the batch limit and the KV cache allow (each holding its prompt and half
        its answer on average), every second goes to decode steps for every request's
        answer and to the extra time prompt tokens add to those steps."""
        decodes, held = saturated_decodes(self.policy, prompt_mean, output_mean)
        context = decodes * held
        prompt_room = max(1, self.policy.token_budget - decodes)
        decode_s = self.table.time_s(decodes, context)
        per_prompt_token = (self.table.time_s(decodes, context, prompt_room, 0.0)
                            - decode_s) / prompt_room
        return 1 / (output_mean * decode_s / decodes + prompt_mean * per_prompt_token)


def saturated_decodes(policy: Policy, prompt_mean: float, output_mean: float
                      ) -> tuple[int, float]:
    """The requests decoding at once in a replica that is never idle (as many as the batch
    limit, the token budget and the KV room allow) and the context each holds on average
    (its prompt and half its answer)."""
    held = prompt_mean + output_mean / 2
    by_memory = policy.kv_slots / (held + policy.window_slots)
    limit = min(policy.max_batch, policy.token_budget)
    return max(1, int(min(limit, by_memory))), held


# Two changes' worth of runs: the sweep and the chosen rate, now and before.
RUNS_KEPT = 2 * (RATE_POINTS + 1)


@memo.kept(maxsize=RUNS_KEPT)
def _measured(requests: tuple[Request, ...], policy: Policy, table: StepTable, rate: float,
              intake_s: float
              ) -> tuple[Served, list[float], list[float],
                         tuple[tuple[float, float], tuple[float, float]]]:
    """`serve`, remembered, with its requests' latencies: TTFT and TPOT as Run keeps them
    (-1 if refused; TPOT 0 for a one-token answer), and the median and 99th percentile of
    each (the sweep's charts read them off every run on every change).

    A run and its latencies depend on the traffic, the replica and the rate alone, not on
    the SLO nor on which rate the reader picked: moving one of those (the page's main
    controls) serves one run or none instead of the sweep's nine, and moving an input back
    serves nothing. `serve` keeps no state, so a remembered run is the run it would make;
    its lists are only read (Scenario.run, goodput_charts)."""
    served = serve(requests, policy, table, rate, intake_s=intake_s)
    refused = served.refused
    ttft = [-1.0 if no else first - request.arrival / rate
            for request, first, no in zip(requests, served.first_token, refused, strict=True)]
    tpot = [-1.0 if no else ((last - first) / (request.output_tokens - 1)
                             if request.output_tokens > 1 else 0.0)
            for request, first, last, no in zip(requests, served.first_token, served.finished,
                                                 refused, strict=True)]
    return served, ttft, tpot, (_median_and_tail(ttft), _median_and_tail(tpot))


def _median_and_tail(values: list[float]) -> tuple[float, float]:
    """Median and 99th percentile of the served requests' `values` (0, 0 if none)."""
    ordered = sorted(v for v in values if v >= 0)
    return (percentile(ordered, 0.5), percentile(ordered, 0.99)) if ordered else (0., 0.)


def sweep_rates(saturation: float) -> list[float]:
    """RATE_POINTS rates evenly spread over [SWEEP_LOW, SWEEP_HIGH] x the estimate."""
    span = SWEEP_HIGH - SWEEP_LOW
    return [saturation * (SWEEP_LOW + span * i / (RATE_POINTS - 1)) for i in range(RATE_POINTS)]


def capacity(runs: list[Run], target: float, share: str = "attainment") -> float:
    """Highest rate whose attainment (`share`: "attainment" for both SLOs, or
    "ttft_attainment", "tpot_attainment" for one) stays at or above `target`: interpolated
    between the last swept rate that keeps it and the first that does not; 0 if the first
    misses it, the highest swept rate if none does (a lower bound)."""
    shares = [getattr(run, share) for run in runs]
    if shares[0] < target:
        return 0.0
    for index in range(1, len(runs)):
        if shares[index] < target:
            before, after = shares[index - 1], shares[index]
            low, high = runs[index - 1].rate, runs[index].rate
            return low + (before - target) / (before - after) * (high - low)
    return runs[-1].rate
