"""The tensor-parallel sim: all-reduce counts, what each call costs, and memory fit."""

from __future__ import annotations

import pytest
from explainer_pages import (
    Claim,
    allreduce_options,
    hand_priced,
    hardware_claims,
    profile_claims,
    rendered,
    shape_claims,
    step_allreduce,
    total_s,
)

from sims import tensor_parallel
from sims.physics import (
    GPUS,
    MODELS,
    USABLE_MEMORY_FRACTION,
    Work,
    allreduce_fit,
    allreduce_time,
    decode_step,
    memory_fit,
)
from sims.tensor_parallel import LARGE_BATCH as LARGE
from sims.tensor_parallel import simulate
from tests.sims.explainer_pages import opens_at_the_defaults

SPLIT = ("2", "4", "8")


@pytest.mark.parametrize("tp", SPLIT)
def test_two_allreduces_per_layer(tp: str) -> None:
    summary = simulate(tp=tp, model="llama-3.1-70b")["summary"]
    assert MODELS["llama-3.1-70b"].layers == 80
    assert summary["allreduces_per_token"] == 160


def test_one_gpu_has_nothing_to_agree_on() -> None:
    summary = simulate(tp="1", model="llama-3.1-8b")["summary"]
    assert summary["allreduces_per_token"] == 0
    assert summary["allreduce_time_s"] == 0.0
    assert summary["allreduce_latency_us"] == 0.0
    assert summary["step_time_s"] == summary["matmul_time_s"]


@pytest.mark.parametrize("tp", SPLIT)
def test_allreduces_get_far_cheaper_per_token_as_the_batch_grows(tp: str) -> None:
    """256 times the tokens costs the all-reduces far less than 256 times the time."""
    small = simulate(tp=tp, batch_size=1)["summary"]
    large = simulate(tp=tp, batch_size=256)["summary"]
    ratio = large["allreduce_time_s"] / small["allreduce_time_s"]
    assert 1.0 < ratio < 256 / 10


def test_small_messages_go_one_shot_and_large_ones_two_shot() -> None:
    """On Hopper the engine's one-shot kernel runs a batch-1 message and the two-shot one a
    batch-256 message: the first has the smaller fixed cost, the second the smaller traffic."""
    gpu, model = GPUS["h100"], MODELS["llama-3.1-70b"]
    one, many = step_allreduce(gpu, model, 1, 8), step_allreduce(gpu, model, LARGE, 8)
    assert (one.algorithm, many.algorithm) == ("one_shot", "ring")
    assert one.latency_s < many.latency_s
    assert one.traffic / one.message > many.traffic / many.message
    for batch in (1, 16, 64, 128, LARGE):
        chosen = step_allreduce(gpu, model, batch, 8)
        assert chosen.time_s == pytest.approx(allreduce_time(gpu, chosen.message, 8), rel=1e-12)


def test_fixed_latency_dominates_only_the_smallest_messages() -> None:
    """Nearly all of a batch-1 call is its fixed cost; by batch 16 the one-shot kernel's
    seven copies of the message take most of it (the page's words)."""
    assert simulate(batch_size=1)["summary"]["allreduce_fixed_fraction"] > 0.9
    assert simulate(batch_size=16)["summary"]["allreduce_fixed_fraction"] < 0.5


@pytest.mark.parametrize("gpu", ["h100", "a100", "b200"])
@pytest.mark.parametrize("batch", [1, 16, 256])
def test_the_summary_reports_the_fit_it_priced_with(gpu: str, batch: int) -> None:
    summary = simulate(gpu=gpu, batch_size=batch)["summary"]
    message = batch * 8192 * 2
    latency, rate = allreduce_fit(GPUS[gpu], message, 8)
    assert summary["allreduce_latency_us"] == pytest.approx(latency * 1e6, rel=1e-5)
    assert summary["allreduce_gb_per_s"] == pytest.approx(rate / 1e9, rel=1e-5)
    assert summary["allreduce_time_s"] == pytest.approx(
        160 * allreduce_time(GPUS[gpu], message, 8), rel=1e-5)


def test_a_gpu_without_a_scale_up_domain_offers_one_gpu_only() -> None:
    with pytest.raises(ValueError, match=r"tp: expected 1 to 1 GPUs"):
        simulate(gpu="l40s", tp="2", model="llama-3.1-8b")
    summary = simulate(gpu="l40s", tp="1", model="llama-3.1-8b")["summary"]
    assert summary["allreduces_per_token"] == 0


def test_fp8_weights_halve_what_each_gpu_holds_but_the_embedding() -> None:
    bf16 = simulate(weights="bf16")["summary"]
    fp8 = simulate(weights="fp8")["summary"]
    model = MODELS["llama-3.1-70b"]
    edges = 2 * 2 * model.vocab * model.hidden  # embedding and head stay BF16
    assert fp8["weights_per_gpu_gb"] * 8e9 == pytest.approx(
        (model.weight_bytes() - edges) / 2 + edges, rel=1e-5)
    assert fp8["precision"] == "weights FP8, activations FP8, KV BF16"
    assert fp8["matmul_time_s"] < bf16["matmul_time_s"]


@pytest.mark.parametrize("gpu", ["h100", "a100"])
def test_70b_refuses_to_fit_on_one_80gb_gpu(gpu: str) -> None:
    summary = simulate(tp="1", gpu=gpu, model="llama-3.1-70b", batch_size=1)["summary"]
    assert summary["fits"] is False
    assert summary["memory"].startswith("does not fit")
    assert summary["weights_per_gpu_gb"] > 80
    # Still priced, so the reader sees what the step would cost.
    assert summary["step_time_s"] > 0


def test_70b_fits_on_eight() -> None:
    summary = simulate(tp="8", model="llama-3.1-70b")["summary"]
    assert summary["fits"] is True
    assert summary["memory"].startswith("fits")


def test_more_gpus_shorter_step_larger_allreduce_share() -> None:
    runs = [simulate(tp=tp)["summary"] for tp in ("1", "2", "4", "8")]
    steps = [run["step_time_s"] for run in runs]
    shares = [run["allreduce_fraction"] for run in runs]
    assert steps == sorted(steps, reverse=True)
    assert shares == sorted(shares)


def test_step_is_shard_work_plus_allreduce() -> None:
    summary = simulate()["summary"]
    total = summary["matmul_time_s"] + summary["allreduce_time_s"]
    assert summary["step_time_s"] == pytest.approx(total, rel=1e-5)


def test_charts_cover_every_degree_and_both_batches() -> None:
    split, compared = simulate(tp="1")["charts"]
    groups = {row["group"] for row in split["data"]["values"]}
    assert groups == {"1 GPU (no fit)", "2 GPUs", "4 GPUs", "8 GPUs"}
    assert {row["batch"] for row in compared["data"]["values"]} == {1, 256}


def page_figures() -> list[Claim]:
    """(phrase with {} for the figure, value, format) at the page's starting inputs."""
    gpu, model, tp, batch, context = GPUS["h100"], MODELS["llama-3.1-70b"], 8, 16, 2048
    step = decode_step(gpu, model, batch, context, tp)
    fit = memory_fit(gpu, model, batch, context + 1, tp)
    shard = hand_priced(gpu, model, [Work(1, context, count=batch)], tp)
    gemm, attention = shard["gemm"], shard["decode_attention"]
    allreduce, one, large = (step_allreduce(gpu, model, b, tp) for b in (batch, 1, LARGE))
    options = allreduce_options(gpu, allreduce.message, tp)
    large_options = allreduce_options(gpu, large.message, tp)
    kv = batch * (context + 1) * model.kv_bytes_per_token()
    return [
        *hardware_claims(gpu, "H100", ".2f"),
        *profile_claims(gpu, "gemm", "decode_attention", "elementwise"),
        *shape_claims(model),
        ("through NVSwitch at {} GB/s each way", gpu.scale_up_bytes_per_s / 1e9, ".0f"),
        ("their traffic at {}% of that", allreduce.link_bytes_per_s
         / gpu.scale_up_bytes_per_s * 100, ".3g"),
        ("of that, {} GB/s:", allreduce.link_bytes_per_s / 1e9, ".1f"),
        ("the one-shot kernel after {} µs", options["one_shot"].latency_s * 1e6, ".2f"),
        ("the two-shot after {} µs", options["ring"].latency_s * 1e6, ".2f"),
        ("in BF16 its weights alone are {} GB", model.weight_bytes() / 1e9, ".0f"),
        ("so every token waits on {} of them", 2 * model.layers, "d"),
        ("The model has {} billion parameters", model.params / 1e9, ".2f"),
        ("parameters, {} GB in BF16", model.weight_bytes() / 1e9, ".1f"),
        ("BF16: {} GB per GPU", fit.weights_per_gpu_bytes / 1e9, ".2f"),
        ("2 × 80 × 8 × 128 × 2 = {} bytes", model.kv_bytes_per_token(), ",.0f"),
        ("16 sequences of {} positions", context + 1, ",d"),
        ("positions hold {} GB", kv / 1e9, ".2f"),
        ("GB, {} GB per GPU. Of", fit.kv_per_gpu_bytes / 1e9, ".2f"),
        ("an engine uses {}%", USABLE_MEMORY_FRACTION * 100, ".0f"),
        ("%, {} GB, so it fits", fit.usable_per_gpu_bytes / 1e9, ".0f"),
        ("On one GPU, {} GB of weights", model.weight_bytes() / 1e9, ".1f"),
        ("Each GPU runs {} kernels a step", sum(k.count for k in shard.values()), "d"),
        ("Its {} GEMMs move", gemm.count, "d"),
        ("GEMMs move {} GB, its eighth", gemm.moved / 1e9, ".2f"),
        ("activations, in {} ms at 2.74 TB/s", gemm.memory_s * 1e3, ".2f"),
        ("their arithmetic, {} ms, barely", gemm.compute_s * 1e3, ".2f"),
        ("its one KV head's cache, {} GB,", attention.moved / 1e9, ".2f"),
        ("GB, in {} ms. The element-wise", attention.memory_s * 1e3, ".2f"),
        ("fixed costs add {} ms that splitting",
         sum(k.fixed_s for k in shard.values()) * 1e3, ".2f"),
        ("over 80 layers are {} calls", step.collectives, "d"),
        ("16 × 8,192 × 2 = {} bytes", allreduce.message, ",.0f"),
        ("takes in seven copies, {} MB,", allreduce.traffic / 1e6, ".2f"),
        ("MB, in {} µs at 319.9", (allreduce.time_s - allreduce.latency_s) * 1e6, ".2f"),
        ("after its {} µs:", allreduce.latency_s * 1e6, ".2f"),
        ("µs: {} µs a call", allreduce.time_s * 1e6, ".2f"),
        ("The two-shot kernel would take {} µs", options["ring"].time_s * 1e6, ".1f"),
        ("of which {} ms is the fixed", step.collectives * allreduce.latency_s * 1e3, ".2f"),
        ("{} + 1.45 =", step.ops_s * 1e3, ".2f"),
        ("9.80 + {} =", step.collective_s * 1e3, ".2f"),
        ("At batch 16 the message is {} KB", allreduce.message / 1e3, ".0f"),
        ("8,192 numbers in BF16, {} KB each", model.hidden * 2 / 1024, ".0f"),
        ("At batch 1 the message is {} bytes", one.message, ",.0f"),
        ("seven copies take {} µs", (one.time_s - one.latency_s) * 1e6, ".2f"),
        ("so a call takes {} µs", one.time_s * 1e6, ".2f"),
        ("message grows to {} MB", large.message / 1e6, ".2f"),
        ("seven copies would take {} µs", (large_options["one_shot"].time_s
                                            - large_options["one_shot"].latency_s) * 1e6,
         ".1f"),
        ("moving 1.75 copies in {} µs", (large.time_s - large.latency_s) * 1e6, ".1f"),
        ("after its {} µs: 50.4", large.latency_s * 1e6, ".2f"),
        ("µs: {} µs a call, and", large.time_s * 1e6, ".1f"),
        ("1.75 times it over eight", 2 * (tp - 1) / tp, ".2f"),
    ]


def test_the_worked_example_prices_what_the_sim_prices() -> None:
    """The page's shard work and its all-reduces, as it walks through them, are the step:
    at batch 1 and 16 the one-shot kernel runs, at batch 256 the two-shot one."""
    gpu, model = GPUS["h100"], MODELS["llama-3.1-70b"]
    for batch, algorithm in ((16, "one_shot"), (1, "one_shot"), (LARGE, "ring")):
        step = decode_step(gpu, model, batch, 2048, 8)
        shard = hand_priced(gpu, model, [Work(1, 2048, count=batch)], 8)
        assert total_s(shard) == pytest.approx(step.ops_s, rel=1e-12)
        allreduce = step_allreduce(gpu, model, batch, 8)
        assert allreduce.algorithm == algorithm
        assert 160 * allreduce.time_s == pytest.approx(step.collective_s, rel=1e-12)
        assert simulate(batch_size=batch)["summary"]["allreduce_gb_per_s"] == pytest.approx(
            allreduce.bytes_per_s / 1e9, rel=1e-5)


@pytest.mark.parametrize(("phrase", "value", "spec"), page_figures())
def test_check_it_yourself_figures_match_the_physics(phrase: str, value: float, spec: str) -> None:
    assert phrase.format(format(value, spec)) in rendered("tensor-parallel")


def test_page_starts_at_the_defaults_it_derives_from() -> None:
    assert {spec.name: spec.default for spec in tensor_parallel.INPUTS} == {
        "tp": "8", "batch_size": 16, "context_tokens": 2048, "model": "llama-3.1-70b",
        "model_config": "",
        "gpu": "h100", "weights": "native", "kv": "bf16",
    }
    text = rendered("tensor-parallel")
    assert opens_at_the_defaults("tensor-parallel", "tensor_parallel")
    assert "{{" not in text
    assert "Llama 3.1 70B over eight H100s, batch 16, 2,048 tokens of context" in text


def test_page_claims_hold_in_the_sim() -> None:
    assert simulate(tp="1")["summary"]["fits"] is False  # "does not fit"
    assert simulate(tp="2")["summary"]["fits"] is True  # "Two GPUs fit these caches"
    eight_b = simulate(model="llama-3.1-8b")["summary"]
    assert eight_b["allreduce_fraction"] > simulate()["summary"]["allreduce_fraction"]
    shards = [simulate(tp=tp)["summary"]["matmul_time_s"] for tp in ("2", "4", "8")]
    for more, fewer in zip(shards[1:], shards, strict=False):  # "nearly halves each time"
        assert 0.5 * fewer < more < 0.6 * fewer
