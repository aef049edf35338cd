"""The quantization sim: decode gains what the bytes allow, prefill what the tensor cores
allow, memory frees up; and its page's worked figures are the physics'."""

from __future__ import annotations

import pytest
from explainer_pages import rendered

from sims import quantization
from sims.physics import (
    COMPUTE_EFFICIENCY,
    GPUS,
    MEMORY_EFFICIENCY,
    MODELS,
    USABLE_MEMORY_FRACTION,
    decode_step,
    memory_fit,
    precision_for,
    prefill,
)
from sims.physics.capacity import sequences_that_fit
from sims.quantization import simulate

GPU, MODEL, TP, BATCH, CONTEXT = GPUS["h100"], MODELS["llama-3.1-70b"], 4, 32, 4096


@pytest.fixture(scope="module")
def default() -> dict:
    return simulate()["summary"]


def formats(weights: str = "fp8", activations: str = "auto", kv: str = "bf16"):
    return precision_for(GPU, MODEL, weights, activations, kv)


BF16 = precision_for(GPU, MODEL, "bf16", "bf16", "bf16")


def test_the_summary_is_the_physics_at_the_defaults(default: dict) -> None:
    chosen = formats()
    decode = decode_step(GPU, MODEL, BATCH, CONTEXT, TP, chosen)
    base = decode_step(GPU, MODEL, BATCH, CONTEXT, TP, BF16)
    assert default["decode_step_s"] == pytest.approx(decode.time_s, rel=1e-5)
    assert default["decode_speedup"] == pytest.approx(base.time_s / decode.time_s, rel=1e-5)
    assert default["prefill_s"] == pytest.approx(
        prefill(GPU, MODEL, CONTEXT, tp=TP, precision=chosen).time_s, rel=1e-5)
    assert default["max_concurrent_requests"] == sequences_that_fit(GPU, MODEL, CONTEXT, TP,
                                                                    chosen)
    assert default["precision"] == "weights FP8, activations FP8, KV BF16"


def test_decode_gains_less_than_its_bytes_while_memory_bound(default: dict) -> None:
    assert default["decode_bound"] == "memory"
    assert 1 < default["decode_speedup"] < default["bytes_ratio"]


def test_prefill_gains_less_than_its_tensor_cores_but_more_than_decode(default: dict) -> None:
    assert default["prefill_bound"] == "compute"
    assert default["decode_speedup"] < default["prefill_speedup"] < default["tensor_core_ratio"]
    assert default["tensor_core_ratio"] == pytest.approx(GPU.flops("fp8") / GPU.flops("bf16"))


@pytest.mark.parametrize("gpu", ["a100", "h100", "h200"])
def test_fp4_weights_on_a_gpu_without_fp4_tensor_cores_leave_prefill_as_it_was(gpu: str) -> None:
    summary = simulate(gpu=gpu, weights="fp4")["summary"]
    assert summary["precision"].endswith("activations BF16, KV BF16")
    assert summary["tensor_core_ratio"] == 1
    assert 1 <= summary["prefill_speedup"] < 1.01  # the weights' bytes, a sliver of a prefill
    assert summary["decode_speedup"] > simulate(gpu=gpu)["summary"]["decode_speedup"]


def test_fp4_on_a_gpu_with_fp4_tensor_cores_speeds_up_prefill() -> None:
    summary = simulate(gpu="b200", tp="1", weights="fp4")["summary"]
    assert summary["precision"] == "weights FP4, activations FP4, KV BF16"
    assert summary["tensor_core_ratio"] == 4
    assert 3 < summary["prefill_speedup"] < 4


def test_an_activation_format_the_gpu_cannot_compute_in_is_refused() -> None:
    with pytest.raises(ValueError, match="^activations: expected auto or a format"):
        simulate(activations="fp4")


def test_a_smaller_cache_format_fits_requests_in_proportion(default: dict) -> None:
    one = memory_fit(GPU, MODEL, 1, CONTEXT, TP, formats(kv="fp8"))
    room = one.usable_per_gpu_bytes - one.weights_per_gpu_bytes
    assert simulate(kv="fp8")["summary"]["max_concurrent_requests"] == int(
        room / one.kv_per_gpu_bytes)
    assert default["kv_per_request_gb"] == pytest.approx(
        2 * one.kv_per_gpu_bytes / 1e9, rel=1e-5)


def test_the_baseline_does_not_depend_on_the_chosen_formats(default: dict) -> None:
    other = simulate(weights="fp4", kv="fp4")["summary"]
    for key in ("baseline_decode_step_s", "baseline_prefill_s",
                "baseline_max_concurrent_requests", "baseline_weights_per_gpu_gb"):
        assert other[key] == default[key]


def test_bf16_everywhere_gains_nothing() -> None:
    summary = simulate(weights="bf16")["summary"]
    assert summary["decode_speedup"] == summary["prefill_speedup"] == summary["bytes_ratio"] == 1


def test_the_capacity_chart_marks_the_current_pair_among_all_nine() -> None:
    bars = simulate(kv="fp8")["charts"][1]["data"]["values"]
    assert len(bars) == 9
    assert [(bar["weights"], bar["kv"]) for bar in bars if bar["current"]] == [
        ("weights FP8", "KV FP8")]


def test_the_speedup_chart_draws_the_current_batch_and_context() -> None:
    rows = simulate(batch_size=48, context_tokens=3072)["charts"][0]["data"]["values"]
    current = {(row["line"], row["tokens"]) for row in rows if row["current"]}
    assert current == {(quantization.DECODE_LINE, 48), (quantization.PREFILL_LINE, 3072)}


# -- the page ---------------------------------------------------------------------------


def page_figures() -> list[tuple[str, float, str]]:
    """The "check it yourself" figures, from the shared physics at the page's inputs."""
    fp8, fp8_kv = formats(), formats(kv="fp8")
    plain_step = decode_step(GPU, MODEL, BATCH, CONTEXT, TP, BF16)
    fp8_step = decode_step(GPU, MODEL, BATCH, CONTEXT, TP, fp8)
    plain_fill = prefill(GPU, MODEL, CONTEXT, tp=TP, precision=BF16)
    fp8_fill = prefill(GPU, MODEL, CONTEXT, tp=TP, precision=fp8)
    fit = memory_fit(GPU, MODEL, 1, CONTEXT, TP, fp8)
    bandwidth = GPU.hbm_bytes_per_s * MEMORY_EFFICIENCY

    def rest(step) -> float:
        return step.time_s - step.memory_s - step.collective_s

    return [
        ("An H100 does {} TFLOP/s of dense BF16", GPU.bf16_flops / 1e12, ".0f"),
        ("and reads {} TB/s from HBM", GPU.hbm_bytes_per_s / 1e12, ".2f"),
        ("we assume {}% and", COMPUTE_EFFICIENCY * 100, ".0f"),
        ("and {}% of those are reachable", MEMORY_EFFICIENCY * 100, ".0f"),
        ("so {} TB/s per GPU", bandwidth / 1e12, ".2f"),
        ("tensor cores do {} TFLOP/s", GPU.flops("fp8") / 1e12, ",.0f"),
        ("TFLOP/s, {} times the BF16 rate", GPU.flops("fp8") / GPU.bf16_flops, ".2f"),
        ("{} billion parameters in BF16", MODEL.params / 1e9, ".2f"),
        ("in BF16 are {} GB", MODEL.weight_bytes(BF16) / 1e9, ".1f"),
        ("GB, {} GB per GPU. In FP8", MODEL.weight_bytes(BF16) / TP / 1e9, ".1f"),
        ("stay in BF16: {} GB per GPU", fit.weights_per_gpu_bytes / 1e9, ".1f"),
        ("Each GPU reads {} GB (its share", plain_step.memory_s * bandwidth / 1e9, ".1f"),
        ("of 32 caches of {} positions", CONTEXT + 1, ",d"),
        ("positions at {} bytes each", MODEL.kv_bytes_per_token("bf16"), ",.0f"),
        ("activations): {} ms at 2.68 TB/s", plain_step.memory_s * 1e3, ".2f"),
        ("160 all-reduces take {} ms, and", plain_step.collective_s * 1e3, ".2f"),
        ("the reads {} ms more", rest(plain_step) * 1e3, ".2f"),
        ("ms more: {} ms.", plain_step.time_s * 1e3, ".2f"),
        ("Each GPU reads {} GB, 1.61", fp8_step.memory_s * bandwidth / 1e9, ".1f"),
        ("GB, {} times fewer bytes", plain_step.memory_s / fp8_step.memory_s, ".2f"),
        ("fewer bytes: {} ms. The", fp8_step.memory_s * 1e3, ".2f"),
        ("all-reduces still take {} ms", fp8_step.collective_s * 1e3, ".2f"),
        ("and the rest {} ms:", rest(fp8_step) * 1e3, ".2f"),
        ("the rest 2.94 ms: {} ms, a speedup", fp8_step.time_s * 1e3, ".2f"),
        ("a speedup of {}. 4. ", plain_step.time_s / fp8_step.time_s, ".2f"),
        ("take {} TFLOP in all", plain_fill.flops / 1e12, ".1f"),
        ("alone takes {} ms per GPU in BF16", plain_fill.compute_s * 1e3, ".1f"),
        ("and {} ms in FP8", fp8_fill.compute_s * 1e3, ".1f"),
        ("the all-reduces add {} ms to both", fp8_fill.collective_s * 1e3, ".1f"),
        ("prefill goes from {} ms", plain_fill.time_s * 1e3, ".1f"),
        ("ms to {} ms, a speedup", fp8_fill.time_s * 1e3, ".1f"),
        ("a speedup of {}. 5.", plain_fill.time_s / fp8_fill.time_s, ".2f"),
        ("uses {}% of each GPU's", USABLE_MEMORY_FRACTION * 100, ".0f"),
        ("GPU's 80 GB, {} GB.", fit.usable_per_gpu_bytes / 1e9, ".1f"),
        ("cache of 4,096 tokens is {} GB", MODEL.kv_bytes(CONTEXT, "bf16") / 1e9, ".2f"),
        ("KV heads: {} GB each", fit.kv_per_gpu_bytes / 1e9, ".3f"),
        ("room for {} requests", sequences_that_fit(GPU, MODEL, CONTEXT, TP, BF16), "d"),
        ("FP8 weights, {}; with", sequences_that_fit(GPU, MODEL, CONTEXT, TP, fp8), "d"),
        ("cache in FP8 too, {}.", sequences_that_fit(GPU, MODEL, CONTEXT, TP, fp8_kv), "d"),
    ]


@pytest.mark.parametrize(("phrase", "value", "spec"), page_figures())
def test_check_it_yourself_figures_match_the_physics(phrase: str, value: float, spec: str) -> None:
    assert phrase.format(format(value, spec)) in rendered("quantization")


def test_page_starts_at_the_defaults_it_derives_from() -> None:
    assert {spec.name: spec.default for spec in quantization.INPUTS} == {
        "weights": "fp8", "activations": "auto", "kv": "bf16", "model": "llama-3.1-70b",
        "gpu": "h100", "tp": "4", "batch_size": 32, "context_tokens": 4096,
    }
    text = rendered("quantization")
    assert "{{" not in text
    assert "Llama 3.1 70B over four H100s, FP8 weights and activations" in text


def test_page_claims_hold_in_the_sim(default: dict) -> None:
    assert simulate(gpu="h200", tp="1")["summary"]["baseline_max_concurrent_requests"] == 0
    assert simulate(gpu="h200", tp="1")["summary"]["max_concurrent_requests"] > 0
    big = simulate(batch_size=256)["summary"]
    assert big["fits"] is False and simulate(batch_size=256, kv="fp8")["summary"]["fits"]
    # FP8 KV doubles the requests that fit, to within one.
    assert abs(simulate(kv="fp8")["summary"]["max_concurrent_requests"]
               - 2 * default["max_concurrent_requests"]) <= 1
