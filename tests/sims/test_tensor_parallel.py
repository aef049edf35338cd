"""The tensor-parallel sim: all-reduce counts, their near-flat cost, and memory fit."""

from __future__ import annotations

import pytest
from explainer_pages import hardware_claims, rendered, shape_claims

from sims import tensor_parallel
from sims.physics import (
    COMPUTE_EFFICIENCY,
    GPUS,
    KERNEL_OVERHEAD_S,
    MEMORY_EFFICIENCY,
    MODELS,
    USABLE_MEMORY_FRACTION,
    allreduce_time,
    decode_step,
    memory_fit,
)
from sims.tensor_parallel import LARGE_BATCH as LARGE
from sims.tensor_parallel import simulate

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
def test_allreduce_cost_is_nearly_flat_in_batch(tp: str) -> None:
    """256 times the tokens costs well under three times the all-reduce time."""
    small = simulate(tp=tp, batch_size=1)["summary"]
    large = simulate(tp=tp, batch_size=256)["summary"]
    ratio = large["allreduce_time_s"] / small["allreduce_time_s"]
    assert 1.0 < ratio < 3.0
    # Per token the all-reduces get nearly 100 times cheaper.
    assert ratio / 256 < 0.012


def test_fixed_latency_dominates_at_decode_sizes() -> None:
    assert simulate(batch_size=1)["summary"]["allreduce_fixed_fraction"] > 0.95
    assert simulate(batch_size=16)["summary"]["allreduce_fixed_fraction"] > 0.8


@pytest.mark.parametrize("gpu", ["h100", "a100", "b200"])
def test_the_summary_reports_the_fit_it_priced_with(gpu: str) -> None:
    summary = simulate(gpu=gpu)["summary"]
    fit = GPUS[gpu].collectives.fits[8]
    assert summary["allreduce_latency_us"] == pytest.approx(fit.latency_s * 1e6, rel=1e-5)
    assert summary["allreduce_gb_per_s"] == pytest.approx(fit.bytes_per_s / 1e9, rel=1e-5)
    message = 16 * 8192 * 2
    assert summary["allreduce_time_s"] == pytest.approx(160 * fit.time(message), rel=1e-5)


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
    assert groups == {"1 GPU (no fit)", "2 GPUs (no fit)", "4 GPUs", "8 GPUs"}
    assert {row["batch"] for row in compared["data"]["values"]} == {1, 256}


def page_figures() -> list[tuple[str, float, str]]:
    """(phrase with {} for the figure, value, format) at the page's starting inputs."""
    gpu, model, tp, batch, context = GPUS["h100"], MODELS["llama-3.1-70b"], 8, 16, 2048
    step = decode_step(gpu, model, batch, context, tp)
    fit = memory_fit(gpu, model, batch, context + 1, tp)
    allreduce = gpu.collectives.fits[tp]
    message = batch * model.hidden * 2
    large = LARGE * model.hidden * 2
    kv = batch * (context + 1) * model.kv_bytes_per_token()
    kernels = model.layers * 9 + 2
    return [
        *hardware_claims(gpu, "H100", ".2f"),
        *shape_claims(model),
        ("so {} TFLOP/s and", gpu.bf16_flops * COMPUTE_EFFICIENCY / 1e12, ".0f"),
        ("and {} TB/s per GPU", gpu.hbm_bytes_per_s * MEMORY_EFFICIENCY / 1e12, ".2f"),
        ("in BF16 its weights alone are {} GB", model.weight_bytes() / 1e9, ".0f"),
        ("so every token waits on {} of them", 2 * model.layers, "d"),
        ("Over eight GPUs the fixed time is {} µs", allreduce.latency_s * 1e6, ".0f"),
        ("matches the fixed part at a batch of about {},",
         round(allreduce.latency_s / (model.hidden * 2 / allreduce.bytes_per_s), -1), ".0f"),
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
        ("The step reads {} GB of weights", step.bytes / 1e9, ".1f"),
        ("activations, {} GB per GPU", step.bytes / tp / 1e9, ".1f"),
        ("GPU: {} ms at 2.68 TB/s", step.memory_s * 1e3, ".2f"),
        ("arithmetic is {} TFLOP", step.flops / 1e12, ".2f"),
        ("TFLOP, {} ms per GPU", step.compute_s * 1e3, ".2f"),
        ("plus {} µs to start", KERNEL_OVERHEAD_S * 1e6, ".0f"),
        ("Each GPU runs {} kernels", kernels, "d"),
        ("the head): {} ms of starting", kernels * KERNEL_OVERHEAD_S * 1e3, ".2f"),
        ("So 7.05 + 2.89 = {} ms", step.ops_s * 1e3, ".2f"),
        ("over 80 layers are {} calls", step.collectives, "d"),
        ("= {} bytes. The fit", message, ",d"),
        ("eight H100s is {} µs plus", allreduce.latency_s * 1e6, ".1f"),
        ("the message at {} GB/s", allreduce.bytes_per_s / 1e9, ".1f"),
        ("GB/s: {} µs of data", message / allreduce.bytes_per_s * 1e6, ".2f"),
        ("of data, {} µs a call", allreduce.time(message) * 1e6, ".2f"),
        ("of which {} ms is the fixed", step.collectives * allreduce.latency_s * 1e3, ".2f"),
        ("{} + 5.01 =", step.ops_s * 1e3, ".2f"),
        ("9.95 + {} =", step.collective_s * 1e3, ".2f"),
        ("At batch 16 the message is {} KB", message / 1e3, ".0f"),
        ("8,192 numbers in BF16, {} KB each", model.hidden * 2 / 1024, ".0f"),
        ("The message grows to {} MB", large / 1e6, ".2f"),
        ("each call to {} µs", large / allreduce.bytes_per_s * 1e6, ".1f"),
        ("so each call takes {} µs", allreduce_time(gpu, large, tp) * 1e6, ".1f"),
        ("1.75 times it over eight", 2 * (tp - 1) / tp, ".2f"),
    ]


@pytest.mark.parametrize(("phrase", "value", "spec"), page_figures())
def test_check_it_yourself_figures_match_the_physics(phrase: str, value: float, spec: str) -> None:
    assert phrase.format(format(value, spec)) in rendered("tensor-parallel")


def test_page_starts_at_the_defaults_it_derives_from() -> None:
    assert {spec.name: spec.default for spec in tensor_parallel.INPUTS} == {
        "tp": "8", "batch_size": 16, "context_tokens": 2048, "model": "llama-3.1-70b",
        "gpu": "h100", "weights": "native", "kv": "bf16",
    }
    text = rendered("tensor-parallel")
    assert "```sim module: tensor_parallel ```" in text
    assert "{{" not in text
    assert "Llama 3.1 70B over eight H100s, batch 16, 2,048 tokens of context" in text
    assert "a third of it all-reduce" in text
    assert 0.3 < simulate()["summary"]["allreduce_fraction"] < 0.37


def test_page_claims_hold_in_the_sim() -> None:
    assert simulate(tp="2")["summary"]["fits"] is False  # "Two GPUs still do not fit"
    assert simulate(tp="4")["summary"]["fits"] is True  # "four do"
    eight_b = simulate(model="llama-3.1-8b")["summary"]
    assert eight_b["allreduce_fraction"] > simulate()["summary"]["allreduce_fraction"]
    shards = [simulate(tp=tp)["summary"]["matmul_time_s"] for tp in ("2", "4", "8")]
    for more, fewer in zip(shards[1:], shards, strict=False):  # "nearly halves each time"
        assert 0.5 * fewer < more < 0.6 * fewer
