"""The shared physics against datasheets, published configs and sums worked by hand.

Every expected number here is written out from its source (a datasheet row, a config.json
field, a formula stated in sims.physics.kernels, collectives or pricing) rather than taken
from the module, so a typo in the catalogue or the physics fails. A kernel profile's fitted
constants (content/catalogue/kernels/, refitted by `make fit`) are read from the live
profile, never copied here: the formulas are what these tests pin, not the fit. How close
the fit comes to measurements is test_calibration.py's and test_calibration_targets.py's.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import pytest

from sims.kit.contract import InputError
from sims.physics import (
    GPUS,
    MODELS,
    PROFILES,
    USABLE_MEMORY_FRACTION,
    Gpu,
    Precision,
    Work,
    all_to_all_time,
    allreduce_fit,
    allreduce_time,
    alone,
    check_group,
    decode_step,
    host_link_time,
    kernels,
    memory_fit,
    p2p_time,
    precision_for,
    prefill,
    ridge_tokens,
    scale_out_time,
    smallest_fitting_tp,
    step_cost,
    touched_experts,
    tp_degrees,
)
from sims.physics.collectives import allreduce_implementation
from sims.physics.kernels import overlap
from sims.physics.precision import bytes_per_value
from sims.physics.pricing import pricer
from sims.physics.profile import TRAFFIC
from sims.physics.step import experts_per_gpu, padded_rows

H100, H200, A100, B200, L40S, MI300X = (GPUS[k] for k in ("h100", "h200", "a100", "b200",
                                                           "l40s", "mi300x"))
L8B, L70B = MODELS["llama-3.1-8b"], MODELS["llama-3.1-70b"]
DEEPSEEK, GPT_OSS, QWEN_MOE = (MODELS[k] for k in ("deepseek-v3", "gpt-oss-120b",
                                                    "qwen3-30b-a3b"))
BF16 = 2  # bytes a BF16 value takes; a matmul writes its output in BF16 whatever its inputs


# --- GPUs: datasheet figures, dense ---------------------------------------------------

@pytest.mark.parametrize(
    ("key", "rates", "capacity", "bandwidth", "link", "domain", "host", "network"),
    [
        # A100 SXM 80 GB: 312 TFLOPS BF16 dense (624 sparse), no FP8; NVLink 600 GB/s both
        # ways; PCIe Gen4 64 GB/s both ways; DGX A100: one 200 Gb/s port per GPU. Memory as
        # NVIDIA's aiconfigurator records it, in bytes: the datasheets' GB are binary.
        ("a100", {"bf16": 312e12}, 80 * 2**30, 2039e9, 300e9, 8, 32e9, 25e9),
        # H100 SXM: 1,979 / 3,958 TFLOPS BF16 / FP8 with sparsity; NVLink 900 GB/s; PCIe Gen5
        # 128 GB/s; DGX H100: one 400 Gb/s port per GPU.
        ("h100", {"bf16": 989e12, "fp8": 1979e12}, 80 * 2**30, 3.35e12, 450e9, 8, 64e9, 50e9),
        ("h200", {"bf16": 989e12, "fp8": 1979e12}, 141 * 2**30, 4.8e12, 450e9, 8, 64e9, 50e9),
        # HGX B200: 36 / 72 / 144 PFLOPS sparse for eight GPUs; DGX B200 memory and NVLink.
        ("b200", {"bf16": 2.25e15, "fp8": 4.5e15, "fp4": 9e15}, 180 * 2**30, 8e12, 900e9, 8, None,
         50e9),
        ("mi300x", {"bf16": 1307.4e12, "fp8": 2614.9e12}, 192e9, 5.3e12, 448e9, 8, 64e9, None),
        # L40S: no NVLink, a PCIe card: a scale-up domain of one.
        ("l40s", {"bf16": 362.05e12, "fp8": 733e12}, 48e9, 864e9, 32e9, 1, 32e9, None),
        # HGX B300 per GPU, dense (FP4 13.125 of 18 sparse); FP6 is on the page, not priced.
        ("b300", {"bf16": 2.25e15, "fp8": 4.5e15, "fp4": 13.125e15}, 275040 * 2**20, 8e12, 900e9, 8,
         None, 100e9),
        # Rack-scale: 72 GPUs on one NVLink domain.
        ("gb200-nvl72", {"bf16": 2.5e15, "fp8": 5e15, "fp4": 10e15}, 189471 * 2**20, 8e12,
         900e9, 72, None, 50e9),
        ("gb300-nvl72", {"bf16": 2.5e15, "fp8": 5e15, "fp4": 15e15}, 284208 * 2**20, 8e12,
         900e9, 72, None, None),
        # Export variants of Hopper: the H20's compute cut, the H800's NVLink cut.
        ("h20", {"bf16": 148e12, "fp8": 294e12}, 96e9, 4e12, 450e9, 8, 64e9, None),
        ("h800", {"bf16": 989e12, "fp8": 1978e12}, 80 * 2**30, 3.35e12, 200e9, 8, 64e9, 50e9),
        # A GDDR7 Blackwell card: rates at the clock NVIDIA's aiconfigurator measured.
        ("rtx-pro-6000", {"bf16": 467.8e12, "fp8": 935.6e12, "fp4": 1871.2e12}, 97887 * 2**20,
         1.792e12, 64e9, 1, 64e9, None),
        ("mi325x", {"bf16": 1307.4e12, "fp8": 2614.9e12}, 256e9, 6e12, 448e9, 8, None, None),
        # CDNA 4: MXFP4 (and MXFP6, on the page only) at twice FP8; XGMI 76.5 GB/s x 7.
        ("mi355x", {"bf16": 2.5e15, "fp8": 5e15, "fp4": 10.1e15}, 288e9, 8e12, 535.5e9, 8, 63e9,
         None),
        # Announced, not shipping: NVIDIA's pre-release figures.
        ("vera-rubin-nvl72", {"bf16": 4e15, "fp8": 17.5e15, "fp4": 35e15}, 288e9, 22e12, 1.8e12,
         72, None, None),
    ],
)
def test_gpu_figures_match_the_datasheets(
    key: str, rates: dict[str, float], capacity: float, bandwidth: float, link: float,
    domain: int, host: float | None, network: float | None,
) -> None:
    gpu = GPUS[key]
    assert dict(gpu.dense_flops) == pytest.approx(rates)
    assert (gpu.hbm_bytes, gpu.hbm_bytes_per_s) == pytest.approx((capacity, bandwidth))
    assert gpu.scale_up_bytes_per_s == pytest.approx(link)
    assert gpu.scale_up_gpus == domain
    assert gpu.host_link_bytes_per_s == (None if host is None else pytest.approx(host))
    assert gpu.scale_out_bytes_per_s == (None if network is None else pytest.approx(network))


def test_each_gpu_prices_with_its_generations_kernel_profile() -> None:
    assert {key: gpu.kernels.key for key, gpu in GPUS.items()} == {
        "a100": "ampere", "h100": "hopper", "h200": "hopper", "b200": "blackwell",
        "l40s": "ada", "mi300x": "cdna3", "h20": "hopper", "h800": "hopper",
        "b300": "blackwell", "gb200-nvl72": "blackwell", "gb300-nvl72": "blackwell",
        "rtx-pro-6000": "blackwell-gddr7", "mi325x": "cdna3", "mi355x": "cdna4",
        "vera-rubin-nvl72": "rubin"}
    # AMD's full mesh: a direct link to each of the seven others; the rest are switched.
    assert {key for key, gpu in GPUS.items() if gpu.topology == "mesh"} == {
        "mi300x", "mi325x", "mi355x"}
    # No measured MI300X, MI355X, L40S, RTX PRO 6000 or Rubin kernels: their profiles take
    # another generation's constants, and say so.
    for borrowed, like in (("cdna3", "hopper"), ("ada", "hopper"),
                           ("blackwell-gddr7", "blackwell"), ("cdna4", "blackwell"),
                           ("rubin", "blackwell")):
        profile = PROFILES[borrowed]
        assert profile.measured_as == like
        assert (profile.gemm, profile.decode_attention) == (PROFILES[like].gemm,
                                                            PROFILES[like].decode_attention)


def test_a_precision_the_gpu_lacks_is_an_error_naming_both() -> None:
    with pytest.raises(ValueError, match=r"NVIDIA A100 SXM 80 GB has no FP8 .*it has BF16\)"):
        A100.flops("fp8")
    with pytest.raises(ValueError, match=r"H100 SXM 80 GB has no FP4"):
        H100.flops("fp4")


def test_ridge_points_at_peak_and_at_the_shares_the_gemms_reach() -> None:
    assert H100.ridge_flops_per_byte == pytest.approx(989 / 3.35)  # 295.2 FLOP/byte
    assert H100.ridge("fp8") == pytest.approx(1979 / 3.35)
    assert A100.ridge_flops_per_byte == pytest.approx(312 / 2.039)  # 153.0
    for gpu, fmt, peak, bandwidth in ((H100, "bf16", 989e12, 3.35e12),
                                      (H100, "fp8", 1979e12, 3.35e12),
                                      (B200, "fp4", 9e15, 8e12), (A100, "bf16", 312e12, 2039e9)):
        fit = gpu.kernels.gemm[fmt]
        assert gpu.ridge(fmt, efficient=True) == pytest.approx(
            peak * fit.compute_efficiency / (bandwidth * fit.memory_efficiency))
    # A matmul's ridge in tokens: 2n FLOPs per weight of b bytes meets that ridge.
    bf16, fp8 = H100.kernels.gemm["bf16"], H100.kernels.gemm["fp8"]
    assert ridge_tokens(H100, L8B) == round(
        989e12 * bf16.compute_efficiency / (3.35e12 * bf16.memory_efficiency))
    weights_fp8 = precision_for(H100, L8B, weights="fp8")
    assert ridge_tokens(H100, L8B, weights_fp8) == round(
        1979e12 * fp8.compute_efficiency / (3.35e12 * fp8.memory_efficiency) / 2)


# --- Models: counts derived from config.json, against the publishers' ------------------

def _llama_params(layers: int, hidden: int, heads: int, kv_heads: int, head_dim: int,
                  ffn: int, vocab: int, tied: bool) -> int:
    """Parameters of a Llama-shaped model, written out term by term."""
    attention = hidden * heads * head_dim * 2 + hidden * kv_heads * head_dim * 2  # q,o + k,v
    mlp = 3 * hidden * ffn  # gate, up, down
    norms = 2 * hidden
    embedding = vocab * hidden
    head = 0 if tied else vocab * hidden
    return layers * (attention + mlp + norms) + embedding + head + hidden  # + final norm


@pytest.mark.parametrize(
    ("key", "shape", "expected"),
    [
        ("llama-3.1-8b", (32, 4096, 32, 8, 128, 14336, 128256, False), 8_030_261_248),
        ("llama-3.1-70b", (80, 8192, 64, 8, 128, 28672, 128256, False), 70_553_706_496),
        ("llama-3.2-1b", (16, 2048, 32, 8, 64, 8192, 128256, True), 1_235_814_400),
        ("llama-3.1-405b", (126, 16384, 128, 8, 128, 53248, 128256, False), 405_853_388_800),
    ],
)
def test_llama_shapes_and_sizes(key: str, shape: tuple, expected: int) -> None:
    assert _llama_params(*shape) == expected
    assert MODELS[key].params == expected


# Publishers count active parameters differently: Qwen's include the embedding table,
# DeepSeek's and OpenAI's do not; ours never do (a lookup is no matmul).
@pytest.mark.parametrize(
    ("key", "total", "active", "embedding_counted"),
    [
        ("deepseek-v3", 671e9, 37e9, False),
        ("gpt-oss-120b", 117e9, 5.1e9, False),
        ("qwen3-235b-a22b", 235e9, 22e9, True),
        ("qwen3-30b-a3b", 30.5e9, 3.3e9, True),
    ],
)
def test_moe_totals_and_active_counts_match_the_model_cards(
    key: str, total: float, active: float, embedding_counted: bool
) -> None:
    model = MODELS[key]
    embedding = model.vocab * model.hidden if embedding_counted else 0
    assert model.params == pytest.approx(total, rel=0.01)
    assert model.params_active + embedding == pytest.approx(active, rel=0.03)


def test_deepseek_has_three_dense_layers_then_experts_with_a_shared_one() -> None:
    assert [kind.moe for kind in DEEPSEEK.kinds[:4]] == [False, False, False, True]
    assert (DEEPSEEK.moe_layers, DEEPSEEK.experts, DEEPSEEK.experts_per_token,
            DEEPSEEK.shared_experts) == (58, 256, 8, 1)
    assert DEEPSEEK.native == Precision("fp8", "fp8")  # quantization_config: fp8
    # Every MoE layer: router, 256 routed and 1 shared expert of 3 x 7168 x 2048.
    expert = 3 * 7168 * 2048
    assert DEEPSEEK.expert_weight_bytes() == 58 * 256 * expert * 1  # FP8: a byte a weight


def test_gpt_oss_alternates_windows_and_keeps_experts_in_mxfp4() -> None:
    assert [kind.window for kind in GPT_OSS.kinds[:4]] == [128, 0, 128, 0]
    assert GPT_OSS.native == Precision("bf16", "fp4")
    expert = 3 * 2880 * 2880
    assert GPT_OSS.expert_weight_bytes() == pytest.approx(36 * 128 * expert * 4.25 / 8)


@pytest.mark.parametrize(
    ("key", "per_token"),
    [
        ("llama-3.1-8b", 2 * 32 * 8 * 128 * 2),  # K and V, layers, KV heads, head_dim, BF16
        ("llama-3.1-70b", 2 * 80 * 8 * 128 * 2),
        ("qwen3-235b-a22b", 2 * 94 * 4 * 128 * 2),
        ("deepseek-v3", 61 * (512 + 64) * 2),  # one latent of kv_lora_rank + a rotary key
        ("gpt-oss-120b", 18 * 2 * 8 * 64 * 2),  # only the 18 full-attention layers grow
    ],
)
def test_kv_bytes_per_token(key: str, per_token: int) -> None:
    model = MODELS[key]
    assert model.kv_bytes_per_token("bf16") == per_token
    assert model.kv_bytes_per_token("fp8") == per_token / 2
    assert model.kv_bytes_per_token("fp4") == per_token * 4.25 / 16


def test_sliding_layers_hold_their_window_only() -> None:
    per_layer_token = 2 * 8 * 64 * 2
    assert GPT_OSS.kv_bytes(100) == 36 * 100 * per_layer_token
    assert GPT_OSS.kv_bytes(5000) == (18 * 5000 + 18 * 128) * per_layer_token
    assert GPT_OSS.kv_constant_bytes() == 18 * 128 * per_layer_token


# --- Precisions --------------------------------------------------------------------------

def test_fp4_weights_on_a_hopper_read_fewer_bytes_but_compute_at_bf16() -> None:
    fp4 = precision_for(H100, L8B, weights="fp4")
    assert fp4 == Precision("fp4", "fp4", "bf16", "bf16")  # no FP4 rate: weight-only
    bf16 = decode_step(H100, L8B, 1, 0)
    quantized = decode_step(H100, L8B, 1, 0, precision=fp4)
    assert quantized.flops == bf16.flops
    layer_weights = 32 * (4096 * 6144 + 4096 * 4096 + 3 * 4096 * 14336)
    assert bf16.bytes - quantized.bytes == pytest.approx(layer_weights * (2 - 4.25 / 8))
    # The same FLOPs through the same BF16 GEMMs: equal compute time, less memory time.
    assert quantized.compute_s == pytest.approx(bf16.compute_s)
    assert quantized.memory_s < bf16.memory_s and quantized.time_s < bf16.time_s


def test_fp8_weights_compute_at_the_fp8_rate_where_the_gpu_has_one() -> None:
    assert precision_for(H100, L8B, weights="fp8").activations == "fp8"
    assert precision_for(A100, L8B, weights="fp8").activations == "bf16"
    assert precision_for(B200, L8B, weights="fp4").activations == "fp4"
    # A prefill-sized matmul: twice the peak, at the share of it FP8 GEMMs reach.
    bf16, fp8 = alone.gemm(H100, 8192, 4096, 14336), alone.gemm(H100, 8192, 4096, 14336,
                                                                  "fp8", "fp8")
    fits = H100.kernels.gemm
    assert fp8.compute_s / bf16.compute_s == pytest.approx(
        989 * fits["bf16"].compute_efficiency / (1979 * fits["fp8"].compute_efficiency))
    assert (bf16.variant, fp8.variant) == ("bf16", "fp8")


def test_activations_in_a_format_the_gpu_lacks_are_refused_by_name() -> None:
    with pytest.raises(InputError) as caught:
        precision_for(H100, L8B, weights="fp4", activations="fp4")
    assert caught.value.input == "activations"
    assert "NVIDIA H100 SXM 80 GB has no FP4" in str(caught.value)
    with pytest.raises(InputError) as bad:
        precision_for(H100, L8B, kv="int8")
    assert bad.value.input == "kv"


# --- Kernel classes, each priced by hand from its profile's constants ------------------

def _gemm_s(gpu: Gpu, fmt: str, tokens: float, k: float, n: float, weight_bytes: float,
            activation_bytes: float) -> tuple[float, float]:
    """(seconds, fixed seconds) of a (tokens x k) @ (k x n) GEMM computing in `fmt` (a
    format the profile has), as sims.physics.kernels states it: compute c = 2 t k n FLOPs at
    the fit's share of peak; memory m = the weights, the input in its format and the BF16
    output at its share of bandwidth; fixed costs: the fit's, a cost per step of k, and for
    activations narrower than BF16 a pass reading the BF16 input and writing it quantized;
    time = fixed + (c^p + m^p)^(1/p) with the profile's exponent p."""
    fit, p = gpu.kernels.gemm[fmt], gpu.kernels.overlap_exponent
    bandwidth = fit.memory_efficiency * gpu.hbm_bytes_per_s
    c = 2 * tokens * k * n / (fit.compute_efficiency * gpu.dense_flops[fmt])
    m = (k * n * weight_bytes + tokens * k * activation_bytes + tokens * n * BF16) / bandwidth
    quantize = tokens * k * (BF16 + activation_bytes) / bandwidth if activation_bytes < BF16 else 0
    fixed = fit.fixed_s + fit.k_step_s * k + quantize
    return fixed + (c ** p + m ** p) ** (1 / p), fixed


def _decode_attention_s(gpu: Gpu, kv: str, cached_bytes: float, sequences: float,
                        units: float, flops: float = 0.0, computing: str = "bf16"
                        ) -> tuple[float, float]:
    """(seconds, fixed seconds) of decode attention: memory m = the cached K and V read at
    the class's share of bandwidth, or at `units` (sequence, KV head) pairs' share each if
    less; compute c = the new tokens' `flops` at the share of the peak of `computing` (a
    format the profile has) that its prefill attention kernel reaches; a fixed cost and a
    cost per sequence; time = fixed + (c^p + m^p)^(1/p) with the profile's exponent p."""
    fit, p = gpu.kernels.decode_attention[kv], gpu.kernels.overlap_exponent
    share = min(fit.memory_efficiency, units * fit.unit_share)
    fixed = fit.fixed_s + fit.per_sequence_s * sequences
    c = flops / (gpu.kernels.prefill_attention[computing].compute_efficiency
                 * gpu.dense_flops[computing])
    m = cached_bytes / (share * gpu.hbm_bytes_per_s)
    return fixed + (c ** p + m ** p) ** (1 / p), fixed


def _elementwise_s(gpu: Gpu, moved: float, kernels: int) -> tuple[float, float]:
    """(seconds, fixed seconds) of `kernels` memory-bound kernels moving `moved` bytes."""
    fit = gpu.kernels.elementwise
    fixed = kernels * fit.fixed_s
    return fixed + moved / (fit.memory_efficiency * gpu.hbm_bytes_per_s), fixed


@pytest.mark.parametrize("gpu_key", ["h100", "a100", "b200"])
@pytest.mark.parametrize(("tokens", "k", "n"), [(1, 4096, 6144), (64, 14336, 4096),
                                                (4096, 4096, 28672), (333, 8192, 1280)])
def test_a_gemm_overlaps_its_compute_and_memory_times(gpu_key: str, tokens: int, k: int,
                                                      n: int) -> None:
    gpu = GPUS[gpu_key]
    op = alone.gemm(gpu, tokens, k, n)
    seconds, fixed = _gemm_s(gpu, "bf16", tokens, k, n, BF16, BF16)
    assert op.time_s == pytest.approx(seconds, rel=1e-12)
    assert op.fixed_s == pytest.approx(fixed, rel=1e-12)
    assert (op.kind, op.variant, op.p) == ("gemm", "bf16", gpu.kernels.overlap_exponent)
    # More than the longer of its two times, less than both one after the other.
    assert max(op.compute_s, op.memory_s) < op.time_s - op.fixed_s < op.compute_s + op.memory_s


@pytest.mark.parametrize("gpu_key", ["h100", "b200"])
def test_at_the_ridge_a_gemm_takes_two_to_the_one_over_p_of_either_time(gpu_key: str) -> None:
    """Where c = m the overlap costs the most: 2^(1/p) of either (26% above at p = 3);
    far from the ridge it is the longer of the two."""
    gpu, k, n = GPUS[gpu_key], 8192, 8192
    fit, p = gpu.kernels.gemm["bf16"], gpu.kernels.overlap_exponent
    flop_s = 2 * k * n / (fit.compute_efficiency * gpu.bf16_flops)  # per token
    bandwidth = fit.memory_efficiency * gpu.hbm_bytes_per_s
    # c(t) = t * flop_s; m(t) = (2kn + t * 2(k + n)) / bandwidth: equal at this t.
    ridge = 2 * k * n / bandwidth / (flop_s - 2 * (k + n) / bandwidth)
    at = alone.gemm(gpu, ridge, k, n)
    assert at.compute_s == pytest.approx(at.memory_s, rel=1e-9)
    assert at.time_s - at.fixed_s == pytest.approx(2 ** (1 / p) * at.compute_s, rel=1e-9)
    far = alone.gemm(gpu, 100 * ridge, k, n)
    assert far.time_s - far.fixed_s == pytest.approx(far.compute_s, rel=1e-3)
    assert overlap(3.0, 0.0, p) == 3.0 and overlap(2.0, 5.0, 1.0) == 7.0


@pytest.mark.parametrize("gpu_key", ["h100", "a100", "b200"])
def test_a_gemms_fixed_cost_grows_with_its_steps_along_k(gpu_key: str) -> None:
    gpu = GPUS[gpu_key]
    fit = gpu.kernels.gemm["bf16"]
    short, deep = alone.gemm(gpu, 16, 1024, 4096), alone.gemm(gpu, 16, 16384, 4096)
    assert short.fixed_s == pytest.approx(fit.fixed_s + 1024 * fit.k_step_s)
    assert deep.fixed_s - short.fixed_s == pytest.approx((16384 - 1024) * fit.k_step_s)


@pytest.mark.parametrize(("gpu_key", "fmt", "activation_bytes"),
                         [("h100", "fp8", 1.0), ("b200", "fp8", 1.0), ("b200", "fp4", 4.25 / 8)])
def test_narrow_activations_pay_a_quantize_pass_before_the_gemm(
    gpu_key: str, fmt: str, activation_bytes: float
) -> None:
    gpu = GPUS[gpu_key]
    fit = gpu.kernels.gemm[fmt]
    tokens, k, n = 512, 7168, 4096
    op = alone.gemm(gpu, tokens, k, n, fmt, fmt)
    seconds, fixed = _gemm_s(gpu, fmt, tokens, k, n, activation_bytes, activation_bytes)
    assert op.time_s == pytest.approx(seconds, rel=1e-12)
    # The pass reads each input value in BF16 and writes it in the narrower format.
    quantize = tokens * k * (2 + activation_bytes) / (fit.memory_efficiency
                                                      * gpu.hbm_bytes_per_s)
    assert op.fixed_s - fit.fixed_s - fit.k_step_s * k == pytest.approx(quantize)
    assert fixed == pytest.approx(op.fixed_s)
    # BF16 activations need none.
    plain = alone.gemm(gpu, tokens, k, n)
    assert plain.fixed_s == pytest.approx(gpu.kernels.gemm["bf16"].fixed_s
                                          + gpu.kernels.gemm["bf16"].k_step_s * k)


def test_a_format_the_profile_lacks_falls_back_to_a_wider_one() -> None:
    hopper, ampere, blackwell = PROFILES["hopper"], PROFILES["ampere"], PROFILES["blackwell"]
    assert hopper.format_of(hopper.gemm, "fp4", "GEMM") == "fp8"
    assert hopper.format_of(hopper.decode_attention, "fp4", "decode attention") == "fp8"
    assert ampere.format_of(ampere.gemm, "fp8", "GEMM") == "bf16"
    assert blackwell.format_of(blackwell.gemm, "fp4", "GEMM") == "fp4"  # its own, when it has it
    assert hopper.for_format(hopper.gemm, "fp4", "GEMM") is hopper.gemm["fp8"]
    with pytest.raises(ValueError, match="profile has no GEMM for bf16"):
        hopper.format_of({"fp8": hopper.gemm["fp8"]}, "bf16", "GEMM")  # never a narrower one
    # In a step: an FP4 KV cache on a Hopper is read by the FP8 decode kernel (at FP4's bytes),
    # its arithmetic in BF16 (the wider of the activations' and the cache's formats).
    fp4_kv = precision_for(H100, L8B, kv="fp4")
    classes = pricer(H100, L8B, fp4_kv, 1, "tp").classes([Work(1, 4096, count=8)])
    assert ("decode_attention", "fp8") in classes and ("decode_attention", "fp4") not in classes
    cached = 8 * 4097 * 2 * 8 * 128 * 4.25 / 8
    flops = 4 * 32 * 128 * 8 * 4097  # each new token's query against 4097 keys and values
    assert classes["decode_attention", "fp8"] == pytest.approx(
        32 * _decode_attention_s(H100, "fp8", cached, 8, 8 * 8, flops, "bf16")[0], rel=1e-12)


@pytest.mark.parametrize("gpu_key", ["h100", "b200"])
def test_decode_attention_streams_at_most_a_share_per_sequence_and_kv_head(gpu_key: str
                                                                           ) -> None:
    """One short sequence with one KV head cannot fill the GPU: it reads its cache slower
    per byte than a batch whose (sequence, KV head) units reach the class's share."""
    gpu = GPUS[gpu_key]
    fit, bandwidth = gpu.kernels.decode_attention["bf16"], gpu.hbm_bytes_per_s
    assert fit.unit_share < fit.memory_efficiency < 512 * fit.unit_share
    one = alone.decode_attention(gpu, kv_heads=1, head_dim=128, batch=1, context=2048)
    many = alone.decode_attention(gpu, kv_heads=8, head_dim=128, batch=64, context=2048)
    one_bytes, many_bytes = 2049 * 2 * 1 * 128 * 2, 64 * 2049 * 2 * 8 * 128 * 2
    assert one.memory_s == pytest.approx(one_bytes / (fit.unit_share * bandwidth))
    assert many.memory_s == pytest.approx(many_bytes / (fit.memory_efficiency * bandwidth))
    assert one.memory_s / one_bytes > many.memory_s / many_bytes
    assert (one.fixed_s, many.fixed_s) == pytest.approx(
        (fit.fixed_s + fit.per_sequence_s, fit.fixed_s + 64 * fit.per_sequence_s))
    assert one.compute_s == 0 and one.time_s == pytest.approx(one.fixed_s + one.memory_s)
    # Given the query heads, the arithmetic too: 4 x heads x head_dim per attended pair, at
    # the share of the BF16 peak the prefill kernel reaches, overlapping the same read.
    counted = alone.decode_attention(gpu, kv_heads=8, head_dim=128, batch=64, context=2048,
                                     heads=32)
    assert counted.compute_s == pytest.approx(4 * 32 * 128 * 2049 * 64 / (
        gpu.kernels.prefill_attention["bf16"].compute_efficiency * gpu.dense_flops["bf16"]))
    assert counted.memory_s == pytest.approx(many.memory_s)
    c, m, p = counted.compute_s, counted.memory_s, gpu.kernels.overlap_exponent
    assert counted.time_s == pytest.approx(counted.fixed_s + (c ** p + m ** p) ** (1 / p))
    assert counted.time_s > many.time_s


def test_prefill_attention_runs_its_parts_one_after_another() -> None:
    heads, kv_heads, head_dim, tokens, batch = 32, 8, 128, 4096, 2
    fit = H100.kernels.prefill_attention["bf16"]
    flops = 4 * heads * head_dim * tokens * (tokens + 1) / 2 * batch  # causal pairs
    moved = batch * tokens * head_dim * (2 * heads * 2 + 2 * kv_heads * 2)  # Q, O; K, V
    compute = flops / (fit.compute_efficiency * 989e12)
    tiles = fit.per_sequence_head_s * batch * heads
    operator = alone.prefill_attention(H100, heads, kv_heads, head_dim, tokens, batch)
    assert operator == pytest.approx(compute + fit.memory_passes * moved / 3.35e12
                                     + fit.fixed_s + tiles, rel=1e-12)
    # As attention benchmarks time the kernel: no RoPE, no cache write, no operator overhead.
    kernel = alone.prefill_attention(H100, heads, kv_heads, head_dim, tokens, batch,
                                     kernel_only=True)
    assert kernel == pytest.approx(compute + tiles, rel=1e-12)


def test_a_decode_step_of_several_new_tokens_pays_for_their_attention_arithmetic() -> None:
    """A speculative verify of n tokens per sequence runs the decode kernel: it reads the
    cache once, but each of its n queries meets every cached token and the new ones up to
    itself, arithmetic priced at the share of peak the prefill kernel reaches and overlapped
    with the read as the profile's kernels overlap."""
    batch, context, hopper = 64, 4096, H100.kernels
    priced = {}
    for n in (1, 5, 32):
        pairs = batch * (n * context + n * (n + 1) / 2)
        flops = 4 * 32 * 128 * pairs  # a layer's 32 query heads of 128
        cached = batch * (context + n) * 2 * 8 * 128 * BF16  # 8 KV heads, K and V
        classes = pricer(H100, L8B, precision_for(H100, L8B), 1, "tp").classes(
            [Work(n, context, count=batch)])
        assert classes["decode_attention", "bf16"] == pytest.approx(
            32 * _decode_attention_s(H100, "bf16", cached, batch, batch * 8, flops)[0],
            rel=1e-12)
        # The arithmetic costs time beyond the read it overlaps with.
        assert classes["decode_attention", "bf16"] > 32 * _decode_attention_s(
            H100, "bf16", cached, batch, batch * 8)[0]
        priced[n] = kernels.decode_attention(hopper, "bf16", H100.hbm_bytes_per_s, cached,
                                             batch, batch * 8, flops, "bf16", H100.dense_flops)
        assert priced[n].compute_s == pytest.approx(
            flops / (hopper.prefill_attention["bf16"].compute_efficiency * 989e12), rel=1e-12)
        assert (priced[n].kind, priced[n].p) == ("decode_attention", hopper.overlap_exponent)
    # n tokens: about n times one token's arithmetic (the pairs among the new ones besides).
    assert priced[5].compute_s / priced[1].compute_s == pytest.approx(
        (5 * 4096 + 15) / (4096 + 1))
    assert priced[1].compute_s < priced[5].compute_s < priced[32].compute_s
    assert priced[1].time_s < priced[5].time_s < priced[32].time_s


def test_fp4_attention_on_a_blackwell_runs_at_the_fp8_kernels_peak() -> None:
    """The B200 computes FP4 at 9 PFLOPS, but its profile has no FP4 attention kernels: FP4
    attention runs as the FP8 kernels do, at FP8's 4.5 PFLOPS."""
    blackwell = B200.kernels
    assert B200.dense_flops["fp4"] == pytest.approx(9e15)
    assert "fp4" not in blackwell.prefill_attention and "fp4" not in blackwell.decode_attention
    fit = blackwell.prefill_attention["fp8"]
    heads, kv_heads, head_dim, tokens = 32, 8, 128, 4096
    flops = 4 * heads * head_dim * tokens * (tokens + 1) / 2
    kernel = alone.prefill_attention(B200, heads, kv_heads, head_dim, tokens,
                                     activations="fp4", kv="fp4", kernel_only=True)
    assert kernel == pytest.approx(flops / (fit.compute_efficiency * 4.5e15)
                                   + fit.per_sequence_head_s * heads, rel=1e-12)
    # In a step with FP4 activations and an FP4 cache: a 4096-token prefill, the operator
    # whole (its parts one after another), and a decode's arithmetic at the same peak.
    fp4 = precision_for(B200, L8B, weights="fp4", kv="fp4")
    fp4_bytes = bytes_per_value("fp4")
    prompt = pricer(B200, L8B, fp4, 1, "tp").classes([Work(tokens, 0, logit_tokens=1)])
    assert ("prefill_attention", "fp8") in prompt and ("prefill_attention", "fp4") not in prompt
    moved = tokens * head_dim * (2 * heads + 2 * kv_heads) * fp4_bytes
    assert prompt["prefill_attention", "fp8"] == pytest.approx(
        32 * (flops / (fit.compute_efficiency * 4.5e15)
              + fit.memory_passes * moved / B200.hbm_bytes_per_s
              + fit.fixed_s + fit.per_sequence_head_s * heads), rel=1e-12)
    decode = pricer(B200, L8B, fp4, 1, "tp").classes([Work(1, 4096, count=8)])
    cached = 8 * 4097 * 2 * kv_heads * head_dim * fp4_bytes
    assert decode["decode_attention", "fp8"] == pytest.approx(32 * _decode_attention_s(
        B200, "fp8", cached, 8, 8 * kv_heads, 4 * heads * head_dim * 8 * 4097, "fp8")[0],
        rel=1e-12)


def test_a_bf16_matmul_reads_narrow_activations_in_bf16_and_quantizes_nothing() -> None:
    """FP8 activations, but the output head keeps BF16 weights: it computes in BF16, reads
    its input in BF16 and pays no quantize pass, while the FP8 matmuls do."""
    fp8 = precision_for(H100, L8B, weights="fp8")
    assert fp8.activations == "fp8"
    classes = pricer(H100, L8B, fp8, 1, "tp").classes([Work(1, 1000, count=16)])
    head, head_fixed = _gemm_s(H100, "bf16", 16, 4096, 128256, BF16, BF16)
    assert classes["gemm", "bf16"] == pytest.approx(head, rel=1e-12)
    assert head_fixed == pytest.approx(H100.kernels.gemm["bf16"].fixed_s
                                       + H100.kernels.gemm["bf16"].k_step_s * 4096)
    # The layers' FP8 matmuls (QKV, O, gate and up, down) read FP8 inputs, quantized first.
    layers = [_gemm_s(H100, "fp8", 16, k, n, 1.0, 1.0)
              for k, n in ((4096, 6144), (4096, 4096), (4096, 2 * 14336), (14336, 4096))]
    assert classes["gemm", "fp8"] == pytest.approx(32 * sum(s for s, _ in layers), rel=1e-12)


@pytest.mark.parametrize(("model_key", "gpu_key", "tp", "batch"), [
    ("qwen3-30b-a3b", "h100", 1, 1), ("qwen3-30b-a3b", "h100", 2, 64),
    ("gpt-oss-120b", "b200", 1, 16), ("deepseek-v3", "h200", 8, 256),
])
def test_a_steps_moe_layers_are_priced_as_the_moe_kernel_alone(model_key: str, gpu_key: str,
                                                               tp: int, batch: int) -> None:
    """What the calibration holds against measured MoE layers (sims.physics.alone) is what a
    step charges for each of its MoE layers, and the grouped matmuls' arithmetic is the
    routed rows' (6 x hidden x width FLOPs each), split over the GPUs that hold the experts."""
    gpu, model = GPUS[gpu_key], MODELS[model_key]
    precision = precision_for(gpu, model)
    classes = pricer(gpu, model, precision, tp, "tp").classes([Work(1, 500, count=batch)])
    moe = sum(seconds for (kind, _), seconds in classes.items() if kind == "moe")
    layer = alone.moe(gpu, batch, model.hidden, model.expert_ffn, model.experts,
                      model.experts_per_token, tp=tp, experts_format=precision.experts,
                      activations=precision.activations)
    assert moe == pytest.approx(model.moe_layers * layer.time_s, rel=1e-12)
    assert layer.kind == "moe" and layer.time_s > layer.fixed_s > 0
    # Twice the tokens at saturation (every expert touched): the arithmetic of twice the
    # rows, each expert's padded to whole tiles (so at most twice); eight GPUs holding an
    # eighth of the experts each: an eighth of it on each.
    many = alone.moe(gpu, 8192, model.hidden, model.expert_ffn, model.experts,
                     model.experts_per_token)
    more = alone.moe(gpu, 16384, model.hidden, model.expert_ffn, model.experts,
                     model.experts_per_token)
    spread = alone.moe(gpu, 8192, model.hidden, model.expert_ffn, model.experts,
                       model.experts_per_token, ep=8)
    tile = int(gpu.kernels.moe["bf16"].tile_rows)  # `many` and `more` run in BF16
    rows = {n: (padded_rows(n, model.experts, model.experts_per_token, model.experts, tile)
                if tile else n * model.experts_per_token) for n in (8192, 16384)}
    assert more.compute_s == pytest.approx(many.compute_s * rows[16384] / rows[8192])
    assert many.compute_s < more.compute_s <= 2 * many.compute_s * (1 + 1e-12)
    assert spread.compute_s == pytest.approx(many.compute_s / 8)
    # Every touched expert's weights read once, no faster than the GPU's full bandwidth.
    experts_bytes = (model.experts * 3 * model.hidden * model.expert_ffn
                     * bytes_per_value(precision.experts))
    assert many.memory_s >= experts_bytes / gpu.hbm_bytes_per_s


# --- One step, priced by hand -----------------------------------------------------------

LLAMAS = {  # layers, hidden, query heads, KV heads, head_dim, MLP width, vocabulary
    "llama-3.1-8b": (32, 4096, 32, 8, 128, 14336, 128256),
    "llama-3.1-70b": (80, 8192, 64, 8, 128, 28672, 128256),
}


def _llama_decode_by_hand(gpu: Gpu, key: str, batch: int, context: int, tp: int = 1
                          ) -> tuple[float, float, float, float]:
    """(FLOPs, bytes, seconds, fixed seconds) of one BF16 decode step of a Llama on one GPU
    of `tp`: each operator of a layer written out with its shape on that GPU, priced by its
    kernel class, times the layers, plus the embedding gather and the output head. Bytes
    are the whole step's at tp = 1 (the only degree they are asserted at)."""
    layers, h, heads, kv_heads, d, ffn, vocab = LLAMAS[key]
    b, kv_gpu = batch, max(1, kv_heads // tp)
    # (k, n) of the whole matmul, and (k, n) of one GPU's share: columns split, or rows
    # (split along k) for the matrices whose output is all-reduced.
    matmuls = [((h, (heads + 2 * kv_heads) * d), (h, (heads + 2 * kv_heads) * d / tp)),  # QKV
               ((heads * d, h), (heads * d / tp, h)),  # O
               ((h, 2 * ffn), (h, 2 * ffn / tp)),  # gate and up
               ((ffn, h), (ffn / tp, h))]  # down
    cached = b * (context + 1) * 2 * kv_gpu * d * BF16  # each sequence's K and V, itself too
    norms = (4 * h + 3 * ffn / tp) * b * BF16  # 2 norms with residual adds; gated activation
    parts = [_gemm_s(gpu, "bf16", b, k, n, BF16, BF16) for _, (k, n) in matmuls]
    attention = 4 * (heads // tp) * d * b * (context + 1)  # one GPU's heads, each new token
    parts += [_decode_attention_s(gpu, "bf16", cached, b, b * kv_gpu, attention),
              _elementwise_s(gpu, norms, 3)]
    edges = [_elementwise_s(gpu, b * h * (BF16 + BF16), 1),  # embedding rows read, written
             _gemm_s(gpu, "bf16", b, h, vocab / tp, BF16, BF16)]  # the output head
    seconds = layers * sum(s for s, _ in parts) + sum(s for s, _ in edges)
    fixed = layers * sum(f for _, f in parts) + sum(f for _, f in edges)
    flops = layers * (sum(2 * b * k * n for (k, n), _ in matmuls)
                      + 4 * heads * d * b * (context + 1)) + 2 * b * h * vocab
    moved = layers * (sum(k * n * BF16 + b * (k + n) * BF16 for (k, n), _ in matmuls)
                      + cached + norms) + b * h * 2 * BF16 + h * vocab * BF16 + b * (
        h + vocab) * BF16
    return flops, moved, seconds, fixed


@pytest.mark.parametrize("gpu_key", ["h100", "a100", "b200"])
@pytest.mark.parametrize(("batch", "context"), [(1, 0), (8, 2048), (64, 512), (256, 4096)])
def test_a_decode_step_is_the_sum_of_its_operators(gpu_key: str, batch: int,
                                                   context: int) -> None:
    gpu = GPUS[gpu_key]
    flops, moved, seconds, _ = _llama_decode_by_hand(gpu, "llama-3.1-8b", batch, context)
    cost = decode_step(gpu, L8B, batch, context)
    assert cost.flops == pytest.approx(flops, rel=1e-12)
    assert cost.bytes == pytest.approx(moved, rel=1e-12)
    assert cost.ops_s == pytest.approx(seconds, rel=1e-12)
    assert cost.time_s == cost.ops_s and (cost.collectives, cost.collective_s) == (0, 0.0)


def test_one_token_costs_the_weights_read_at_the_gemms_share_plus_each_kernels_start() -> None:
    cost = decode_step(H100, L8B, 1, 0)
    weights = 2 * (32 * (4096 * 6144 + 4096 * 4096 + 3 * 4096 * 14336) + 128256 * 4096)
    assert cost.bytes == pytest.approx(weights, rel=0.001)  # the embedding is only gathered
    floor = weights / (3.35e12 * H100.kernels.gemm["bf16"].memory_efficiency)  # about 5.9 ms
    fixed = _llama_decode_by_hand(H100, "llama-3.1-8b", 1, 0)[3]
    # The rest (one token's activations, KV and norms, the GEMMs' arithmetic) is tiny.
    assert floor + fixed < cost.time_s < (floor + fixed) * 1.01


def test_each_operator_takes_more_than_the_longer_of_its_two_times() -> None:
    for batch in (1, 64, 258, 4096):
        cost = decode_step(H100, L8B, batch, 1024)
        fixed = _llama_decode_by_hand(H100, "llama-3.1-8b", batch, 1024)[3]
        assert max(cost.compute_s, cost.memory_s) < cost.ops_s
        assert cost.ops_s < cost.compute_s + cost.memory_s + fixed
    assert decode_step(H100, L8B, 1, 0).bound == "memory"
    assert prefill(H100, L8B, 4096).bound == "compute"


def test_count_is_the_same_as_repeating_the_work() -> None:
    one = step_cost(H100, L8B, [Work(3, 700, count=5)])
    many = step_cost(H100, L8B, [Work(3, 700)] * 5)
    assert (one.flops, one.bytes, one.time_s) == pytest.approx(
        (many.flops, many.bytes, many.time_s))


def test_logits_only_where_sampled() -> None:
    head = 2 * 4096 * 128256
    verify = step_cost(H100, L8B, [Work(5, 100)])
    no_head = step_cost(H100, L8B, [Work(5, 100, logit_tokens=0)])
    assert verify.flops - no_head.flops == 5 * head
    assert prefill(H100, L8B, 64).flops == step_cost(
        H100, L8B, [Work(64, 0, logit_tokens=1)]).flops


@pytest.mark.parametrize("bad", [dict(new_tokens=-1), dict(new_tokens=2, logit_tokens=3),
                                 dict(new_tokens=1, context_tokens=-5)])
def test_work_refuses_impossible_counts(bad: dict) -> None:
    with pytest.raises(ValueError):
        Work(**bad)


def _context_flops(model_key: str, context: int, new: int = 1) -> float:
    """FLOPs one more cached token adds to a step: attention's share alone."""
    model = MODELS[model_key]
    return (step_cost(H100, model, [Work(new, context + 1)]).flops
            - step_cost(H100, model, [Work(new, context)]).flops)


def test_attention_flops_per_cached_token() -> None:
    # Grouped-query: scores and weighted values, 4 x heads x head_dim per pair, each layer.
    assert _context_flops("llama-3.1-8b", 1000) == pytest.approx(32 * 4 * 32 * 128)
    # Sliding layers stop growing past their window: only gpt-oss's 18 full layers count.
    assert _context_flops("gpt-oss-120b", 50) == pytest.approx(36 * 4 * 64 * 64)
    assert _context_flops("gpt-oss-120b", 1000) == pytest.approx(18 * 4 * 64 * 64)
    # Latent attention in the absorbed form engines decode with: each head's query meets
    # the 512-wide latent and the 64-wide rotary key, and the weights apply to the latent:
    # 2 x heads x (2 x 512 + 64) per pair and layer, never expanding the cache.
    assert _context_flops("deepseek-v3", 1000) == pytest.approx(61 * 2 * 128 * (2 * 512 + 64))


def test_a_verify_of_several_tokens_attends_each_of_them_to_the_cache() -> None:
    # A speculative verify of 5 tokens runs the decode kernel, but each of its 5 queries
    # meets every cached token: 5 x 4 x heads x head_dim per cached token and layer.
    assert _context_flops("llama-3.1-8b", 1000, new=5) == pytest.approx(5 * 32 * 4 * 32 * 128)


def test_latent_attention_expands_the_cache_for_long_prefills() -> None:
    # Above 32 new tokens per sequence the latents are up-projected to per-head K and V
    # (2 x 512 x 128 x (128 + 128) FLOPs a cached token) and attention is ordinary MHA.
    absorbed = _context_flops("deepseek-v3", 4096, new=32)
    expanded = _context_flops("deepseek-v3", 4096, new=33)
    assert absorbed == pytest.approx(32 * 61 * 2 * 128 * (2 * 512 + 64))
    up = 2 * 512 * 128 * (128 + 128)
    mha = 2 * 128 * (192 + 128)  # (q.k over 128 + 64, then v of 128) per head and pair
    assert expanded == pytest.approx(61 * (up + 33 * mha))


def test_a_batch_touches_fewer_distinct_experts_than_it_routes() -> None:
    assert touched_experts(QWEN_MOE, 1) == pytest.approx(8)
    assert touched_experts(QWEN_MOE, 64) == pytest.approx(128 * (1 - (1 - 8 / 128) ** 64))
    assert touched_experts(QWEN_MOE, 10_000) == pytest.approx(128)
    assert touched_experts(L8B, 64) == 0
    # The experts' weights read grow with the experts touched, not with the tokens:
    expert_bytes = 3 * 2048 * 768 * 2  # one Qwen3-30B-A3B expert in BF16
    one, two = decode_step(H100, QWEN_MOE, 1, 0), decode_step(H100, QWEN_MOE, 2, 0)
    grown = 48 * (touched_experts(QWEN_MOE, 2) - touched_experts(QWEN_MOE, 1)) * expert_bytes
    activations = two.bytes - one.bytes - grown
    assert 0 < activations < 0.01 * grown


def test_moe_flops_follow_the_active_parameters() -> None:
    # Per token: 2 FLOPs per active matmul weight (norms have none) and attention.
    for model in (QWEN_MOE, DEEPSEEK, GPT_OSS, L8B):
        norms = (2 * model.layers + 1) * model.hidden
        cost = decode_step(H100, model, 1, 0)
        attention = cost.flops - 2 * (model.params_active - norms)
        assert 0 <= attention < 1e-3 * cost.flops, model.key


# --- Collectives: all-reduce by implementation and algorithm, over the links ----------

# Bytes through each GPU's links per byte of message over n GPUs: one-shot reads every
# peer's message, a ring (or two-shot) reduce-scatters then all-gathers, a reduction in the
# switch sends the message once and reads the sum back once.
TRAFFIC_BY_HAND = {"one_shot": lambda n: n - 1, "ring": lambda n: 2 * (n - 1) / n,
                   "in_switch": lambda n: 1}


def _link(gpu: Gpu, group: int) -> float:
    """One GPU's bandwidth to the rest of its group: a switch gives its full rate; a full
    mesh gives one link to each peer (MI300X: 448 GB/s over seven links)."""
    if gpu.topology == "mesh":
        return gpu.scale_up_bytes_per_s / (gpu.scale_up_gpus - 1) * (group - 1)
    return gpu.scale_up_bytes_per_s


def _allreduce_by_hand(gpu: Gpu, implementation: str, message: float, group: int
                       ) -> dict[str, float]:
    """Each algorithm's time for an all-reduce, at a group size its latency is fitted at:
    its latency plus its traffic at its share of the links (no reduction in a switch on a
    mesh)."""
    return {algorithm.traffic: algorithm.latency_s[group]
            + TRAFFIC_BY_HAND[algorithm.traffic](group) * message
            / (algorithm.bus_efficiency * _link(gpu, group))
            for algorithm in gpu.kernels.all_reduce[implementation].algorithms
            if algorithm.traffic != "in_switch" or gpu.topology == "switch"}


def test_the_traffic_of_each_algorithm_is_as_stated() -> None:
    for n in (2, 4, 8):
        assert {name: TRAFFIC[name](n) for name in TRAFFIC} == pytest.approx(
            {name: traffic(n) for name, traffic in TRAFFIC_BY_HAND.items()})


@pytest.mark.parametrize("gpu_key", ["h100", "b200"])
@pytest.mark.parametrize("implementation", ["nccl", "custom"])
@pytest.mark.parametrize("group", [2, 4, 8])
def test_an_all_reduce_runs_the_fastest_algorithm_its_implementation_has(
    gpu_key: str, implementation: str, group: int
) -> None:
    gpu = GPUS[gpu_key]
    algorithms = gpu.kernels.all_reduce[implementation].algorithms
    for message in (4096, 1 << 20, 1 << 26, 1 << 30):
        times = _allreduce_by_hand(gpu, implementation, message, group)
        assert allreduce_time(gpu, message, group, implementation) == pytest.approx(
            min(times.values()), rel=1e-12)
    # A tiny message goes to the lowest latency; a huge one to the best share of the links.
    latency, _ = allreduce_fit(gpu, 1.0, group, implementation)
    assert latency == min(a.latency_s[group] for a in algorithms)
    _, rate = allreduce_fit(gpu, 1e13, group, implementation)
    assert rate == pytest.approx(max(a.bus_efficiency * _link(gpu, group)
                                     / TRAFFIC_BY_HAND[a.traffic](group) for a in algorithms))


def test_one_gpu_agrees_with_nobody() -> None:
    assert allreduce_time(H100, 1e6, 1) == 0.0 and all_to_all_time(H100, 1e6, 1) == 0.0


def test_group_sizes_between_fitted_ones_are_interpolated_on_log2() -> None:
    (ring,) = A100.kernels.all_reduce["nccl"].algorithms  # fitted at 2 and 8 GPUs only
    assert set(ring.latency_s) == {2, 8}
    weight = (math.log2(4) - 1) / (3 - 1)
    latency, rate = allreduce_fit(A100, 1.0, 4, "nccl")
    assert latency == pytest.approx(ring.latency_s[2] + weight * (ring.latency_s[8]
                                                                  - ring.latency_s[2]))
    assert rate == pytest.approx(ring.bus_efficiency * 300e9 / (2 * 3 / 4))


def test_nvls_forces_the_reduction_in_the_switch() -> None:
    (in_switch,) = [a for a in H100.kernels.all_reduce["nccl"].algorithms
                    if a.traffic == "in_switch"]
    for message in (4096, 1 << 30):  # even where NCCL's own choice would be its ring
        assert allreduce_time(H100, message, 8, "nvls") == pytest.approx(
            in_switch.latency_s[8] + message / (in_switch.bus_efficiency * 450e9))


def test_a_mesh_gives_a_pair_one_link_and_no_switch_to_reduce_in() -> None:
    link = 448e9 / 7  # one xGMI link of the seven
    for message, group in ((1 << 26, 2), (1 << 26, 8), (4096, 4)):
        times = _allreduce_by_hand(MI300X, "nccl", message, group)
        assert set(times) == {"ring"}  # NCCL's in-switch algorithm needs a switch
        assert allreduce_time(MI300X, message, group, "nccl") == pytest.approx(times["ring"])
    ring = next(a for a in MI300X.kernels.all_reduce["nccl"].algorithms if a.traffic == "ring")
    assert allreduce_fit(MI300X, 1 << 26, 2, "nccl")[1] == pytest.approx(
        ring.bus_efficiency * link / 1)  # a ring of two moves the message once
    with pytest.raises(ValueError, match="no in-switch all-reduce"):
        allreduce_time(MI300X, 1 << 20, 8, "nvls")


def test_auto_takes_the_custom_kernels_where_the_profile_has_them() -> None:
    assert allreduce_implementation(H100) == "custom"
    for message in (4096, 1 << 20, 1 << 28):
        assert allreduce_time(H100, message, 8) == allreduce_time(H100, message, 8, "custom")
    assert pricer(H100, L70B, precision_for(H100, L70B), 8, "tp").classes(
        [Work(1, 100, count=4)])["all_reduce", "custom"] > 0
    # A profile without them: auto is NCCL, and custom is refused.
    nccl_only = dataclasses.replace(H100, kernels=H100.kernels._replace(
        all_reduce={"nccl": H100.kernels.all_reduce["nccl"]}))
    assert allreduce_implementation(nccl_only) == "nccl"
    assert allreduce_time(nccl_only, 1 << 20, 8) == allreduce_time(H100, 1 << 20, 8, "nccl")
    with pytest.raises(ValueError, match="no custom all-reduce"):
        allreduce_time(nccl_only, 1 << 20, 8, "custom")
    # The A100's profile is such a one: no custom kernels were measured on it.
    assert set(A100.kernels.all_reduce) == {"nccl"} and allreduce_implementation(A100) == "nccl"
    assert pricer(A100, L70B, precision_for(A100, L70B), 8, "tp").classes(
        [Work(1, 100, count=4)])["all_reduce", "nccl"] > 0


def test_all_to_all_and_sends_use_nccls_ring() -> None:
    for gpu in (H100, MI300X):
        ring = next(a for a in gpu.kernels.all_reduce["nccl"].algorithms
                    if a.traffic == "ring")
        assert all_to_all_time(gpu, 1e6, 8) == pytest.approx(
            ring.latency_s[8] + 7 / 8 * 1e6 / (ring.bus_efficiency * _link(gpu, 8)))
        assert p2p_time(gpu, 4e6) == pytest.approx(
            ring.latency_s[2] + 4e6 / (ring.bus_efficiency * _link(gpu, 2)))
    assert _link(MI300X, 2) == pytest.approx(64e9) and _link(H100, 2) == 450e9
    assert scale_out_time(H100, 50e6) == pytest.approx(20e-6 + 50e6 / 50e9)
    assert host_link_time(H100, 64e9) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="no network figure"):
        scale_out_time(L40S, 1.0)
    with pytest.raises(ValueError, match="no host-link figure"):
        host_link_time(B200, 1.0)


def test_tensor_parallel_waits_for_two_all_reduces_per_layer() -> None:
    cost = decode_step(H100, L70B, 16, 1000, tp=8)
    assert cost.collectives == 160
    message = 16 * 8192 * 2  # every token's hidden state in BF16
    assert cost.collective_s == pytest.approx(
        160 * min(_allreduce_by_hand(H100, "custom", message, 8).values()))
    assert cost.time_s == pytest.approx(cost.ops_s + cost.collective_s)
    alone_step = decode_step(H100, L70B, 16, 1000, tp=1)
    assert cost.flops == pytest.approx(alone_step.flops)  # the same work, split
    # Each GPU an eighth of every matmul and of the attention heads, priced as its own
    # kernels: every kernel's fixed cost in full.
    flops, _, seconds, fixed = _llama_decode_by_hand(H100, "llama-3.1-70b", 16, 1000, tp=8)
    assert flops == pytest.approx(cost.flops)
    assert cost.ops_s == pytest.approx(seconds, rel=1e-12)
    # Fixed costs do not split: eight GPUs take more than an eighth of one GPU's time.
    assert cost.ops_s - fixed < alone_step.ops_s / 8 < cost.ops_s


def test_expert_parallel_dispatches_and_combines_per_moe_layer() -> None:
    cost = decode_step(H100, DEEPSEEK, 64, 1000, tp=8, layout="ep")
    assert cost.collectives == 2 * 58
    per_gpu = 64 / 8 * 8 * 7168 * 1  # tokens per GPU x experts each x hidden, FP8
    assert cost.collective_s == pytest.approx(116 * all_to_all_time(H100, per_gpu, 8))


def test_a_gathering_exchange_moves_every_token_to_every_gpu_whatever_its_top_k() -> None:
    # The engines' default (sims.serving.engines): every GPU gathers all 64 tokens' hidden
    # states in FP8 and reduce-scatters the experts' sums in BF16, once per MoE layer each.
    work = [Work(1, 1000, count=64)]
    cost = step_cost(H100, DEEPSEEK, work, 8, layout="ep", exchange="gather")
    assert cost.collectives == 2 * 58
    ring = next(a for a in H100.kernels.all_reduce["nccl"].algorithms if a.traffic == "ring")
    links, latency = ring.bus_efficiency * _link(H100, 8), ring.latency_s[8]
    gather = latency + 7 / 8 * 64 * 7168 * 1 / links
    scatter = latency + 7 / 8 * 64 * 7168 * BF16 / links
    assert cost.collective_s == pytest.approx(58 * (gather + scatter))
    # An all-to-all carries a token to its k experts only: a top-1 model's exchange costs
    # far less that way, a top-8 model's about as much.
    maverick = MODELS["llama-4-maverick"]
    def exchanged(model, exchange):  # noqa: E306
        return step_cost(H100, model, [Work(2048, 0)], 8, layout="ep",
                         exchange=exchange).collective_s
    assert exchanged(maverick, "gather") > 3 * exchanged(maverick, "all_to_all")
    assert 0.5 < exchanged(DEEPSEEK, "gather") / exchanged(DEEPSEEK, "all_to_all") < 2
    with pytest.raises(ValueError, match="exchange must be one of"):
        step_cost(H100, DEEPSEEK, work, 8, layout="ep", exchange="broadcast")


def test_groups_beyond_the_domain_or_the_heads_are_refused_by_name() -> None:
    assert tp_degrees(L40S) == (1,)
    assert tp_degrees(H100) == (1, 2, 4, 8)
    for gpu, model, gpus, layout, name in [
        (L40S, L8B, 2, "tp", "tp"),  # a PCIe card: no scale-up domain
        (H100, L8B, 16, "tp", "tp"),
        (H100, L8B, 3, "tp", "tp"),  # 32 heads do not split three ways
        (H100, L8B, 8, "ep", "layout"),  # dense: nothing to spread
        (H100, L8B, 1, "pp", "layout"),
    ]:
        with pytest.raises(InputError) as caught:
            check_group(gpu, model, gpus, layout)
        assert caught.value.input == name


def test_an_expert_group_that_does_not_divide_the_experts_is_paced_by_its_busiest_gpu() -> None:
    """256 experts over a 72-GPU NVLink domain: engines fill the spare slots with copies of
    busy experts, so some GPUs hold 4 and the step waits for them; 8 GPUs hold 32 each."""
    nvl72 = GPUS["gb200-nvl72"]
    assert experts_per_gpu(256, 72) == 4 and experts_per_gpu(256, 8) == 32
    check_group(nvl72, DEEPSEEK, 72, "ep")  # allowed: 72 does not divide 256
    with pytest.raises(InputError) as caught:
        check_group(nvl72, DEEPSEEK, 73, "ep")  # beyond the domain
    assert caught.value.input == "tp"
    fit = memory_fit(nvl72, DEEPSEEK, 0, 0, 72, layout="ep")
    experts = DEEPSEEK.expert_weight_bytes()
    others = DEEPSEEK.weight_bytes() - experts
    assert fit.weights_per_gpu_bytes == pytest.approx(others + experts * 4 / 256)
    # Pricing: the busiest GPU's 4 experts, each token's 8 experts spread over 72 GPUs.
    assert decode_step(nvl72, DEEPSEEK, 72, 1000, tp=72, layout="ep").time_s > 0


def test_pipeline_stages_add_up_to_the_model() -> None:
    for stages in (2, 3, 8):
        parts = [L70B.pipeline_stage(stages, i) for i in range(stages)]
        assert sum(p.layers for p in parts) == 80
        assert sum(p.params for p in parts) == L70B.params
        assert parts[0].has_embedding and not parts[-1].has_embedding
        assert parts[-1].has_head and not parts[0].has_head
    with pytest.raises(ValueError):
        L70B.pipeline_stage(2, 2)


# --- Memory ---------------------------------------------------------------------------

def test_70b_does_not_fit_one_80gb_gpu_but_fits_two() -> None:
    assert USABLE_MEMORY_FRACTION == 0.9
    one = memory_fit(H100, L70B, 0, 0)
    assert one.weights_per_gpu_bytes == 2 * 70_553_706_496
    assert not one.fits and "does not fit" in one.reason and one.flag
    two = memory_fit(H100, L70B, 1, 1000, tp=2)
    assert two.fits and two.flag == ""
    assert two.kv_per_gpu_bytes == 1000 * 327_680 / 2
    assert smallest_fitting_tp(H100, L70B, 1, 1000) == 2
    assert smallest_fitting_tp(H200, L70B, 1, 1000) == 2  # 141.1 GB > 0.9 x 141 GB
    assert smallest_fitting_tp(H100, L8B, 1, 0) == 1
    assert smallest_fitting_tp(H100, MODELS["llama-3.1-405b"], 1, 0) is None


def test_kv_can_push_a_model_off_its_gpus() -> None:
    room = (0.9 * 80 * 2**30 - 2 * 8_030_261_248) / 131_072  # about 467,000 tokens
    assert memory_fit(H100, L8B, 1, int(room)).fits
    assert not memory_fit(H100, L8B, 1, int(room) + 1).fits


def test_a_latent_cache_is_held_whole_by_every_tensor_parallel_gpu() -> None:
    fit = memory_fit(H200, DEEPSEEK, 4, 10_000, tp=8)
    assert fit.kv_per_gpu_bytes == 4 * 10_000 * 70_272  # not divided by 8
    # Expert parallel: each GPU holds its own sequences whole, never a part of one: four
    # sequences over eight GPUs leave the busiest with one, sixteen with two.
    ep = memory_fit(H200, DEEPSEEK, 4, 10_000, tp=8, layout="ep")
    assert ep.kv_per_gpu_bytes == 1 * 10_000 * 70_272
    assert memory_fit(H200, DEEPSEEK, 16, 10_000, tp=8, layout="ep").kv_per_gpu_bytes == (
        2 * 10_000 * 70_272)
    experts = DEEPSEEK.expert_weight_bytes()
    assert ep.weights_per_gpu_bytes == pytest.approx(
        DEEPSEEK.weight_bytes() - experts + experts / 8)
    # KV heads copied beyond their number: 8 KV heads over 8 GPUs split, never below one.
    assert memory_fit(H100, L8B, 1, 1000, tp=8).kv_per_gpu_bytes == 1000 * 131_072 / 8


# --- Monotonic: more work never costs less ----------------------------------------------

def _never_cheaper(costs: list) -> bool:
    return all(
        later.flops >= earlier.flops and later.bytes >= earlier.bytes
        and later.time_s >= earlier.time_s
        for earlier, later in itertools.pairwise(costs)
    )


@pytest.mark.parametrize("gpu", ["h100", "a100", "b200"])
@pytest.mark.parametrize("model", ["llama-3.1-8b", "llama-3.1-70b", "qwen3-30b-a3b",
                                   "deepseek-v3", "gpt-oss-120b"])
@pytest.mark.parametrize("tp", [1, 4])
def test_more_batch_context_or_tokens_is_never_cheaper(gpu: str, model: str, tp: int) -> None:
    device, shape = GPUS[gpu], MODELS[model]
    sizes = [1, 2, 7, 16, 33, 64, 255, 1024, 4096, 32768]
    for context in (0, 512, 8192):
        assert _never_cheaper([decode_step(device, shape, b, context, tp) for b in sizes[:7]])
    for batch in (1, 32):
        assert _never_cheaper([decode_step(device, shape, batch, c, tp) for c in sizes])
    assert _never_cheaper([prefill(device, shape, n, tp=tp) for n in sizes])
    assert _never_cheaper([prefill(device, shape, 512, cached_tokens=c, tp=tp) for c in sizes])


@pytest.mark.parametrize("gpu", ["h100", "b200"])
@pytest.mark.parametrize(("model", "chunk"), [("gpt-oss-120b", 48), ("gpt-oss-120b", 200),
                                              ("deepseek-v3", 128), ("llama-3.1-8b", 512),
                                              ("qwen3-30b-a3b", 33), ("llama-3.1-8b", 1),
                                              ("gpt-oss-120b", 4)])
def test_a_step_series_prices_each_slice_as_step_cost_would(gpu: str, model: str,
                                                           chunk: int) -> None:
    """Slices of a prefill behind the same decodes (or, at 32 tokens and fewer, a sequence
    decoding beside them): priced from two steps once the context is past every window,
    exactly before; equal to pricing each step on its own. Each operator's compute and
    memory times are affine in the slice's context and its fixed costs do not move (decode
    attention's share depends on the sequences and KV heads, not on the context), so the
    extrapolation is exact to rounding under every kernel class's overlap."""
    from sims.physics import step_series

    device, shape, decodes = GPUS[gpu], MODELS[model], Work(1, 900, count=6)
    series = step_series(device, shape, [decodes], chunk, 40, chunk, 30, tp=2,
                         logit_tokens=0)
    exact = [step_cost(device, shape, [decodes, Work(chunk, 40 + k * chunk, logit_tokens=0)],
                       tp=2).time_s for k in range(30)]
    assert series == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize(("gpu", "model", "gpus", "layout", "weights"), [
    ("h100", "llama-3.1-8b", 1, "tp", None), ("h100", "llama-3.1-70b", 8, "tp", "fp8"),
    ("b200", "llama-3.1-70b", 4, "tp", "fp4"), ("h100", "qwen3-30b-a3b", 8, "ep", None),
    ("mi300x", "deepseek-v3", 8, "tp", None), ("a100", "gpt-oss-120b", 2, "tp", None),
])
def test_the_kernel_classes_of_a_step_add_up_to_its_time(gpu: str, model: str, gpus: int,
                                                        layout: str, weights: str | None
                                                        ) -> None:
    device, shape = GPUS[gpu], MODELS[model]
    precision = precision_for(device, shape, weights)
    work = [Work(1, 3000, count=12), Work(700, 100, logit_tokens=1)]
    cost = step_cost(device, shape, work, gpus, precision, layout)
    priced = pricer(device, shape, precision, gpus, layout)
    classes, parts = priced.classes(work), priced.parts(work)
    assert sum(classes.values()) == pytest.approx(cost.time_s, rel=1e-12)
    assert sum(parts.values()) == pytest.approx(cost.time_s, rel=1e-12)
    assert all(seconds > 0 for seconds in classes.values())
    # Each class by its kernels' format, the collectives by their implementation.
    matmuls = {variant for kind, variant in classes if kind == "gemm"}
    assert matmuls == {precision.activations if precision.weights == precision.activations
                       else "bf16", "bf16"}  # the output head stays BF16
    assert {kind for kind, _ in classes} >= {"gemm", "prefill_attention", "decode_attention",
                                             "elementwise"}
    collective = ("all_to_all", "nccl") if layout == "ep" else (
        ("all_reduce", allreduce_implementation(device)) if gpus > 1 else None)
    assert collective is None or classes[collective] == pytest.approx(cost.collective_s)
    assert ("moe" in {kind for kind, _ in classes}) == bool(shape.experts)
