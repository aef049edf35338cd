"""The prefix-cache sim's last request: one prefill behind a long cached prefix.

The prompt-caching article prices 1,024 new tokens behind a 31,744-token cached prefix
(Llama 3.1 8B, one H100) with this metric, so the page states the sim's figure, not a guess.
"""

from __future__ import annotations

import pytest

from sims import prefix_cache
from sims.physics import GPUS, MODELS, prefill

# One user whose tenth turn sends 32,768 tokens: the history before the last message
# (32,768 - 1,008 tokens, less the reply's last sampled token) fills 1,984 full blocks of
# 16, so 31,744 tokens are found and 1,024 computed.
LONG_CHAT = dict(users=1, turns=10, system_prompt_tokens=4256, user_tokens=1008,
                 reply_tokens=2048, block_size=16)


def test_the_last_request_of_the_long_chat_computes_1024_tokens_behind_31744_cached() -> None:
    last = prefix_cache.simulate(**LONG_CHAT)["tables"][0]["rows"][-1]
    assert (last["sent"], last["cached"], last["computed"]) == (32768, 31744, 1024)


def test_last_prefill_is_the_physics_price_of_that_request() -> None:
    summary = prefix_cache.simulate(**LONG_CHAT)["summary"]
    expected = prefill(GPUS["h100"], MODELS["llama-3.1-8b"], 1024, cached_tokens=31744).time_s
    assert summary["last_prefill_s_with_cache"] == pytest.approx(expected, abs=1e-5)


def test_attending_to_the_cached_prefix_is_not_free() -> None:
    """The cached keys still cost attention: well above a bare 1,024-token prefill, far
    below the whole 32,768-token one."""
    summary = prefix_cache.simulate(**LONG_CHAT)["summary"]
    bare = prefill(GPUS["h100"], MODELS["llama-3.1-8b"], 1024).time_s
    whole = prefill(GPUS["h100"], MODELS["llama-3.1-8b"], 32768).time_s
    assert 1.5 * bare < summary["last_prefill_s_with_cache"] < whole / 10


def test_at_the_defaults_the_last_request_is_the_eighth_users_fourth_turn() -> None:
    result = prefix_cache.simulate()
    last = result["tables"][0]["rows"][-1]
    assert (last["user"], last["turn"], last["computed"]) == (8, 4, 112)
    expected = prefill(GPUS["h100"], MODELS["llama-3.1-8b"], 112, cached_tokens=1888).time_s
    assert result["summary"]["last_prefill_s_with_cache"] == pytest.approx(expected, abs=1e-5)
