"""The quantization sim: decode gains what the bytes allow, prefill what the tensor cores
allow, memory frees up; and its page's worked figures are the physics'."""

from __future__ import annotations

import functools
import re

import pytest
import yaml
from explainer_pages import PROFILE, rendered

from sims import quantization
from sims.physics import (
    GPUS,
    MODELS,
    USABLE_MEMORY_FRACTION,
    Work,
    decode_step,
    kernels,
    memory_fit,
    precision_for,
    prefill,
)
from sims.physics.capacity import sequences_that_fit
from sims.physics.pricing import pricer
from sims.quantization import simulate
from tests.repo import LAYOUT

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


def test_fp4_tensor_cores_speed_up_prefill_by_what_fp4_matmuls_reach() -> None:
    """FP4 tensor cores are four times BF16's, but FP4 matmuls reach a smaller share of
    their peak: the prefill gains at most 4 x (FP4 share / BF16 share)."""
    summary = simulate(gpu="b200", tp="1", weights="fp4")["summary"]
    assert summary["precision"] == "weights FP4, activations FP4, KV BF16"
    assert summary["tensor_core_ratio"] == 4
    gemm = GPUS["b200"].kernels.gemm
    reached = 4 * gemm["fp4"].compute_efficiency / gemm["bf16"].compute_efficiency
    assert 1.5 < summary["prefill_speedup"] < reached < 4


def test_split_eight_ways_fp8_matmuls_give_back_what_their_bytes_save() -> None:
    """Each GPU's share of a matrix is small, and the FP8 matmul's larger fixed cost takes
    back nearly all that its halved bytes save (the page's "barely faster"); on one GPU,
    every matrix whole, FP8 gains more than on four."""
    eight = simulate(tp="8")["summary"]
    assert eight["bytes_ratio"] > 1.5 and 1 < eight["decode_speedup"] < 1.05
    assert simulate(gpu="h200", tp="1")["summary"]["decode_speedup"] > simulate()["summary"][
        "decode_speedup"]


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

HOPPER = GPU.kernels
# Measured on an H100 by NVIDIA's aiconfigurator (content/catalogue/calibration/
# aiconfigurator-h100.yaml): the page quotes these points, in microseconds.
QUOTED_POINTS = {
    "aic-h100-gemm-bf16-m1-n10240-k8192": "{{ cited: 65.46 µs }} in BF16",
    "aic-h100-gemm-fp8-m1-n10240-k8192": "{{ cited: 42.39 µs }} in FP8",
    "aic-h100-gemm-fp8-m1-n3072-k2048": "{{ cited: 13.71 µs }} and BF16",
    "aic-h100-gemm-bf16-m1-n3072-k2048": "BF16 {{ cited: 7.78 µs }}",
    "aic-h100-gemm-bf16-m16384-n10240-k8192": "{{ cited: 3.407 ms }} in BF16",
    "aic-h100-gemm-fp8-m16384-n10240-k8192": "{{ cited: 2.144 ms }} in FP8",
}


def operators(precision, work: list[Work]) -> list[tuple[float, kernels.Op]]:
    """Every operator of one GPU's step as (layers, Op), as the physics prices it."""
    record: list[tuple[float, kernels.Op]] = []
    pricer(GPU, MODEL, precision, TP, "tp")._price(work, None, record)
    return record


def layer_matmuls(record: list[tuple[float, kernels.Op]]) -> list[tuple[float, kernels.Op]]:
    """The matmuls repeated in every layer (the output head, once per step, left out)."""
    return [(n, op) for n, op in record if op.kind == "gemm" and n == MODEL.layers]


def summed(record: list[tuple[float, kernels.Op]], part: str) -> float:
    return sum(n * getattr(op, part) for n, op in record)


def quantizing_s(tokens: int) -> float:
    """One GPU's passes quantizing the FP8 matmuls' inputs, over all layers: each matmul's
    fixed cost with FP8 inputs less the same matmul's with BF16 inputs."""
    hidden, head = MODEL.hidden, MODEL.head_dim
    shapes = ((hidden, (MODEL.heads + 2 * MODEL.kv_heads) * head / TP),
              (MODEL.heads * head / TP, hidden), (hidden, 2 * MODEL.ffn / TP),
              (MODEL.ffn / TP, hidden))
    peaks, bandwidth = GPU.dense_flops, GPU.hbm_bytes_per_s
    return MODEL.layers * sum(
        kernels.gemm(HOPPER, "fp8", peaks, bandwidth, tokens, k, n, 1, 1).fixed_s
        - kernels.gemm(HOPPER, "fp8", peaks, bandwidth, tokens, k, n, 1, 2).fixed_s
        for k, n in shapes)


def page_figures() -> list[tuple[str, float, str]]:
    """The "check it yourself" figures, from the shared physics at the page's inputs."""
    fp8, fp8_kv = formats(), formats(kv="fp8")
    decode, fill = [Work(1, CONTEXT, count=BATCH)], [Work(CONTEXT, 0, logit_tokens=1)]
    plain_step = decode_step(GPU, MODEL, BATCH, CONTEXT, TP, BF16)
    fp8_step = decode_step(GPU, MODEL, BATCH, CONTEXT, TP, fp8)
    plain_fill = prefill(GPU, MODEL, CONTEXT, tp=TP, precision=BF16)
    fp8_fill = prefill(GPU, MODEL, CONTEXT, tp=TP, precision=fp8)
    fit = memory_fit(GPU, MODEL, 1, CONTEXT, TP, fp8)
    plain_ops, fp8_ops = layer_matmuls(operators(BF16, decode)), layer_matmuls(
        operators(fp8, decode))
    plain_classes = pricer(GPU, MODEL, BF16, TP, "tp").classes(decode)
    fp8_classes = pricer(GPU, MODEL, fp8, TP, "tp").classes(decode)
    plain_fill_classes = pricer(GPU, MODEL, BF16, TP, "tp").classes(fill)
    fp8_fill_classes = pricer(GPU, MODEL, fp8, TP, "tp").classes(fill)
    saved = summed(plain_ops, "memory_s") - summed(fp8_ops, "memory_s")
    given_back = summed(fp8_ops, "fixed_s") - summed(plain_ops, "fixed_s")
    bf16, fp8_fit = HOPPER.gemm["bf16"], HOPPER.gemm["fp8"]
    attention, elementwise = HOPPER.decode_attention["bf16"], HOPPER.elementwise
    plain_arithmetic = summed(layer_matmuls(operators(BF16, fill)), "compute_s")
    fp8_arithmetic = summed(layer_matmuls(operators(fp8, fill)), "compute_s")
    return [
        ("An H100 does {} TFLOP/s of dense BF16", GPU.bf16_flops / 1e12, ".0f"),
        ("BF16 and {} TFLOP/s of FP8", GPU.flops("fp8") / 1e12, ",.0f"),
        ("of FP8, {} times as much", GPU.flops("fp8") / GPU.bf16_flops, ".2f"),
        ("and reads {} TB/s from HBM", GPU.hbm_bytes_per_s / 1e12, ".2f"),
        ("| BF16 matmul (GEMM) | {}% |", bf16.compute_efficiency * 100, PROFILE),
        ("(GEMM) | 79.7% | {}% |", bf16.memory_efficiency * 100, PROFILE),
        ("| 81.9% | {} µs |", bf16.fixed_s * 1e6, PROFILE),
        ("| FP8 matmul (GEMM) | {}% |", fp8_fit.compute_efficiency * 100, PROFILE),
        ("(GEMM) | 65.6% | {}% |", fp8_fit.memory_efficiency * 100, PROFILE),
        ("| 79.4% | {} µs |", fp8_fit.fixed_s * 1e6, PROFILE),
        ("BF16 cache | | {}% |", attention.memory_efficiency * 100, PROFILE),
        ("| 84.6% | {} µs |", attention.fixed_s * 1e6, PROFILE),
        ("activation | | {}% |", elementwise.memory_efficiency * 100, PROFILE),
        ("| 80% | {} µs |", elementwise.fixed_s * 1e6, PROFILE),
        ("{} billion parameters in BF16", MODEL.params / 1e9, ".2f"),
        ("in BF16 are {} GB", MODEL.weight_bytes(BF16) / 1e9, ".1f"),
        ("GB, {} GB per GPU. In FP8", MODEL.weight_bytes(BF16) / TP / 1e9, ".1f"),
        ("stay in BF16: {} GB per GPU", fit.weights_per_gpu_bytes / 1e9, ".1f"),
        ("Its {} matmuls (four per layer", len(plain_ops) * MODEL.layers, "d"),
        ("layers' weights in {} ms", summed(plain_ops, "memory_s") * 1e3, ".2f"),
        ("and add {} ms of fixed costs", summed(plain_ops, "fixed_s") * 1e3, ".2f"),
        ("the matmuls take {} ms. Decode", plain_classes["gemm", "bf16"] * 1e3, ".2f"),
        ("of 32 caches of {} positions", CONTEXT + 1, ",d"),
        ("positions at {} bytes each", MODEL.kv_bytes_per_token("bf16"), ",.0f"),
        ("each: {} ms. The norms", plain_classes["decode_attention", "bf16"] * 1e3, ".2f"),
        ("activations take {} ms, and", plain_classes["elementwise", ""] * 1e3, ".2f"),
        ("the {} all-reduces", plain_step.collectives, "d"),
        ("the 160 all-reduces {} ms:", plain_step.collective_s * 1e3, ".2f"),
        ("ms: {} ms in all", plain_step.time_s * 1e3, ".2f"),
        ("read half the bytes, in {} ms", summed(fp8_ops, "memory_s") * 1e3, ".2f"),
        ("come to {} ms instead", summed(fp8_ops, "fixed_s") * 1e3, ".2f"),
        ("of the {} ms their", saved * 1e3, ".2f"),
        ("they give back {} ms", given_back * 1e3, ".2f"),
        ("the matmuls take {} ms. Attention",
         (fp8_classes["gemm", "fp8"] + fp8_classes["gemm", "bf16"]) * 1e3, ".2f"),
        ("unchanged at {} ms", fp8_classes["decode_attention", "bf16"] * 1e3, ".2f"),
        ("the norms take {} ms and", fp8_classes["elementwise", ""] * 1e3, ".2f"),
        ("and the all-reduces {} ms:", fp8_step.collective_s * 1e3, ".2f"),
        ("ms: {} ms, a speedup", fp8_step.time_s * 1e3, ".2f"),
        ("a speedup of {}, where", plain_step.time_s / fp8_step.time_s, ".2f"),
        ("memory time fell {} times", plain_step.memory_s / fp8_step.memory_s, ".2f"),
        ("take {} TFLOP in all", plain_fill.flops / 1e12, ".1f"),
        ("arithmetic takes {} ms per GPU", plain_arithmetic * 1e3, ".2f"),
        ("a peak twice as high, {} ms", fp8_arithmetic * 1e3, ".2f"),
        ("ms, {} times less rather", plain_arithmetic / fp8_arithmetic, ".2f"),
        ("inputs adds {} ms", quantizing_s(CONTEXT) * 1e3, ".2f"),
        ("Attention takes {} ms in BF16",
         plain_fill_classes["prefill_attention", "bf16"] * 1e3, ".2f"),
        ("BF16 and {} ms beside", fp8_fill_classes["prefill_attention", "bf16"] * 1e3, ".2f"),
        ("activations {} ms and", plain_fill_classes["elementwise", ""] * 1e3, ".2f"),
        ("ms and {} ms, and the 160", fp8_fill_classes["elementwise", ""] * 1e3, ".2f"),
        ("hidden states each {} ms in both", fp8_fill.collective_s * 1e3, ".2f"),
        ("prefill goes from {} ms", plain_fill.time_s * 1e3, ".1f"),
        ("ms to {} ms, a speedup", fp8_fill.time_s * 1e3, ".1f"),
        ("a speedup of {}. 5.", plain_fill.time_s / fp8_fill.time_s, ".2f"),
        ("uses {}% of each GPU's", USABLE_MEMORY_FRACTION * 100, ".0f"),
        ("GPU's 80 GiB (86 GB), {} GB.", fit.usable_per_gpu_bytes / 1e9, ".1f"),
        ("cache of 4,096 tokens is {} GB", MODEL.kv_bytes(CONTEXT, "bf16") / 1e9, ".2f"),
        ("KV heads: {} GB each", fit.kv_per_gpu_bytes / 1e9, ".3f"),
        ("room for {} requests", sequences_that_fit(GPU, MODEL, CONTEXT, TP, BF16), "d"),
        ("FP8 weights, {}; with", sequences_that_fit(GPU, MODEL, CONTEXT, TP, fp8), "d"),
        ("cache in FP8 too, {}.", sequences_that_fit(GPU, MODEL, CONTEXT, TP, fp8_kv), "d"),
    ]


@pytest.mark.parametrize(("phrase", "value", "spec"), page_figures())
def test_check_it_yourself_figures_match_the_physics(phrase: str, value: float, spec: str) -> None:
    assert phrase.format(format(value, spec)) in rendered("quantization")


def matmul_reads_saved_and_given_back(tp: int) -> tuple[float, float]:
    """One GPU's default decode step: the time the FP8 matmuls' smaller reads save against
    BF16's, and the time their larger fixed costs give back (s)."""
    work = [Work(1, CONTEXT, count=BATCH)]
    steps = []
    for precision in (BF16, formats()):
        record: list[tuple[float, kernels.Op]] = []
        pricer(GPU, MODEL, precision, tp, "tp")._price(work, None, record)
        steps.append(layer_matmuls(record))
    (plain, fp8) = steps
    return (summed(plain, "memory_s") - summed(fp8, "memory_s"),
            summed(fp8, "fixed_s") - summed(plain, "fixed_s"))


def test_fp8_matmuls_give_back_about_half_their_saving_on_four_gpus_nearly_all_on_eight() -> None:
    saved, given_back = matmul_reads_saved_and_given_back(TP)
    assert 0.4 <= given_back / saved <= 0.6  # "about half"
    saved, given_back = matmul_reads_saved_and_given_back(8)
    assert given_back / saved >= 0.9  # "nearly all"


def test_the_kernel_shares_the_prose_names_are_the_profiles() -> None:
    """The prose outside the worked example names the profiles' constants in words: an FP8
    matmul's fixed cost "about four times" a BF16 one's, FP8 reaching "about two thirds" of
    its peak and BF16 "about four fifths", and on a B200 FP4 "43%" against BF16's "70%"."""
    bf16, fp8 = HOPPER.gemm["bf16"], HOPPER.gemm["fp8"]
    assert 3.2 <= fp8.fixed_s / bf16.fixed_s <= 4.8
    assert fp8.memory_efficiency < bf16.memory_efficiency
    assert 0.53 <= fp8.compute_efficiency <= 0.8 and 0.64 <= bf16.compute_efficiency <= 0.96
    # The quoted measurements: FP8 "about a third less time" for one token through the 70B
    # projection, "about three fifths of the time" for 16,384 tokens.
    one = measured("aic-h100-gemm-fp8-m1-n10240-k8192") / measured(
        "aic-h100-gemm-bf16-m1-n10240-k8192")
    assert 0.8 / 3 <= 1 - one <= 1.2 / 3
    many = measured("aic-h100-gemm-fp8-m16384-n10240-k8192") / measured(
        "aic-h100-gemm-bf16-m16384-n10240-k8192")
    assert 0.48 <= many <= 0.72
    blackwell = GPUS["b200"].kernels.gemm
    text = rendered("quantization")
    assert (f"FP4 matmuls reaching {blackwell['fp4'].compute_efficiency:.0%} of their peak, "
            f"where BF16 ones reach {blackwell['bf16'].compute_efficiency:.0%} of theirs") in text


@functools.cache
def measured_points() -> dict[str, float]:
    """The H100 kernel times (ms) the page quotes from, by calibration point."""
    calibration = LAYOUT.content / "catalogue/calibration/aiconfigurator-h100.yaml"
    return {point["key"]: point["measured_ms"]
            for point in yaml.safe_load(calibration.read_text(encoding="utf-8"))["points"]}


def measured(key: str) -> float:
    return measured_points()[key]


def test_the_quoted_kernel_times_are_the_calibrations_measurements() -> None:
    points = measured_points()
    source = (LAYOUT.content / "explainers/quantization.md").read_text(encoding="utf-8")
    for key, phrase in QUOTED_POINTS.items():
        ms = points[key]
        shown = f"{ms:.3f} ms" if ms >= 1 else f"{ms * 1e3:.2f} µs"
        assert re.search(r"\{\{ cited: (.*?) \}\}", phrase)[1] == shown, key
        assert phrase in " ".join(source.split()), key


def test_page_starts_at_the_defaults_it_derives_from() -> None:
    assert {spec.name: spec.default for spec in quantization.INPUTS} == {
        "weights": "fp8", "activations": "auto", "kv": "bf16", "model": "llama-3.1-70b",
        "model_config": "",
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
