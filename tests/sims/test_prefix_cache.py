"""The shared prefix cache (sims.serving.kv_blocks), the prefix-cache sim, and its page."""

from __future__ import annotations

import hashlib
import random

import pytest
from explainer_pages import rendered

from sims import prefix_cache
from sims.physics import GPUS, MODELS, prefill
from sims.serving.kv_blocks import PrefixCache, Segment
from tests.sims.explainer_pages import opens_at_the_defaults

# --- A literal block-hash cache, as vLLM describes it, to check kv_blocks against ------

class HashedBlocks:
    """Every token materialised; each full block named by sha256(parent name, its tokens);
    LRU eviction, the longest prefix first among blocks last used together."""

    def __init__(self, block_size: int, capacity: int | None) -> None:
        self.block_size, self.capacity = block_size, capacity
        self.blocks: dict[str, tuple[int, int]] = {}  # name -> (last used, depth)
        self.clock = 0

    def names(self, tokens: list[str]) -> list[str]:
        names, parent = [], ""
        for start in range(0, len(tokens) - self.block_size + 1, self.block_size):
            block = "|".join(tokens[start:start + self.block_size])
            parent = hashlib.sha256(f"{parent}/{block}".encode()).hexdigest()
            names.append(parent)
        return names

    def match(self, tokens: list[str]) -> int:
        hit = 0
        for name in self.names(tokens):
            if name not in self.blocks:
                break
            hit += 1
        return min(hit * self.block_size, (len(tokens) - 1) // self.block_size * self.block_size)

    def store(self, tokens: list[str]) -> None:
        self.clock += 1
        for depth, name in enumerate(self.names(tokens)):
            self.blocks[name] = (self.clock, depth)
        excess = 0 if self.capacity is None else len(self.blocks) - self.capacity
        if excess > 0:
            order = sorted(self.blocks, key=lambda n: (self.blocks[n][0], -self.blocks[n][1]))
            for victim in order[:excess]:
                del self.blocks[victim]


def tokens_of(segments: list[Segment]) -> list[str]:
    return [f"{segment.key}:{i}" for segment in segments for i in range(segment.tokens)]


@pytest.mark.parametrize("seed", range(12))
def test_kv_blocks_agrees_with_literal_block_hashing(seed: int) -> None:
    rng = random.Random(seed)
    block_size = rng.choice([1, 3, 4, 16])
    capacity = rng.choice([None, 6, 20, 60])
    fast, literal = PrefixCache(block_size, capacity), HashedBlocks(block_size, capacity)
    shared = [Segment("system", rng.randint(0, 40))]
    chats: list[list[Segment]] = [[] for _ in range(rng.randint(1, 4))]
    for step in range(30):
        user = rng.randrange(len(chats))
        chats[user].append(Segment(("message", user, step), rng.randint(1, 20)))
        prompt = [s for s in shared if s.tokens] + chats[user]
        assert fast.match(prompt) == literal.match(tokens_of(prompt)), step
        reply = Segment(("reply", user, step), rng.randint(1, 20))
        chats[user].append(reply)
        kept = sum(s.tokens for s in prompt) + reply.tokens - rng.choice([0, 1])
        fast.store([*prompt, reply], kept)
        literal.store(tokens_of([*prompt, reply])[:kept])
        assert fast.blocks == len(literal.blocks), step



@pytest.mark.parametrize("seed", range(24))
def test_kv_blocks_agrees_when_a_shorter_prefix_is_used_again(seed: int) -> None:
    """Some blocks of a node used again, not all: they become the newest, the rest keep
    their older recency (the node's blocks then have more than one last-used time)."""
    rng = random.Random(seed)
    block_size = rng.choice([1, 2, 4])
    capacity = rng.choice([8, 16, 40])
    fast, literal = PrefixCache(block_size, capacity), HashedBlocks(block_size, capacity)
    chats: list[list[Segment]] = [[] for _ in range(rng.randint(1, 3))]
    for step in range(40):
        user = rng.randrange(len(chats))
        if chats[user] and rng.random() < 0.5:
            path = chats[user]  # a prefix of what this user sent before, used again
            kept = rng.randint(1, sum(s.tokens for s in path))
        else:
            chats[user].append(Segment(("turn", user, step), rng.randint(1, 24)))
            path = chats[user]
            kept = sum(s.tokens for s in path)
        assert fast.match(path) == literal.match(tokens_of(path)), step
        fast.store(path, kept)
        literal.store(tokens_of(path)[:kept])
        assert fast.blocks == len(literal.blocks), step

def test_match_stops_short_of_the_last_prompt_token() -> None:
    cache = PrefixCache(4)
    prompt = [Segment("a", 8)]
    cache.store(prompt, 8)
    assert cache.match(prompt) == 4  # the last token is recomputed for its logits
    assert cache.match([Segment("a", 8), Segment("b", 1)]) == 8


def test_only_full_blocks_are_shared() -> None:
    cache = PrefixCache(16)
    cache.store([Segment("system", 1000), Segment("alice", 100)], 1100)
    assert cache.match([Segment("system", 1000), Segment("bob", 100)]) == 992
    assert cache.match([Segment("other", 1000)]) == 0
    assert cache.tokens == 1100 // 16 * 16


def test_capacity_evicts_least_recently_used_tail_first() -> None:
    cache = PrefixCache(1, capacity_blocks=10)
    cache.store([Segment("x", 6)], 6)
    cache.store([Segment("y", 6)], 6)  # 12 blocks: x's two deepest go
    assert cache.blocks == 10 and cache.evicted_blocks == 2
    assert cache.match([Segment("x", 6), Segment("z", 1)]) == 4
    assert cache.match([Segment("y", 6), Segment("z", 1)]) == 6
    cache.store([Segment("x", 6)], 4)  # x's first 4 used again: now y is the older
    cache.store([Segment("w", 3)], 3)
    assert cache.match([Segment("y", 6), Segment("z", 1)]) == 3
    assert cache.match([Segment("x", 6), Segment("z", 1)]) == 4


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        PrefixCache(0)
    cache = PrefixCache(4)
    cache.store([Segment("a", 8)], 8)
    with pytest.raises(ValueError, match="changed length"):
        cache.store([Segment("a", 9)], 9)


# --- The sim --------------------------------------------------------------------------

def run(**inputs: object) -> dict:
    return prefix_cache.simulate(**inputs)


def test_summary_names_are_the_contract() -> None:
    result = run()["summary"]
    assert set(result) == set(prefix_cache.METRICS)
    assert {"prompt_tokens", "computed_tokens_without_cache", "computed_tokens_with_cache",
            "hit_rate", "kv_cache_bytes"} <= set(result)
    assert {s.name for s in prefix_cache.INPUTS} == {
        "users", "turns", "system_prompt_tokens", "user_tokens", "reply_tokens", "block_size",
        "model", "model_config", "gpu"}


def test_defaults_by_hand() -> None:
    result = run()
    rows = result["tables"][0]["rows"]
    assert [r["computed"] for r in rows[:9]] == [1100] + [108] * 7 + [104]
    by_turn = {r["turn"]: (r["sent"], r["cached"]) for r in rows[8:]}
    assert by_turn == {2: (1400, 1296), 3: (1700, 1584), 4: (2000, 1888)}
    summary = result["summary"]
    assert summary["prompt_tokens"] == summary["computed_tokens_without_cache"] == 49_600
    assert summary["computed_tokens_with_cache"] == 4_512
    assert summary["hit_rate"] == round(45_088 / 49_600, 4)
    assert summary["kv_cache_bytes"] == pytest.approx(662 * 16 * 131_072, rel=1e-5)
    assert [r["found"] for r in rows[:9]] == (
        ["nothing"] + ["the shared system prompt"] * 7 + ["this user's conversation so far"])


def test_table_lists_every_request() -> None:
    result = run(users=3, turns=5)
    rows = result["tables"][0]["rows"]
    assert len(rows) == 15
    assert [(r["user"], r["turn"]) for r in rows[:4]] == [(1, 1), (2, 1), (3, 1), (1, 2)]
    assert all(r["sent"] == r["cached"] + r["computed"] for r in rows)
    assert {c["key"] for c in result["tables"][0]["columns"]} >= {
        "user", "turn", "sent", "cached", "computed"}


def test_block_size_one_reuses_every_shared_token() -> None:
    rows = run(block_size=1)["tables"][0]["rows"]
    assert rows[1]["cached"] == 1000  # the whole system prompt
    assert {r["computed"] for r in rows if r["turn"] > 1} == {101}  # message + last reply token


def test_coarser_blocks_never_hit_more() -> None:
    rates = [run(block_size=b, system_prompt_tokens=777)["summary"]["hit_rate"]
             for b in (1, 2, 4, 16, 64, 256)]
    assert rates == sorted(rates, reverse=True)


def test_no_system_prompt_and_one_user() -> None:
    alone = run(users=1, turns=1)["summary"]
    assert alone["computed_tokens_with_cache"] == alone["prompt_tokens"] == 1100
    assert alone["hit_rate"] == 0
    shared_nothing = run(system_prompt_tokens=0, turns=1)["summary"]
    assert shared_nothing["hit_rate"] == 0
    later = run(system_prompt_tokens=0, turns=3)["summary"]
    assert later["hit_rate"] > 0


def test_more_users_sharing_means_higher_hit_rate() -> None:
    rates = [run(users=u)["summary"]["hit_rate"] for u in (1, 2, 8, 16)]
    assert rates == sorted(rates)


def test_prefill_time_from_physics() -> None:
    summary = run(users=2, turns=1)["summary"]
    gpu, model = GPUS["h100"], MODELS["llama-3.1-8b"]
    without = 2 * prefill(gpu, model, 1100).time_s
    with_cache = (prefill(gpu, model, 1100).time_s
                  + prefill(gpu, model, 108, cached_tokens=992).time_s)
    assert summary["prefill_s_without_cache"] == pytest.approx(without, abs=1e-4)
    assert summary["prefill_s_with_cache"] == pytest.approx(with_cache, abs=1e-4)


def test_charts_have_units() -> None:
    for chart in run()["charts"]:
        for axis in ("x", "y"):
            assert "(" in chart["encoding"][axis]["title"]


# --- The page -------------------------------------------------------------------------

def rendered_page() -> str:
    return rendered("prefix-cache")


def test_page_starts_at_the_defaults_it_derives_from() -> None:
    defaults = {spec.name: spec.default for spec in prefix_cache.INPUTS}
    assert defaults == {"users": 8, "turns": 4, "system_prompt_tokens": 1000,
                        "user_tokens": 100, "reply_tokens": 200, "block_size": 16,
                        "model": "llama-3.1-8b", "model_config": "", "gpu": "h100"}
    text = rendered_page()
    assert opens_at_the_defaults("prefix-cache", "prefix_cache")
    assert "{{" not in text


@pytest.mark.parametrize("phrase", [
    "send 49,600 prompt tokens",
    "it computes 4,512: a hit rate of 90.9%",
    "holds 1.39 GB of keys and values",
    "1,100 − 992 = 108 tokens",
    "That is 1,299 tokens, 81 full blocks, 1,296 tokens",
    "1,400 − 1,296 = 104",
    "1,700 sent, 1,599 cached tokens make 99 blocks (1,584), 116 computed",
    "2,000 sent, 1,899 make 118 blocks (1,888), 112 computed",
    "8 × (1,100 + 1,400 + 1,700 + 2,000) = 49,600 tokens",
    "1,100 + 7 × 108 + 8 × (104 + 116 + 112) = 4,512",
    "45,088 / 49,600 = 90.9%",
    "2,199 computed tokens, 137 full blocks",
    "62 + 8 × 75 = 662 blocks of 16 tokens is 10,592 tokens",
])
def test_page_figures_hold(phrase: str) -> None:
    assert phrase in rendered_page()


def test_page_prefill_times_are_the_sims() -> None:
    summary = run()["summary"]
    assert (f"take {summary['prefill_s_without_cache']:.2f} s without the cache and "
            f"{summary['prefill_s_with_cache']:.2f} s with it") in rendered_page()


def test_page_arithmetic() -> None:
    """The hand-worked numbers above, recomputed from the model and the sim."""
    rows = run()["tables"][0]["rows"]
    assert (1299 // 16 * 16, 1599 // 16 * 16, 1899 // 16 * 16) == (1296, 1584, 1888)
    assert 2199 // 16 == 137 and 1000 // 16 == 62
    assert round((62 + 8 * 75) * 16 * 131_072 / 1e9, 2) == 1.39
    assert sum(r["computed"] for r in rows) == 1100 + 7 * 108 + 8 * (104 + 116 + 112)
    # "its time is set by reading all the model's weights once, about [a one-token step]":
    # a 100-token prefill is memory-bound and within a fifth of that step.
    small = prefill(GPUS["h100"], MODELS["llama-3.1-8b"], 108, cached_tokens=992)
    one_token = prefill(GPUS["h100"], MODELS["llama-3.1-8b"], 1)
    assert small.bound == "memory" and one_token.time_s < small.time_s < 1.2 * one_token.time_s
    assert run(block_size=1)["tables"][0]["rows"][1]["computed"] == 100
