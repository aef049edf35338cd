"""Disaggregated set-ups, priced simply: a prefill pool and a decode pool of like replicas.

What this estimate takes into account: prefill replicas run prompts only, up to the token
budget a step (a queue of prompts as M/D/1 at the budget's throughput; the first token
comes from there); each request's KV cache then goes to a decode replica over the network
(each GPU sends its own shard at once, `physics.scale_out_time`), which adds that transfer
and a step's wait to its first gap between tokens; decode replicas run decode steps only,
with no prompt interfering (s0(n) of sims.planning.estimate). The pools are sized apart for
the load: prefill replicas for the first-token target, decode replicas for the per-token
target; their ratio is the result, not a knob.

What it leaves out, and why these set-ups are never recommended, only listed with their
estimate: `serve` runs one aggregated replica and cannot run a pair of pools, so nothing
here is checked against it. Also left out: the KV transfer's contention with other traffic
on the network, a decode replica's admission when its cache is full, and routing between
the pools (requests are taken as spread evenly).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from sims.physics import Gpu, Work, memory_fit, scale_out_time
from sims.planning.estimate import BISECTIONS, Curve, Target


class Pools(NamedTuple):
    """Per-replica rates each pool serves within the target, and what binds each."""

    prefill_rate: float
    decode_rate: float
    decode_n: float
    ttft_s: float
    tpot_s: float
    binding: str


def transfer_s(gpu: Gpu, curve: Curve, gpus: int, layout: str) -> float:
    """One request's KV cache (its prompt), each GPU's shard over its own network link."""
    model, precision = curve.pricer.model, curve.pricer.precision
    shard = memory_fit(gpu, model, 1, round(curve.traffic.isl), gpus, precision,
                       layout).kv_per_gpu_bytes
    return scale_out_time(gpu, shard)


def _prefill_s(curve: Curve, tokens: float, budget: int) -> float:
    seconds, done = 0.0, 0
    tokens = max(1, round(tokens))
    while done < tokens:
        take = min(budget, tokens - done)
        seconds += curve.pricer.price([Work(take, done, logit_tokens=1)]).time_s
        seconds += curve.overhead.of(0, take)
        done += take
    return seconds


class Prefill(NamedTuple):
    """A prefill replica: the highest rate within the first-token target, and the first
    token's time there (at the target's percentile)."""

    rate: float
    ttft_s: float


def prefill_pool(curve: Curve, target: Target, budget: int) -> Prefill | None:
    """A prefill replica's capacity (M/D/1 over full prompt-only steps), None if even an
    idle one misses the first-token target."""
    isl = curve.traffic.isl
    full = min(budget, max(1, round(isl)))
    per_step = _prefill_s(curve, full, budget)
    service = isl * per_step / full  # one prompt's share of full prompt-only steps
    first = _prefill_s(curve, curve.traffic.isl_at_share, budget)
    spare = (target.ttft_s - curve.engine.request_overhead_s - first - per_step / 2)
    if spare <= 0:
        return None
    load = 2 * spare / (service + 2 * spare)  # M/D/1: load / (2 (1 - load)) service = spare
    return Prefill(load / service, first + per_step / 2)


def pools(curve: Curve, target: Target, transfer: float, max_batch: int, budget: int,
          prefill: Prefill | None) -> Pools | None:
    """The two pools' per-replica capacities, or None if either meets nothing."""
    if prefill is None:
        return None
    decoding = max(1.0, curve.traffic.osl - 1)
    limit = min(float(min(max_batch, budget) * curve.ranks), curve.kv_sequences())

    def tpot(n: float) -> float:
        s0 = curve.decode_at(n)
        return s0 + (transfer + s0) / decoding

    if limit < 1 or tpot(1.0) > target.tpot_s:
        return None
    low, high = 1.0, 2.0  # doubling first: price no step beyond the first that misses
    while high < limit and tpot(high) <= target.tpot_s:
        low, high = high, high * 2
    high = min(high, limit)
    if tpot(high) <= target.tpot_s:
        low = high
    else:
        for _ in range(BISECTIONS):
            mid = (low + high) / 2
            low, high = (mid, high) if tpot(mid) <= target.tpot_s else (low, mid)
    s0 = curve.decode_at(low)
    decode_rate = low / (decoding * s0)
    binding = ("decode pool: KV memory or batch limit" if low >= limit
               else "decode pool: memory bandwidth")
    return Pools(prefill.rate, decode_rate, low, prefill.ttft_s, tpot(low), binding)


def replicas(rate: float, capacity: float) -> int:
    return max(1, math.ceil(rate / capacity - 1e-9))
