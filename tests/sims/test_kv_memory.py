"""The KV-memory sim: the room, the two allocators, the block size, preemption's costs;
expectations from the shared physics, from counting, or from another run of the sim."""

from __future__ import annotations

import math

import pytest
from explainer_pages import rendered
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sims import kv_memory
from sims.kv_memory import simulate
from sims.physics import (
    GPUS,
    MODELS,
    USABLE_MEMORY_FRACTION,
    precision_for,
)
from sims.serving.kv_allocators import MAX_STEPS, contiguous, paged
from sims.serving.kv_meter import PARTS
from sims.serving.kv_space import kv_space
from sims.serving.step_table import step_table
from sims.serving.workload import Request
from tests.sims.explainer_pages import opens_at_the_defaults


@pytest.fixture(scope="module")
def default() -> dict:
    return simulate()


def test_the_room_and_bytes_per_token_are_the_physics(default: dict) -> None:
    summary = default["summary"]
    gpu, model = GPUS["h100"], MODELS["llama-3.1-8b"]
    space = kv_space(gpu, model, 1, precision_for(gpu, model))
    assert summary["kv_bytes_per_token"] == model.kv_bytes_per_token("bf16") == 131072
    assert summary["usable_kv_bytes"] == pytest.approx(space.usable_bytes, rel=1e-5)
    assert summary["kv_capacity_tokens"] == math.floor(space.usable_bytes / 131072)


def test_paged_blocks_hold_twice_the_requests_of_contiguous_ranges(default: dict) -> None:
    summary = default["summary"]
    assert summary["paged_mean_concurrent"] > 2 * summary["contiguous_mean_concurrent"]
    assert summary["paged_waste_fraction"] < 0.01 < 0.4 < summary["contiguous_waste_fraction"]


def test_contiguous_ranges_alike_hold_the_room_over_the_range() -> None:
    """Every request alike: the room holds floor(room / (prompt + limit)) ranges, never
    more, and they waste all but the tokens in them."""
    summary = simulate(allocator="contiguous", length_spread=0.0)["summary"]
    per_request = 2048 + 2048
    assert summary["max_concurrent_requests"] == summary["kv_capacity_tokens"] // per_request
    assert summary["preemptions"] == 0 and summary["external_fraction"] == 0


def test_a_paged_sequence_wastes_less_than_a_block() -> None:
    for size in ("1", "16", "256"):
        summary = simulate(block_size=size)["summary"]
        slack = summary["internal_fraction"] * summary["kv_capacity_tokens"]
        assert slack <= summary["mean_concurrent_requests"] * (int(size) - 1) + 1e-6


def test_the_block_size_trades_waste_for_fewer_blocks(default: dict) -> None:
    rows = default["charts"][2]["data"]["values"]
    assert [r["block_size"] for r in rows] == list(kv_memory.BLOCK_SWEEP)
    wastes = [r["waste_pct"] for r in rows]
    assert wastes == sorted(wastes) and wastes[0] == 0
    assert rows[-1]["running"] < rows[0]["running"]


def _roomy_setups() -> list[tuple[str, str, str]]:
    """(model, GPU, TP) whose weights leave between 100 thousand and 2 million tokens of KV."""
    found = []
    for model, shape in sorted(MODELS.items()):
        for gpu in ("a100", "h100", "h200", "mi300x", "l40s"):
            chip = GPUS[gpu]
            for tp in (1, 2, 4, 8):
                if tp <= chip.scale_up_gpus and shape.heads % tp == 0:
                    slots = kv_space(chip, shape, tp, precision_for(chip, shape)).token_slots()
                    if 100_000 <= slots <= 2_000_000:
                        found.append((model, gpu, str(tp)))
    return found


ROOMY_REQUESTS = 50  # mean requests the BF16 room must hold for "about twice" to apply


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(setup=st.sampled_from(_roomy_setups()), prompt=st.integers(1024, 8192),
       answer=st.integers(64, 1024), seed=st.integers(0, 99))
def test_fp8_kv_holds_about_twice_the_requests_of_bf16_when_weights_leave_room(
    setup: tuple[str, str, str], prompt: int, answer: int, seed: int
) -> None:
    model, gpu, tp = setup
    inputs = {"model": model, "gpu": gpu, "tp": tp, "prompt_tokens": prompt,
              "output_tokens": answer, "seed": seed, "requests": 1000}
    bf16 = simulate(**inputs)["summary"]
    fp8 = simulate(kv_precision="fp8", **inputs)["summary"]
    # Memory, not the size of the backlog, must set how many run, even at FP8.
    assume(fp8["paged_max_concurrent"] < 500)
    # And the room must hold many requests: in a room of a few dozen, the long tail's
    # longest (up to LENGTH_CAP times the mean) hold so large a share that twice the room
    # runs more than twice as many (qwen3-30b-a3b on one A100, prompts of 3,176 tokens on
    # average: 24.6 against 59.0).
    assume(bf16["kv_capacity_tokens"] >= ROOMY_REQUESTS * (prompt + answer))
    # And the cache must be in the KV format alone, with a small fixed share per request: a
    # sparse layer's indexer keys stay FP8 and a linear layer's state keeps its own format
    # (Qwen3.5's is float32), so those models' requests shrink by less than half.
    assume(abs(2 * fp8["kv_bytes_per_token"] - bf16["kv_bytes_per_token"]) <= 1)
    assume(bf16["window_bytes_per_request"] <= 0.05 * prompt * bf16["kv_bytes_per_token"])
    assert abs(fp8["kv_capacity_tokens"] - 2 * bf16["kv_capacity_tokens"]) <= 1
    # "About": a few dozen requests at a time move in whole requests, and the preemptions
    # that keep a full cache full come and go differently at each size.
    ratio = fp8["paged_mean_concurrent"] / bf16["paged_mean_concurrent"]
    assert 1.7 <= ratio <= 2.4


@settings(max_examples=25, deadline=None)
@given(block=st.sampled_from(kv_memory.BLOCK_SIZES), prompt=st.integers(16, 16384),
       limit=st.integers(32, 8192), spread=st.floats(0, 2), data=st.data(),
       model=st.sampled_from(["llama-3.1-8b", "qwen3-32b", "gpt-oss-120b"]))
def test_paged_waste_is_below_contiguous_waste_when_blocks_are_smaller_than_the_slack(
    block: str, prompt: int, limit: int, spread: float, data: st.DataObject, model: str
) -> None:
    """Whenever memory binds under both (requests waited), answers average at most half
    their limit (the limit is there for the long ones) and a block is no bigger than half
    the limit, so a range's slack for answers outweighs a sequence's part-filled last block;
    and no bigger than the mean prompt, so blocks are mostly full. (A 17-token sequence in a
    128-token block leaves 87% of every block empty, more than the 80% a few ranges waste
    when the rest of the room, too little for another range, is just free.) With every
    answer at its limit a contiguous range is filled exactly, and a block bigger than the
    limit leaves more slack than a range: then paged can waste more (below)."""
    assume(int(block) <= min(limit // 2, prompt))
    answer = data.draw(st.integers(1, limit // 2), label="answer")
    summary = simulate(block_size=block, prompt_tokens=prompt, output_tokens=answer,
                       max_output_tokens=limit, length_spread=spread, model=model,
                       requests=300)["summary"]
    assume(summary["kv_capacity_tokens"] > 0 and summary["paged_max_concurrent"] < 300
           and summary["contiguous_max_concurrent"] < 300)
    assert summary["paged_waste_fraction"] < summary["contiguous_waste_fraction"]


def test_with_every_answer_at_its_limit_paged_can_waste_more() -> None:
    summary = simulate(block_size="256", prompt_tokens=16, output_tokens=16,
                       max_output_tokens=16, length_spread=0.0, model="qwen3-32b",
                       requests=2000)["summary"]
    assert summary["paged_max_concurrent"] < 2000  # memory binds
    assert summary["paged_waste_fraction"] > summary["contiguous_waste_fraction"]


def test_shares_of_memory_add_up_to_the_whole_room() -> None:
    requests = [Request(0.0, 300 + 7 * i, 40 + i) for i in range(200)]
    for outcome in (contiguous(requests, 20000, 0, 256), paged(requests, 20000, 0, 16)):
        assert sum(outcome.shares[part] for part in PARTS) == pytest.approx(1.0)
        # At every sample the parts add up to the same room.
        totals = {round(sum(parts.values()), 6) for _, _, parts in outcome.samples}
        assert len(totals) == 1


def test_preemption_costs_are_a_prefill_and_a_round_trip_over_the_host_link(default: dict
                                                                            ) -> None:
    summary = default["summary"]
    gpu, model = GPUS["h100"], MODELS["llama-3.1-8b"]
    precision = precision_for(gpu, model)
    assert summary["preemptions"] > 0
    tokens = summary["mean_preempted_tokens"]
    swap = 2 * tokens * summary["kv_bytes_per_token"] / gpu.host_link_bytes_per_s
    assert summary["swap_s_per_preemption"] == pytest.approx(swap, rel=1e-5)
    # Recompute is priced per victim, each a prefill of what it held, from the step table.
    table = step_table(gpu, model, 1, precision)
    space = kv_space(gpu, model, 1, precision)
    victims = paged(_default_backlog(), space.token_slots(), space.window_slots(),
                    16).preempted_tokens
    assert len(victims) == summary["preemptions"]
    assert summary["recompute_s_per_preemption"] == pytest.approx(
        sum(table.time_s(0, 0, n, 0.0) for n in victims) / len(victims), rel=1e-5)
    assert summary["preemption_cost_s"] == pytest.approx(
        summary["preemptions"] * summary["recompute_s_per_preemption"], rel=1e-4)


def _default_backlog() -> list[Request]:
    """The requests the sim draws at its default inputs."""
    defaults = {spec.name: spec.default for spec in kv_memory.INPUTS}
    prompt, answer = defaults["prompt_tokens"], defaults["output_tokens"]
    return kv_memory.draw(defaults["requests"], defaults["seed"], "poisson", prompt, answer,
                          defaults["length_spread"],
                          min(kv_memory.PROMPT_CAP, kv_memory.LENGTH_CAP * prompt),
                          min(defaults["max_output_tokens"], kv_memory.LENGTH_CAP * answer))


def test_swapping_is_priced_when_chosen() -> None:
    summary = simulate(preemption="swap")["summary"]
    assert summary["preemption_cost_s"] == pytest.approx(
        summary["preemptions"] * summary["swap_s_per_preemption"], rel=1e-4)


def test_a_gpu_without_a_host_link_figure_says_so() -> None:
    summary = simulate(gpu="b200", preemption="swap")["summary"]
    assert summary["swap_s_per_preemption"] == kv_memory.NO_HOST_LINK
    assert summary["preemption_cost_s"] == kv_memory.NO_HOST_LINK


def test_weights_that_fill_the_gpu_leave_nothing_to_allocate() -> None:
    summary = simulate(model="deepseek-v3", gpu="a100")["summary"]
    assert summary["fits"] is False and summary["max_concurrent_requests"] == 0
    assert summary["refused"] == 400


def test_deterministic(default: dict) -> None:
    assert simulate() == default


# -- the page ---------------------------------------------------------------------------

def page_figures() -> list[tuple[str, float, str]]:
    """The page's "check it yourself", every figure from the physics or the sim."""
    gpu, model = GPUS["h100"], MODELS["llama-3.1-8b"]
    space = kv_space(gpu, model, 1, precision_for(gpu, model))
    fp8 = kv_space(gpu, model, 1, precision_for(gpu, model, kv="fp8"))
    alike = simulate(length_spread=0.0)["summary"]
    ranges = simulate(length_spread=0.0, allocator="contiguous")["summary"]
    slots = space.token_slots()
    held = 2048 + 128 + 8
    victim = alike["mean_preempted_tokens"]
    swap_bytes = victim * space.bytes_per_token
    outside_head = model.params_active - model.vocab * model.hidden  # head: last position
    matmuls = 2 * outside_head * victim
    share = gpu.kernels.gemm["bf16"].compute_efficiency
    return [
        ("Llama 3.1 8B has {} layers", model.layers, "d"),
        ("each with {} KV heads", model.kv_heads, "d"),
        ("KV heads of {} dimensions", model.head_dim, "d"),
        ("2 × 32 × 8 × 128 × 2 = {} bytes", model.kv_bytes_per_token("bf16"), ",.0f"),
        ("In FP8, one byte each: {}.", model.kv_bytes_per_token("fp8"), ",.0f"),
        ("the H100's 80 GiB (86 GB) is {} GB", gpu.hbm_bytes * USABLE_MEMORY_FRACTION / 1e9,
         ".1f"),
        ("the weights take {} GB", space.weights_bytes / 1e9, ".2f"),
        ("leaving {} GB, which", space.usable_bytes / 1e9, ".2f"),
        ("which is {} tokens at", slots, ",d"),
        ("({} in FP8)", fp8.token_slots(), ",d"),
        ("so 467,291 / 4,096 = {} ranges fit", alike["contiguous_max_concurrent"], "d"),
        ("with {} tokens over", slots - 114 * 4096, ",d"),
        ("114 × 1,792 / 467,291 = {}% of the room", ranges["internal_fraction"] * 100, ".1f"),
        ("467,291 / 2,184 = {} requests", alike["paged_mean_concurrent"], ".0f"),
        ("467,291 / 2,184 = 214", slots / held, ".0f"),
        ("214 × 7.5 / 467,291 = {}% of the room", alike["paged_waste_fraction"] * 100, ".2f"),
        ("preempted with {} tokens", victim, ",.0f"),
        ("2,163 × 131,072 = {} MB", swap_bytes / 1e6, ".0f"),
        ("PCIe Gen5 at {} GB/s", gpu.host_link_bytes_per_s / 1e9, ".0f"),
        ("64,000 s = {} ms", alike["swap_s_per_preemption"] * 1e3, ".1f"),
        ("tokens: {} billion parameters (all", outside_head / 1e9, ".2f"),
        ("per token make {} TFLOP", matmuls / 1e12, ".1f"),
        ("TFLOP, {} ms at 787.7", matmuls / (gpu.bf16_flops * share) * 1e3, ".0f"),
        ("ms at {} TFLOP/s, the", gpu.bf16_flops * share / 1e12, ".1f"),
        ("TFLOP/s, the {}% of the H100's", share * 100, ".1f"),
        ("of the H100's {} TFLOP/s", gpu.bf16_flops / 1e12, ".0f"),
        ("table of steps, at {} ms", alike["recompute_s_per_preemption"] * 1e3, ".0f"),
    ]


@pytest.mark.parametrize(("phrase", "value", "spec"), page_figures())
def test_check_it_yourself_figures_match_the_physics(phrase: str, value: float, spec: str
                                                     ) -> None:
    assert phrase.format(format(value, spec)) in rendered("kv-memory")


def test_the_page_renders_every_figure() -> None:
    text = rendered("kv-memory")
    assert opens_at_the_defaults("kv-memory", "kv_memory") and "{{" not in text


def test_the_page_says_how_the_sim_stays_fast_as_the_sim_does_it() -> None:
    """The page's "How the sim stays fast": the sweep's sizes, the choices beside them, the
    step bound, and that the starting backlog is served well within that bound."""
    text = rendered("kv-memory")
    words = {5: "five", 9: "nine"}
    *first, last = kv_memory.BLOCK_SWEEP
    assert (f"at {words[len(kv_memory.BLOCK_SWEEP)]} sizes "
            f"({', '.join(map(str, first))} and {last} tokens), "
            f"not all {words[len(kv_memory.BLOCK_SIZES)]} you can choose") in text
    assert f"at most {MAX_STEPS:,} decode steps" in text
    defaults = {spec.name: spec.default for spec in kv_memory.INPUTS}
    gpu, model = GPUS[defaults["gpu"]], MODELS[defaults["model"]]
    space = kv_space(gpu, model, 1, precision_for(gpu, model))
    backlog = _default_backlog()
    slots, window = space.token_slots(), space.window_slots()
    runs = (contiguous(backlog, slots, window, defaults["max_output_tokens"]),
            paged(backlog, slots, window, int(defaults["block_size"])))
    assert all(run.refused == 0 and run.steps < MAX_STEPS * 0.6 for run in runs)


def test_fp8_weights_give_their_freed_bytes_to_the_cache() -> None:
    """Llama 3.1 70B on two H100s: FP8 weights free half the weights' bytes, all for KV, and
    paged blocks hold more requests at once."""
    bf16 = simulate(model="llama-3.1-70b", tp="2")["summary"]
    fp8 = simulate(model="llama-3.1-70b", tp="2", weights="fp8")["summary"]
    chip, shape = GPUS["h100"], MODELS["llama-3.1-70b"]
    freed = (kv_space(chip, shape, 2, precision_for(chip, shape, "fp8")).usable_bytes
             - kv_space(chip, shape, 2, precision_for(chip, shape)).usable_bytes)
    assert fp8["usable_kv_bytes"] - bf16["usable_kv_bytes"] == pytest.approx(freed)
    assert freed == pytest.approx(shape.weight_bytes(precision_for(chip, shape)) / 2 / 2,
                                  rel=0.03)
    assert fp8["paged_max_concurrent"] > bf16["paged_max_concurrent"]
