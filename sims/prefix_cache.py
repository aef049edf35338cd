"""Prefix caching: users share a system prompt over several turns; what does each request compute?

Every user's turn sends the whole conversation: the shared system prompt, every earlier
message and reply, and the new message. Without a prefix cache the engine computes all of
it, every time. With one (vLLM's automatic prefix caching; see `sims.serving.kv_blocks`), the KV
of every full block already computed stays in memory, replies included because decoding
wrote them, and a request computes only what follows its longest cached prefix.

Requests go round by round: every user's first turn, then every user's second, and so on.
The cache here never evicts (one engine with room to spare), so what it holds at the end
is the peak. Bytes and seconds are for the chosen model on one GPU of the chosen kind, with
the checkpoint's own formats and a BF16 KV cache (`sims.physics`).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from sims.kit import charts
from sims.kit.contract import Choice, Number, simulation
from sims.physics import GPUS, Gpu, Model, Work, memory_fit, precision_for, prefill
from sims.physics.accuracy import step_regime
from sims.physics.model_choice import model_for, model_inputs
from sims.serving.kv_blocks import PrefixCache, Segment

TITLE = "Compute the system prompt once"

INPUTS = (
    Number("users", "Users", default=8, min=1, max=16, unit="users",
           help="Each user holds one conversation; all of them share the system prompt."),
    Number("turns", "Turns per user", default=4, min=1, max=10, unit="turns",
           help="How many messages each user sends, one reply after each."),
    Number("system_prompt_tokens", "System prompt", default=1000, min=0, max=8192,
           unit="tokens", help="The instructions every request starts with, identical for all."),
    Number("user_tokens", "Each user message", default=100, min=1, max=2048, unit="tokens"),
    Number("reply_tokens", "Each reply", default=200, min=1, max=2048, unit="tokens",
           help="Decoded by the model; its KV stays cached for the user's next turn."),
    Number("block_size", "KV block size", default=16, min=1, max=256, unit="tokens",
           help="The cache reuses whole blocks only (vLLM's default block size is 16)."),
    *model_inputs("llama-3.1-8b"),
    Choice("gpu", "GPU", "h100", tuple(GPUS), help="One GPU serves every request."),
)

METRICS = {
    "prompt_tokens": "Prompt tokens sent, all requests (tokens)",
    "computed_tokens_without_cache": "Prompt tokens computed without a prefix cache (tokens)",
    "computed_tokens_with_cache": "Prompt tokens computed with the prefix cache (tokens)",
    "hit_rate": "Share of prompt tokens served from the cache",
    "kv_cache_bytes": "KV the cache holds at the end, in BF16 (bytes)",
    "prefill_s_without_cache": "Prefill time of all requests without the cache (s)",
    "prefill_s_with_cache": "Prefill time of all requests with the cache (s)",
    "last_prefill_s_with_cache": "Prefill time of the last request with the cache (s)",
    "fits": "Weights and the cache's KV fit on the GPU",
    "memory": "Memory the GPU needs, against what it can use",
    "accuracy": "Regime of the last request's prefill and the measured error there",
}

FOUND = ("nothing", "the shared system prompt", "this user's conversation so far")


class Request(NamedTuple):
    """One turn as the engine saw it. (A tuple: cheaper to build than a frozen dataclass.)"""

    number: int
    user: int
    turn: int
    sent: int
    cached: int
    found: str
    prefill_s_without: float
    prefill_s_with: float

    @property
    def computed(self) -> int:
        return self.sent - self.cached


def conversation(user: int, turns: int, system_tokens: int, user_tokens: int,
                 reply_tokens: int) -> list[Segment]:
    """One user's conversation through `turns` messages and replies, as segments."""
    segments = [Segment("system", system_tokens)] if system_tokens else []
    for turn in range(1, turns + 1):
        segments.append(Segment(("message", user, turn), user_tokens))
        segments.append(Segment(("reply", user, turn), reply_tokens))
    return segments


def run(users: int, turns: int, system_prompt_tokens: int, user_tokens: int,
        reply_tokens: int, block_size: int, gpu: Gpu, model: Model
        ) -> tuple[list[Request], PrefixCache]:
    """Serve every request in order against one cache; return what each one found."""
    cache = PrefixCache(block_size)
    system_blocks = system_prompt_tokens // block_size * block_size
    chats = [
        conversation(u, turns, system_prompt_tokens, user_tokens, reply_tokens)
        for u in range(users)
    ]
    head = 1 if system_prompt_tokens else 0

    @functools.cache  # users in one round send equal prompts and find equal prefixes
    def prefill_s(computed: int, cached: int) -> float:
        return prefill(gpu, model, computed, cached_tokens=cached).time_s

    requests = []
    # Every user's prompt at a turn has the same length: the system prompt, the earlier
    # turns' messages and replies, and this turn's message.
    for turn in range(1, turns + 1):
        sent = system_prompt_tokens + turn * user_tokens + (turn - 1) * reply_tokens
        for user, chat in enumerate(chats):
            prompt = chat[: head + 2 * turn - 1]  # up to and including this turn's message
            cached = cache.match(prompt, sent)
            found = FOUND[0] if cached == 0 else FOUND[1] if cached <= system_blocks else FOUND[2]
            requests.append(Request(
                number=len(requests) + 1, user=user + 1, turn=turn, sent=sent, cached=cached,
                found=found,
                prefill_s_without=prefill_s(sent, 0),
                prefill_s_with=prefill_s(sent - cached, cached),
            ))
            # Decoding the reply wrote its KV too, except for the last sampled token.
            cache.store(prompt + [chat[head + 2 * turn - 1]], sent + reply_tokens - 1)
    return requests, cache


def _per_request_chart(requests: list[Request], note: str) -> dict:
    rows = [
        {"request": r.number, "user": r.user, "turn": r.turn, "part": part, "tokens": tokens}
        for r in requests
        for part, tokens in (("computed", r.computed), ("from cache", r.cached))
    ]
    return charts.chart(
        charts.titled("What each request reuses and what it computes", note),
        "One bar per request in arrival order, split into prompt tokens served from the "
        "prefix cache and prompt tokens the GPU had to compute.",
        rows,
        mark={"type": "bar"},
        encoding={
            "x": {"field": "request", "type": "ordinal", "title": "Request (arrival order)",
                  "axis": {"labelOverlap": True}},
            "y": {"field": "tokens", "type": "quantitative", "stack": True,
                  "title": "Prompt tokens (tokens)"},
            "color": {"field": "part", "type": "nominal", "title": None,
                      "scale": {"domain": ["from cache", "computed"]},
                      "legend": {"orient": "top"}},
            "order": {"field": "part", "sort": "descending"},
            "tooltip": [
                {"field": "request", "title": "Request"},
                {"field": "user", "title": "User"},
                {"field": "turn", "title": "Turn"},
                {"field": "part", "title": "Part"},
                {"field": "tokens", "title": "Tokens"},
            ],
        },
    )


def _cumulative_chart(requests: list[Request]) -> dict:
    rows, without, with_cache = [], 0, 0
    for r in requests:
        without += r.sent
        with_cache += r.computed
        rows.append({"request": r.number, "cache": "without prefix cache", "tokens": without})
        rows.append({"request": r.number, "cache": "with prefix cache", "tokens": with_cache})
    return charts.chart(
        "Prompt tokens computed so far",
        "Running total of prompt tokens the GPU computes, request by request, without and "
        "with a prefix cache.",
        rows,
        mark={"type": "line", "point": len(requests) <= 64},
        encoding={
            "x": {"field": "request", "type": "quantitative", "title": "Request (arrival order)",
                  "scale": {"domain": [1, len(requests)], "nice": False}},
            "y": {"field": "tokens", "type": "quantitative",
                  "title": "Prompt tokens computed (tokens)", **charts.value_axis(without)},
            "color": {"field": "cache", "type": "nominal", "title": None,
                      "scale": {"domain": ["without prefix cache", "with prefix cache"]},
                      "legend": {"orient": "top"}},
            "tooltip": [
                {"field": "request", "title": "After request"},
                {"field": "cache", "title": "Cache"},
                {"field": "tokens", "title": "Tokens computed"},
            ],
        },
    )


@simulation(INPUTS)
def simulate(
    *,
    users: int,
    turns: int,
    system_prompt_tokens: int,
    user_tokens: int,
    reply_tokens: int,
    block_size: int,
    model: str, model_config: str,
    gpu: str,
) -> dict:
    chip, shape = GPUS[gpu], model_for(model, model_config)
    requests, cache = run(users, turns, system_prompt_tokens, user_tokens, reply_tokens,
                          block_size, chip, shape)
    fit = memory_fit(chip, shape, 1, cache.tokens)
    sent = sum(r.sent for r in requests)
    computed = sum(r.computed for r in requests)
    last = requests[-1]
    regime = step_regime(chip, shape, precision_for(chip, shape), 1, "tp",
                         [Work(last.computed, last.cached, logit_tokens=1)])
    summary = {
        "prompt_tokens": sent,
        "computed_tokens_without_cache": sent,
        "computed_tokens_with_cache": computed,
        "hit_rate": round((sent - computed) / sent, 4),
        "kv_cache_bytes": shape.kv_bytes(cache.tokens),
        "prefill_s_without_cache": round(sum(r.prefill_s_without for r in requests), 4),
        "prefill_s_with_cache": round(sum(r.prefill_s_with for r in requests), 4),
        # One request's time to first token behind a long cached prefix (the last turn of
        # the longest conversation), which the totals above average away.
        "last_prefill_s_with_cache": round(requests[-1].prefill_s_with, 5),
        "fits": fit.fits,
        "memory": fit.reason,
        "accuracy": f"Prefill of the last request ({last.computed:,} tokens computed on "
                    f"{last.cached:,} cached): {regime}",
    }
    table_rows = [
        {"request": r.number, "user": r.user, "turn": r.turn, "sent": r.sent,
         "cached": r.cached, "computed": r.computed, "found": r.found}
        for r in requests
    ]
    return {
        "summary": summary,
        "charts": [_per_request_chart(requests, fit.note), _cumulative_chart(requests)],
        "tables": [{
            "title": "Every request, in arrival order",
            "columns": [
                {"key": "request", "label": "Request"},
                {"key": "user", "label": "User"},
                {"key": "turn", "label": "Turn"},
                {"key": "sent", "label": "Sent (tokens)"},
                {"key": "cached", "label": "Found cached (tokens)"},
                {"key": "computed", "label": "Computed (tokens)"},
                {"key": "found", "label": "Reused"},
            ],
            "rows": table_rows,
        }],
    }
