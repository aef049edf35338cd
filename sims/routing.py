"""Routing: the same multi-turn sessions against the same fleet under three load balancers.

Each replica is one engine with its own prefix cache (`sims.serving.kv_blocks`), limited to
`cache_tokens_per_replica` tokens. Sessions send their turns in a random interleaving
(seeded): a session's turns stay in order, but which session speaks next is drawn, as it
would be with real users. A turn sends the system prompt, the conversation so far and a
new message, and afterwards the replica that served it holds the KV of all of that plus
the reply (in full blocks, less the reply's last sampled token).

Policies:

- round_robin: request i goes to replica i mod replicas, whoever sent it.
- sticky: a session always goes to the replica its ID hashes to (CRC-32 of a random
  session ID, modulo the replica count).
- cache_aware: the replica whose cache holds the longest prefix of the prompt, ties to the
  least-loaded; unless that replica is overloaded by SGLang's router's two-part test,
  with our thresholds: it has more than BALANCE_REL_THRESHOLD times the requests of the
  least-loaded replica and more than BALANCE_ABS_THRESHOLD more. Then the least-loaded
  replica takes it. The router reads each replica's cache exactly; SGLang's keeps an
  approximate copy of what it has routed.

Load is the number of requests a replica has been sent so far: this sim has no clock, so
it stands in for the in-flight count a real router watches. TTFT is the prefill of the
uncached part of the prompt on top of the cached part (`sims.physics.prefill`), for the
chosen model on one GPU of the chosen kind per replica, with no queueing: the cache's effect
alone.
"""

from __future__ import annotations

import functools
import random
import zlib
from dataclasses import dataclass
from typing import NamedTuple

from sims.kit import charts
from sims.kit.contract import Choice, Number, simulation
from sims.physics import GPUS, Work, memory_fit, precision_for, prefill
from sims.physics.accuracy import step_regime
from sims.physics.model_choice import model_for, model_inputs
from sims.routing_charts import POLICY_LABELS, bar_chart, load_chart
from sims.serving.kv_blocks import PrefixCache, Segment

TITLE = "The load balancer decides the hit rate"

BLOCK_SIZE = 16  # vLLM's default KV block size, in tokens

# The cache-aware router's overload test, in the form SGLang's router uses (both parts
# must hold). SGLang's relative default is 1.5; its absolute default counts dozens of
# requests in flight on a production fleet, so ours is scaled to a fleet this small.
BALANCE_REL_THRESHOLD = 1.5
BALANCE_ABS_THRESHOLD = 2

POLICIES = ("round_robin", "sticky", "cache_aware")

INPUTS = (
    Number("replicas", "Replicas", default=4, min=2, max=8, unit="replicas",
           help="Engines behind the load balancer, each with its own prefix cache."),
    Number("sessions", "Sessions", default=16, min=1, max=24, unit="sessions",
           help="Conversations, each with its own history."),
    Number("turns", "Turns per session", default=4, min=1, max=6, unit="turns"),
    Number("system_prompt_tokens", "System prompt", default=1000, min=0, max=4096,
           unit="tokens", help="Shared by every session."),
    Number("user_tokens", "Each user message", default=200, min=1, max=1024, unit="tokens"),
    Number("reply_tokens", "Each reply", default=300, min=1, max=1024, unit="tokens"),
    Number("cache_tokens_per_replica", "Prefix cache per replica", default=32000, min=10000,
           max=400000, step=1000, unit="tokens",
           help="KV each replica can keep; the summary says whether the GPU has room for it."),
    Number("seed", "Random seed", default=1, min=0, max=999,
           help="Draws the session IDs and the order in which sessions speak."),
    *model_inputs("llama-3.1-8b"),
    Choice("gpu", "GPU", "h100", tuple(GPUS), help="One GPU per replica."),
)

METRICS = {
    **{
        f"{policy}_{metric}": f"{POLICY_LABELS[policy]}: {label}"
        for policy in POLICIES
        for metric, label in (
            ("hit_rate", "share of prompt tokens served from cache"),
            ("load_imbalance", "busiest replica's requests over the mean"),
            ("mean_ttft_s", "mean TTFT, no queueing (s)"),
        )
    },
    "cache_aware_spills": "Cache-aware: requests sent away from their best prefix by the "
                          "load bound (requests)",
    "system_prompt_share": "Share of prompt tokens in the system prompt's full blocks",
    "no_cache_mean_ttft_s": "Mean TTFT if nothing were cached (s)",
    "fits": "Weights and a full prefix cache fit on each replica's GPU",
    "memory": "Memory each replica's GPU needs, against what it can use",
    "accuracy": "Regime of a mean cache-aware prefill and the measured error there",
}


class Request(NamedTuple):
    """One turn of one session, as every policy sees it. (A tuple: cheap to build.)"""

    session: int
    turn: int
    prompt: tuple[Segment, ...]
    tokens: int  # the prompt's length
    reply: Segment
    # What the replica that served it holds afterwards, as `PrefixCache.store` takes it:
    # prompt and reply, less the reply's last sampled token (it never went through the
    # model). Worked out once here, for all three policies.
    kept: tuple[tuple[Segment, ...], int]


@dataclass(frozen=True)
class Outcome:
    """One policy's run: where each request went and what it found cached there."""

    replica: tuple[int, ...]
    cached: tuple[int, ...]
    spills: int


def arrivals(sessions: int, turns: int, system_tokens: int, user_tokens: int,
             reply_tokens: int, rng: random.Random) -> list[Request]:
    """Every turn of every session, sessions interleaved at random, turns in order."""
    order = [s for s in range(sessions) for _ in range(turns)]
    rng.shuffle(order)
    history: list[list[Segment]] = [
        [Segment("system", system_tokens)] if system_tokens else [] for _ in range(sessions)
    ]
    length = [system_tokens] * sessions  # tokens in each session's history so far
    spoken = [0] * sessions
    requests = []
    for session in order:
        spoken[session] = turn = spoken[session] + 1
        past = history[session]
        past.append(Segment(("message", session, turn), user_tokens))
        reply = Segment(("reply", session, turn), reply_tokens)
        prompt = tuple(past)
        tokens = length[session] + user_tokens
        length[session] = tokens + reply_tokens
        kept = (*prompt, reply), tokens + reply_tokens - 1
        requests.append(Request(session, turn, prompt, tokens, reply, kept))
        past.append(reply)
    return requests


def round_robin(requests: list[Request], replicas: int) -> list[int]:
    """Request i goes to replica i mod replicas, whoever sent it."""
    return [index % replicas for index in range(len(requests))]


def sticky(requests: list[Request], replicas: int, session_ids: list[int]) -> list[int]:
    """Each session to the replica its ID hashes to."""
    home = [zlib.crc32(f"{sid:016x}".encode()) % replicas for sid in session_ids]
    return [home[request.session] for request in requests]


def route(requests: list[Request], replicas: int, capacity_blocks: int,
          chosen: list[int]) -> Outcome:
    """Send every request to the replica a cache-blind policy chose for it (`chosen`,
    one per request); each replica's cache serves and learns."""
    caches = [PrefixCache(BLOCK_SIZE, capacity_blocks) for _ in range(replicas)]
    cached = []
    for (_, _, prompt, tokens, _, kept), replica in zip(requests, chosen, strict=True):
        cache = caches[replica]
        cached.append(cache.match(prompt, tokens))
        cache.store(*kept)
    return Outcome(tuple(chosen), tuple(cached), 0)


def route_cache_aware(requests: list[Request], replicas: int, capacity_blocks: int) -> Outcome:
    """Each request to the replica whose cache holds the longest prefix of its prompt, ties
    to the least-loaded (then the lowest-numbered); to the least-loaded replica instead
    when the load bound finds the chosen one overloaded (a spill, if it had more cached)."""
    caches = [PrefixCache(BLOCK_SIZE, capacity_blocks) for _ in range(replicas)]
    lookups = [cache.match for cache in caches]
    load = [0] * replicas
    chosen, cached, spills = [], [], 0
    for _, _, prompt, tokens, _, kept in requests:
        matches = [match(prompt, tokens) for match in lookups]
        longest = max(matches)
        best = matches.index(longest)
        for replica in range(best + 1, replicas):
            if matches[replica] == longest and load[replica] < load[best]:
                best = replica
        least = min(load)
        if (load[best] - least > BALANCE_ABS_THRESHOLD
                and load[best] > BALANCE_REL_THRESHOLD * least):
            idlest = load.index(least)  # the first of the least-loaded
            spills += longest > matches[idlest]
            best = idlest
        cached.append(matches[best])
        caches[best].store(*kept)
        load[best] += 1
        chosen.append(best)
    return Outcome(tuple(chosen), tuple(cached), spills)


@simulation(INPUTS)
def simulate(
    *,
    replicas: int,
    sessions: int,
    turns: int,
    system_prompt_tokens: int,
    user_tokens: int,
    reply_tokens: int,
    cache_tokens_per_replica: int,
    seed: int,
    model: str, model_config: str,
    gpu: str,
) -> dict:
    chip, shape = GPUS[gpu], model_for(model, model_config)
    fit = memory_fit(chip, shape, 1, cache_tokens_per_replica)
    rng = random.Random(seed)
    session_ids = [rng.getrandbits(64) for _ in range(sessions)]
    requests = arrivals(sessions, turns, system_prompt_tokens, user_tokens, reply_tokens, rng)
    capacity = cache_tokens_per_replica // BLOCK_SIZE
    outcomes = {
        "round_robin": route(requests, replicas, capacity, round_robin(requests, replicas)),
        "sticky": route(requests, replicas, capacity, sticky(requests, replicas, session_ids)),
        "cache_aware": route_cache_aware(requests, replicas, capacity),
    }

    @functools.cache  # many requests share a (computed, cached) pair
    def ttft_s(computed: int, cached: int) -> float:
        return prefill(chip, shape, computed, cached_tokens=cached).time_s

    sent_tokens = [r.tokens for r in requests]
    sent = sum(sent_tokens)
    mean_load = len(requests) / replicas
    summary: dict[str, float | int] = {}
    load_rows, hit_rows, ttft_rows = [], [], []
    for policy, outcome in outcomes.items():
        label = POLICY_LABELS[policy]
        hit_rate = sum(outcome.cached) / sent
        per_replica = [outcome.replica.count(r) for r in range(replicas)]
        computed = [tokens - c for tokens, c in zip(sent_tokens, outcome.cached, strict=True)]
        mean_ttft = sum(map(ttft_s, computed, outcome.cached)) / len(requests)
        summary[f"{policy}_hit_rate"] = round(hit_rate, 4)
        summary[f"{policy}_load_imbalance"] = round(max(per_replica) / mean_load, 4)
        summary[f"{policy}_mean_ttft_s"] = round(mean_ttft, 5)
        hit_rows.append({"policy": label, "hit_rate": hit_rate})
        ttft_rows.append({"policy": label, "ttft_ms": mean_ttft * 1e3})
        load_rows += [{"policy": label, "replica": r + 1, "requests": n}
                      for r, n in enumerate(per_replica)]
    summary["cache_aware_spills"] = outcomes["cache_aware"].spills
    shared = system_prompt_tokens // BLOCK_SIZE * BLOCK_SIZE
    summary["system_prompt_share"] = round(
        sum(min(shared, (n - 1) // BLOCK_SIZE * BLOCK_SIZE) for n in sent_tokens) / sent, 4)
    summary["no_cache_mean_ttft_s"] = round(
        sum(map(ttft_s, sent_tokens, [0] * len(requests))) / len(requests), 5)
    summary["fits"] = fit.fits
    summary["memory"] = fit.reason
    # The cache-aware policy's mean request: its mean cached prefix and the rest computed.
    reused = sum(outcomes["cache_aware"].cached)
    cached = round(reused / len(requests))
    new = max(1, round((sent - reused) / len(requests)))  # each request computes 1 or more
    regime = step_regime(chip, shape, precision_for(chip, shape), 1, "tp",
                         [Work(new, cached, logit_tokens=1)])
    summary["accuracy"] = (f"Prefill of a mean cache-aware request ({new:,} tokens computed "
                           f"on {cached:,} cached): {regime}")
    summary = {key: summary[key] for key in METRICS}

    return {
        "summary": summary,
        "charts": [
            bar_chart(charts.titled("Prompt tokens served from cache", fit.note),
                       "Share of all prompt tokens each policy found already cached on the "
                       "replica it chose; the dashed line is the system prompt's share.",
                       hit_rows, "hit_rate", "Hit rate (% of prompt tokens)", ".0%",
                       (summary["system_prompt_share"], "system prompt")),
            load_chart(load_rows, mean_load),
            bar_chart("Mean time to first token",
                       f"Mean prefill time of the uncached part of each prompt, {shape.name} "
                       f"on one {chip.name} per replica, no queueing; the dashed line is the "
                       "mean with nothing cached.", ttft_rows, "ttft_ms", "Mean TTFT (ms)", ".1f",
                       (summary["no_cache_mean_ttft_s"] * 1e3, "no cache")),
        ],
    }
