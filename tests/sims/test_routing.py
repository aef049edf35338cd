"""The routing sim: what round-robin, sticky and cache-aware routing do to hits and load."""

from __future__ import annotations

import functools
import random
import statistics

import pytest
from explainer_pages import rendered

from sims import routing
from sims.physics import GPUS, MODELS, prefill
from tests.sims.explainer_pages import opens_at_the_defaults

SEEDS = range(10)


@functools.cache
def summary(**inputs: object) -> dict:
    return routing.simulate(**inputs)["summary"]


def history_hits(result: dict, policy: str) -> float:
    """Hit rate above what the shared system prompt gives any warmed-up replica."""
    return result[f"{policy}_hit_rate"] - result["system_prompt_share"]


def test_summary_names_are_the_contract() -> None:
    result = summary()
    for policy in ("round_robin", "sticky", "cache_aware"):
        for metric in ("hit_rate", "load_imbalance", "mean_ttft_s"):
            assert f"{policy}_{metric}" in result
    assert set(result) == set(routing.METRICS)
    assert {s.name for s in routing.INPUTS} == {
        "replicas", "sessions", "turns", "system_prompt_tokens", "user_tokens",
        "reply_tokens", "cache_tokens_per_replica", "seed", "model", "model_config",
        "gpu"}


@pytest.mark.parametrize("seed", SEEDS)
def test_round_robin_loses_most_history_hits(seed: int) -> None:
    result = summary(seed=seed)
    assert history_hits(result, "round_robin") < 0.5 * history_hits(result, "sticky")
    assert result["round_robin_load_imbalance"] == 1.0
    assert result["round_robin_mean_ttft_s"] > 1.5 * result["sticky_mean_ttft_s"]


def test_round_robin_loses_more_without_a_system_prompt() -> None:
    """The page: "the gap between round-robin and the others widens"."""
    result, default = summary(system_prompt_tokens=0), summary()
    assert result["system_prompt_share"] == 0
    assert result["round_robin_hit_rate"] < 0.5 * result["sticky_hit_rate"]
    for other in ("sticky", "cache_aware"):
        gap = result[f"{other}_hit_rate"] - result["round_robin_hit_rate"]
        assert gap > default[f"{other}_hit_rate"] - default["round_robin_hit_rate"]


def test_sticky_sessions_unbalance_load() -> None:
    sticky = [summary(seed=s)["sticky_load_imbalance"] for s in SEEDS]
    aware = [summary(seed=s)["cache_aware_load_imbalance"] for s in SEEDS]
    assert statistics.mean(sticky) > 1.3
    assert statistics.mean(sticky) > statistics.mean(aware) + 0.2


@pytest.mark.parametrize("seed", SEEDS)
def test_cache_aware_keeps_hits_and_balance(seed: int) -> None:
    result = summary(seed=seed)
    assert result["cache_aware_hit_rate"] >= result["sticky_hit_rate"] - 0.05
    assert history_hits(result, "cache_aware") > 0.8 * history_hits(result, "sticky")
    assert result["cache_aware_load_imbalance"] <= 1.25
    assert result["cache_aware_mean_ttft_s"] < result["round_robin_mean_ttft_s"]


def test_every_policy_beats_no_cache() -> None:
    result = summary()
    for policy in ("round_robin", "sticky", "cache_aware"):
        assert result[f"{policy}_mean_ttft_s"] < result["no_cache_mean_ttft_s"]


def test_arrivals_interleave_sessions_at_random_with_turns_in_order() -> None:
    orders = []
    for seed in (1, 2):
        requests = routing.arrivals(16, 4, 1000, 200, 300, random.Random(seed))
        assert len(requests) == 64
        seen: dict[int, int] = {}
        for request in requests:
            assert request.turn == seen.get(request.session, 0) + 1
            seen[request.session] = request.turn
            assert request.tokens == 1000 + (request.turn - 1) * 500 + 200
        orders.append([r.session for r in requests])
    assert orders[0] != orders[1]
    round_by_round = [s for _ in range(4) for s in range(16)]
    assert orders[0] != round_by_round  # the order that makes round-robin sticky by accident


def test_a_fixed_order_would_make_round_robin_sticky_by_accident() -> None:
    """The trap the page describes, checked on the routing function itself."""
    requests = routing.arrivals(16, 4, 1000, 200, 300, random.Random(0))
    fixed = sorted(requests, key=lambda r: (r.turn, r.session))
    rr = routing.route(fixed, 4, 2000, routing.round_robin(fixed, 4))
    assert all(rr.replica[i] == fixed[i].session % 4 for i in range(64))


def test_deterministic_and_seeded() -> None:
    assert routing.simulate(seed=3) == routing.simulate(seed=3)
    assert summary(seed=3) != summary(seed=4)


def test_one_session_all_on_one_replica_under_sticky() -> None:
    result = summary(sessions=1, turns=4, replicas=4)
    assert result["sticky_load_imbalance"] == 4.0
    # Turns 1-3 stay with the history; by turn 4 that replica has 3 requests to the
    # idlest's 0 (more than 2 more, more than 1.5 times), so the bound moves it.
    assert result["cache_aware_load_imbalance"] == 3.0
    assert result["cache_aware_spills"] == 1
    assert result["round_robin_load_imbalance"] == 1.0


def test_single_request_ttft_is_the_physics_prefill() -> None:
    result = summary(sessions=1, turns=1)
    expected = prefill(GPUS["h100"], MODELS["llama-3.1-8b"], 1200).time_s
    for policy in ("round_robin", "sticky", "cache_aware"):
        assert result[f"{policy}_hit_rate"] == 0
        assert result[f"{policy}_mean_ttft_s"] == pytest.approx(expected, abs=1e-5)


def test_a_smaller_cache_never_helps() -> None:
    for policy in ("round_robin", "sticky", "cache_aware"):
        rates = [summary(cache_tokens_per_replica=c)[f"{policy}_hit_rate"]
                 for c in (10000, 32000, 400000)]
        assert rates == sorted(rates), policy


def test_charts() -> None:
    result = routing.simulate()
    titles = [c["title"]["text"] for c in result["charts"]]
    assert len(titles) == 3
    load = result["charts"][1]
    rows = load["data"]["values"]
    assert sum(r["requests"] for r in rows) == 3 * 64
    assert "(requests)" in load["layer"][0]["encoding"]["y"]["title"]
    for chart in (result["charts"][0], result["charts"][2]):
        assert "(" in chart["layer"][0]["encoding"]["x"]["title"]
    floor = result["charts"][0]["layer"][1]["encoding"]["x"]["datum"]
    assert floor == result["summary"]["system_prompt_share"]


def test_page_things_to_try() -> None:
    default, small = summary(), summary(cache_tokens_per_replica=10000)
    assert small["sticky_hit_rate"] < default["sticky_hit_rate"] - 0.01
    assert small["cache_aware_hit_rate"] > default["cache_aware_hit_rate"] - 0.01
    eight = summary(replicas=8)
    assert eight["round_robin_hit_rate"] < eight["system_prompt_share"] + 0.01
    assert summary(replicas=2)["round_robin_hit_rate"] > eight["round_robin_hit_rate"]
    spreads = {summary(seed=s)["sticky_load_imbalance"] for s in range(40)}
    assert min(spreads) <= 1.25 and max(spreads) >= 2


def test_bad_input_names_the_input() -> None:
    with pytest.raises(ValueError, match="replicas"):
        routing.simulate(replicas=1)


# --- The page -------------------------------------------------------------------------

def rendered_page() -> str:
    return rendered("routing")


def test_page_starts_at_the_defaults_it_derives_from() -> None:
    defaults = {spec.name: spec.default for spec in routing.INPUTS}
    assert defaults == {"replicas": 4, "sessions": 16, "turns": 4, "system_prompt_tokens": 1000,
                        "user_tokens": 200, "reply_tokens": 300,
                        "cache_tokens_per_replica": 32000, "seed": 1,
                        "model": "llama-3.1-8b", "model_config": "", "gpu": "h100"}
    text = rendered_page()
    assert opens_at_the_defaults("routing", "routing")
    assert "{{" not in text
    assert (routing.BALANCE_REL_THRESHOLD, routing.BALANCE_ABS_THRESHOLD) == (1.5, 2)
    assert "more than 1.5 times the requests" in text and "more than 2 requests more" in text


def test_page_figures_hold() -> None:
    result = summary()
    text = rendered_page()
    above_rr = history_hits(result, "round_robin") * 100
    above_sticky = history_hits(result, "sticky") * 100
    assert "round-robin finds less than half of the history" in text
    assert above_rr < above_sticky / 2
    # "nearly twice sticky's"
    assert 1.7 * result["sticky_mean_ttft_s"] < result["round_robin_mean_ttft_s"] < (
        2 * result["sticky_mean_ttft_s"])
    assert result["sticky_hit_rate"] - result["cache_aware_hit_rate"] < 0.05  # "a few points"

    requests = routing.arrivals(16, 4, 1000, 200, 300, _seeded(1))
    outcome = routing.route(requests, 4, 2000, routing.sticky(requests, 4, _session_ids(1)))
    counts = sorted(outcome.replica.count(r) for r in range(4))
    assert counts == [4, 8, 24, 28]  # "1, 2, 6 and 7 sessions", "28 requests against 16"
    assert "sent 1, 2, 6 and 7 sessions" in text


def _seeded(seed: int) -> random.Random:
    """The sim's generator after it has drawn the session IDs, as in simulate()."""
    rng = random.Random(seed)
    for _ in range(16):
        rng.getrandbits(64)
    return rng


def _session_ids(seed: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.getrandbits(64) for _ in range(16)]


@pytest.mark.parametrize("phrase", [
    "1,200, 1,700, 2,200 and 2,700, so 7,800 per session and 124,800 for all 16",
    "64 requests × 992 = 63,488 tokens, or 50.9%",
    "1,200 + 300 − 1 = 1,499 tokens, 93 full blocks, 1,488 tokens",
    "1,999 tokens, 124 blocks, 1,984 tokens",
    "2,499 tokens, 156 blocks, 2,496 tokens",
    "992 + 1,488 + 1,984 + 2,496 = 6,960, for 16 sessions 111,360",
    "107,392 of 124,800 tokens, a hit rate of 86.05%",
])
def test_check_it_yourself_arithmetic(phrase: str) -> None:
    assert phrase in rendered_page()


def test_check_it_yourself_matches_the_model() -> None:
    assert [1000 + (t - 1) * 500 + 200 for t in range(1, 5)] == [1200, 1700, 2200, 2700]
    assert [(n - 1) // 16 * 16 for n in (1500, 2000, 2500)] == [1488, 1984, 2496]
    assert round(64 * 992 / 124_800, 4) == summary()["system_prompt_share"]
    assert round((111_360 - 4 * 992) / 124_800, 4) == summary()["sticky_hit_rate"]
    gpu, model = GPUS["h100"], MODELS["llama-3.1-8b"]
    miss, hit = prefill(gpu, model, 2700), prefill(gpu, model, 204, cached_tokens=2496)
    matmul = gpu.kernels.gemm["bf16"]
    attention = gpu.kernels.prefill_attention["bf16"]
    text = rendered_page()
    assert (f"{miss.flops / 1e12:.1f} TFLOP, whose arithmetic takes "
            f"{miss.compute_s * 1e3:.1f} ms") in text
    assert f"the H100's {gpu.bf16_flops / 1e12:.0f} TFLOP/s its kernels reach" in text
    assert (f"({matmul.compute_efficiency:.1%} for a BF16 matmul, "
            f"{attention.compute_efficiency:.1%} for the attention operator") in text
    assert f"the step takes {miss.time_s * 1e3:.1f} ms" in text
    assert miss.bound == "compute" and hit.bound == "memory"
    assert f"it moves {hit.bytes / 1e9:.2f} GB in {hit.memory_s * 1e3:.2f} ms" in text
    assert f"against {hit.compute_s * 1e3:.2f} ms of arithmetic" in text
    assert f"priced kernel by kernel it takes {hit.time_s * 1e3:.2f} ms" in text
    streamed = 2 * (32 * (4096 * 6144 + 4096 * 4096 + 3 * 4096 * 14336) + 128256 * 4096)
    bandwidth = gpu.hbm_bytes_per_s * matmul.memory_efficiency
    assert f"the {streamed / bandwidth * 1e3:.2f} ms it takes to read" in text
    assert f"{streamed / 1e9:.2f} GB of weights at {bandwidth / 1e12:.2f} TB/s" in text
    assert (f"(the {matmul.memory_efficiency:.1%} of {gpu.hbm_bytes_per_s / 1e12:.2f} TB/s "
            "a BF16 matmul reads at)") in text
