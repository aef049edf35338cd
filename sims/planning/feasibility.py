"""Exact reasons to rule a set-up out, each one a fact `serve` would confirm.

Cheap checks that need no load: the GPU has a price; the group is one the physics can price
(`check_group`); the weights leave room for a KV cache (`kv_space`, as `serve` sizes it);
the KV room of one attention rank holds the workload's longest request (the very requests
`serve` would draw; it refuses the run otherwise); and a request alone, with nothing queued
and nothing else in its steps, does not already miss the target: its prefill alone (the
chunks `serve` would run, before any intake time, by more than the step table's tolerance) at the
target's percentile against the first-token target, its decode steps at batch one against
the per-token target. No load can do better than a request alone, so a set-up that fails
here fails at every load.

A disaggregated set-up also needs a way to send the KV cache between its pools: the
catalogue's network figure for the GPU.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

from sims.kit.contract import InputError
from sims.physics import Gpu, Model, Precision, Work, check_group
from sims.physics.pricing import pricer
from sims.planning.estimate import Target
from sims.serving.engines import Engine
from sims.serving.kv_space import KvSpace, kv_space
from sims.serving.workload import Request, percentile

# How far `serve`'s step table may be from the physics it interpolates (tests hold it within
# a few percent): a lone request is ruled out only when it misses by more than this.
TABLE_TOLERANCE = 0.1


class Lone(NamedTuple):
    """A request alone: lower bounds on its latencies at the target's percentile."""

    prefill_s: float
    tpot_s: float


def group_reason(gpu: Gpu, model: Model, gpus: int, layout: str) -> str | None:
    """Why the physics cannot price this group, or None."""
    try:
        check_group(gpu, model, gpus, layout)
    except InputError as error:
        return f"not a group the physics prices: {str(error).split(': ', 1)[1]}"
    return None


def memory_reason(gpu: Gpu, model: Model, gpus: int, space: KvSpace,
                  requests: tuple[Request, ...]) -> str | None:
    """The weights do not fit, or the KV room of one attention rank holds less than the
    longest request; None if both fit."""
    if not space.fits:
        usable = space.usable_bytes + space.weights_bytes
        return (f"the weights do not fit: {model.name}'s take {space.weights_bytes / 1e9:.1f} "
                f"GB of the {usable / 1e9:.1f} GB usable on each of {gpus} {gpu.name}, "
                f"leaving no room for KV")
    longest = max(r.prompt_tokens + r.output_tokens for r in requests)
    room = space.token_slots()
    if longest + space.window_slots(longest) > room:
        return (f"the KV cache holds fewer than one request of this length: one attention "
                f"rank holds {room:,} tokens, the longest request {longest:,} "
                f"({space.reason(gpu.name)})")
    return None


def _order_statistics(values: list[float], share: float) -> tuple[int, int, float]:
    """Indices into sorted values around the `share` quantile, and the weight of the upper
    (workload.percentile's interpolation)."""
    position = share * (len(values) - 1)
    low = math.floor(position)
    return low, min(low + 1, len(values) - 1), position - low


def lone(gpu: Gpu, model: Model, gpus: int, layout: str, precision: Precision,
         engine: Engine, budget: int, requests: tuple[Request, ...], share: float) -> Lone:
    """A request alone: its prefill's chunks at the percentile over the requests (a longer
    prompt never prefills faster) and its decode at batch one with its prompt's context plus
    half its answer, each step priced as `serve`'s step table prices it up to the table's
    interpolation (TABLE_TOLERANCE), with the engine's overhead per step."""
    price = pricer(gpu, model, precision, gpus, layout, engine.all_reduce_on(gpu),
                   engine.exchange_on(gpu, model, gpus)).price
    overhead = engine.step_overhead
    prompts, context = lone_lengths(requests, share)
    low, high, weight = _order_statistics(prompts, share)

    def prefill(tokens: int) -> float:
        seconds, done = 0.0, 0
        while done < tokens:
            take = min(budget, tokens - done)
            seconds += price([Work(take, done, logit_tokens=1)]).time_s + overhead.of(0, take)
            done += take
        return seconds

    first = prefill(prompts[low])
    last = prefill(prompts[high]) if high != low else first
    tpot = 0.0
    if context is not None:
        tpot = price([Work(1, context, count=1)]).time_s + overhead.of(1, 0)
    return Lone(first + weight * (last - first), tpot)


@lru_cache(maxsize=8)
def lone_lengths(requests: tuple[Request, ...], share: float
                 ) -> tuple[list[int], int | None]:
    """The prompts in order, and the context a lone decode is priced at (the `share`
    percentile of prompt plus half the answer; None when no answer has a second token):
    the same for every set-up of a plan, so worked out once."""
    prompts = sorted(r.prompt_tokens for r in requests)
    contexts = sorted(r.prompt_tokens + (r.output_tokens - 2) / 2 for r in requests
                      if r.output_tokens > 1)
    context = max(0, math.floor(percentile(contexts, share))) if contexts else None
    return prompts, context


def lone_reason(found: Lone, target: Target, transfer_s: float = 0.0, osl: float = 2
                ) -> str | None:
    """Why a request alone already misses the target, or None."""
    pct = f"p{share_label(target.share)}"
    if found.prefill_s * (1 - TABLE_TOLERANCE) > target.ttft_s:
        return (f"the target is out of reach at any load: a request alone takes "
                f"{found.prefill_s:.3g} s to prefill ({pct} prompt, no queue, no intake), "
                f"beyond the {target.ttft_s:.3g} s first-token target")
    tpot = found.tpot_s + transfer_s / max(1.0, osl - 1)
    if tpot * (1 - TABLE_TOLERANCE) > target.tpot_s:
        return (f"the target is out of reach at any load: a request alone takes "
                f"{tpot * 1000:.3g} ms per output token ({pct}, batch of one), beyond the "
                f"{target.tpot_s * 1000:.3g} ms target")
    return None


def share_label(share: float) -> str:
    """0.9 -> "90", 0.995 -> "99.5"."""
    return f"{share * 100:g}"


def transfer_reason(gpu: Gpu) -> str | None:
    """Why a disaggregated set-up of this GPU cannot send its KV cache, or None."""
    if gpu.scale_out_bytes_per_s is None:
        return (f"disaggregation needs a network between the pools, and the catalogue has no "
                f"network figure for the {gpu.name}")
    return None


def space_of(gpu: Gpu, model: Model, gpus: int, precision: Precision, layout: str) -> KvSpace:
    return kv_space(gpu, model, gpus, precision, layout)
