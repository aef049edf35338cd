"""The shared physics against datasheets, published configs and sums worked by hand.

Every expected number here is written out from its source (a datasheet row, a config.json
field, a formula stated in sims.physics.pricing) rather than taken from the module, so a typo in the
catalogue or the physics fails. The calibration against measurements is test_calibration.py.
"""

from __future__ import annotations

import itertools
import math

import pytest

from sims.kit.contract import InputError
from sims.physics import (
    GPUS,
    KERNEL_OVERHEAD_S,
    MODELS,
    USABLE_MEMORY_FRACTION,
    Precision,
    Work,
    all_to_all_time,
    allreduce_time,
    check_group,
    decode_step,
    host_link_time,
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

H100, H200, A100, B200, L40S = (GPUS[k] for k in ("h100", "h200", "a100", "b200", "l40s"))
L8B, L70B = MODELS["llama-3.1-8b"], MODELS["llama-3.1-70b"]
DEEPSEEK, GPT_OSS, QWEN_MOE = (MODELS[k] for k in ("deepseek-v3", "gpt-oss-120b",
                                                    "qwen3-30b-a3b"))
EFF_FLOPS, EFF_BYTES = 0.7, 0.8  # the efficiencies sims.physics.hardware states


# --- GPUs: datasheet figures, dense ---------------------------------------------------

@pytest.mark.parametrize(
    ("key", "rates", "capacity", "bandwidth", "link", "domain", "host", "network"),
    [
        # A100 SXM 80 GB: 312 TFLOPS BF16 dense (624 sparse), no FP8; NVLink 600 GB/s both
        # ways; PCIe Gen4 64 GB/s both ways; DGX A100: one 200 Gb/s port per GPU.
        ("a100", {"bf16": 312e12}, 80e9, 2039e9, 300e9, 8, 32e9, 25e9),
        # H100 SXM: 1,979 / 3,958 TFLOPS BF16 / FP8 with sparsity; NVLink 900 GB/s; PCIe Gen5
        # 128 GB/s; DGX H100: one 400 Gb/s port per GPU.
        ("h100", {"bf16": 989e12, "fp8": 1979e12}, 80e9, 3.35e12, 450e9, 8, 64e9, 50e9),
        ("h200", {"bf16": 989e12, "fp8": 1979e12}, 141e9, 4.8e12, 450e9, 8, 64e9, 50e9),
        # HGX B200: 36 / 72 / 144 PFLOPS sparse for eight GPUs; DGX B200 memory and NVLink.
        ("b200", {"bf16": 2.25e15, "fp8": 4.5e15, "fp4": 9e15}, 180e9, 8e12, 900e9, 8, None,
         50e9),
        ("mi300x", {"bf16": 1307.4e12, "fp8": 2614.9e12}, 192e9, 5.3e12, 448e9, 8, 64e9, None),
        # L40S: no NVLink, a PCIe card: a scale-up domain of one.
        ("l40s", {"bf16": 362.05e12, "fp8": 733e12}, 48e9, 864e9, 32e9, 1, 32e9, None),
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


def test_a_precision_the_gpu_lacks_is_an_error_naming_both() -> None:
    with pytest.raises(ValueError, match=r"NVIDIA A100 SXM 80 GB has no FP8 .*it has BF16\)"):
        A100.flops("fp8")
    with pytest.raises(ValueError, match=r"H100 SXM 80 GB has no FP4"):
        H100.flops("fp4")


def test_ridge_points_at_peak_and_at_the_stated_efficiencies() -> None:
    assert H100.ridge_flops_per_byte == pytest.approx(989 / 3.35)  # 295.2 FLOP/byte
    assert H100.ridge("fp8") == pytest.approx(1979 / 3.35)
    assert H100.effective_ridge_flops_per_byte == pytest.approx(989 * 0.7 / (3.35 * 0.8))
    assert round(H100.effective_ridge_flops_per_byte, 1) == 258.3
    assert A100.ridge_flops_per_byte == pytest.approx(312 / 2.039)  # 153.0
    assert B200.ridge("fp4", efficient=True) == pytest.approx(9000 * 0.7 / (8 * 0.8))
    # A matmul's ridge in tokens: 2n FLOPs per weight of 2 bytes meets 258.3 FLOP/byte.
    assert ridge_tokens(H100, L8B) == round(989e12 * 0.7 / (3.35e12 * 0.8))  # 258
    fp8 = precision_for(H100, L8B, weights="fp8")
    assert ridge_tokens(H100, L8B, fp8) == round(1979e12 * 0.7 / (3.35e12 * 0.8) / 2)


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
    assert GPT_OSS.kv_window_bytes() == 18 * 128 * per_layer_token


# --- Precisions --------------------------------------------------------------------------

def test_fp4_weights_on_a_hopper_read_fewer_bytes_but_compute_at_bf16() -> None:
    fp4 = precision_for(H100, L8B, weights="fp4")
    assert fp4 == Precision("fp4", "fp4", "bf16", "bf16")  # no FP4 rate: weight-only
    bf16 = decode_step(H100, L8B, 1, 0)
    quantized = decode_step(H100, L8B, 1, 0, precision=fp4)
    assert quantized.flops == bf16.flops
    layer_weights = 32 * (4096 * 6144 + 4096 * 4096 + 3 * 4096 * 14336)
    assert bf16.bytes - quantized.bytes == pytest.approx(layer_weights * (2 - 4.25 / 8))
    # The same FLOPs at the same BF16 rate: equal compute time.
    assert quantized.compute_s == pytest.approx(bf16.compute_s)


def test_fp8_weights_compute_at_the_fp8_rate_where_the_gpu_has_one() -> None:
    assert precision_for(H100, L8B, weights="fp8").activations == "fp8"
    assert precision_for(A100, L8B, weights="fp8").activations == "bf16"
    assert precision_for(B200, L8B, weights="fp4").activations == "fp4"
    prefill_bf16 = prefill(H100, L8B, 8192)
    prefill_fp8 = prefill(H100, L8B, 8192, precision=precision_for(H100, L8B, weights="fp8"))
    assert prefill_fp8.compute_s < 0.6 * prefill_bf16.compute_s  # twice the rate


def test_activations_in_a_format_the_gpu_lacks_are_refused_by_name() -> None:
    with pytest.raises(InputError) as caught:
        precision_for(H100, L8B, weights="fp4", activations="fp4")
    assert caught.value.input == "activations"
    assert "NVIDIA H100 SXM 80 GB has no FP4" in str(caught.value)
    with pytest.raises(InputError) as bad:
        precision_for(H100, L8B, kv="int8")
    assert bad.value.input == "kv"


# --- One step, priced by hand -----------------------------------------------------------

def _op(flops: float, moved: float, rate: float, bandwidth: float, kernels: int = 1) -> float:
    """One operator: sqrt(c^2 + m^2) plus the fixed cost per kernel (sims.physics.pricing)."""
    return math.hypot(flops / rate, moved / bandwidth) + kernels * KERNEL_OVERHEAD_S


def _llama_8b_decode_by_hand(batch: int, context: int) -> tuple[float, float, float]:
    """(FLOPs, bytes, seconds) of one Llama 3.1 8B decode step on one H100, BF16: each
    operator of a layer written out, times 32 layers, plus the embedding and the head."""
    rate, bandwidth = 989e12 * EFF_FLOPS, 3.35e12 * EFF_BYTES
    b = batch
    pairs = b * (context + 1)  # each new token attends to the cache and itself
    layer = [  # (FLOPs, bytes, kernels)
        (2 * b * 4096 * 6144, 4096 * 6144 * 2 + b * (4096 + 6144) * 2, 1),  # QKV
        (4 * 32 * 128 * pairs, b * 2 * 32 * 128 * 2 + b * (context + 1) * 2 * 8 * 128 * 2, 1),
        (2 * b * 4096 * 4096, 4096 * 4096 * 2 + b * (4096 + 4096) * 2, 1),  # O
        (2 * b * 4096 * 28672, 4096 * 28672 * 2 + b * (4096 + 28672) * 2, 1),  # gate, up
        (2 * b * 14336 * 4096, 14336 * 4096 * 2 + b * (14336 + 4096) * 2, 1),  # down
        # 2 norms with their residual adds, rotary embedding, gated activation
        (0, 4 * 4096 * b * 2 + (2 * (32 + 8) * 128 + 3 * 14336) * b * 2, 4),
    ]
    edges = [(0, b * 4096 * 2 * 2, 1),  # the embedding gather: rows read, written
             (2 * b * 4096 * 128256, 4096 * 128256 * 2 + b * (4096 + 128256) * 2, 1)]
    ops = [(32 * f, 32 * m, 32 * _op(f, m, rate, bandwidth, k)) for f, m, k in layer]
    ops += [(f, m, _op(f, m, rate, bandwidth, k)) for f, m, k in edges]
    return tuple(sum(column) for column in zip(*ops, strict=True))  # type: ignore[return-value]


@pytest.mark.parametrize(("batch", "context"), [(1, 0), (8, 2048), (64, 512), (256, 4096)])
def test_a_decode_step_is_the_sum_of_its_operators(batch: int, context: int) -> None:
    flops, moved, seconds = _llama_8b_decode_by_hand(batch, context)
    cost = decode_step(H100, L8B, batch, context)
    assert cost.flops == pytest.approx(flops, rel=1e-12)
    assert cost.bytes == pytest.approx(moved, rel=1e-12)
    assert cost.time_s == pytest.approx(seconds, rel=1e-12)
    assert (cost.collectives, cost.collective_s) == (0, 0.0)


def test_one_token_costs_about_the_weights_read_once() -> None:
    cost = decode_step(H100, L8B, 1, 0)
    weights = 2 * (32 * (4096 * 6144 + 4096 * 4096 + 3 * 4096 * 14336) + 128256 * 4096)
    assert cost.bytes == pytest.approx(weights, rel=0.001)  # the embedding is only gathered
    floor = weights / (3.35e12 * 0.8)  # 5.60 ms at 80% of 3.35 TB/s
    kernels = 32 * (5 + 4) + 2  # per layer 4 matmuls, attention, 4 element-wise; edges
    assert floor < cost.time_s < floor + kernels * KERNEL_OVERHEAD_S + 0.05e-3


def test_each_operator_takes_more_than_the_longer_of_its_two_times() -> None:
    for batch in (1, 64, 258, 4096):
        cost = decode_step(H100, L8B, batch, 1024)
        assert cost.ops_s > max(cost.compute_s, cost.memory_s)
        assert cost.ops_s < cost.compute_s + cost.memory_s + 290 * KERNEL_OVERHEAD_S
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


# --- Collectives, fitted to measured NCCL times ----------------------------------------

def test_h100_all_reduce_fits_its_measured_points() -> None:
    # Vidur's DGX H100 medians (the catalogue's rows): 8 GPUs, 1 MiB in 34 us, 64 MiB in
    # 322 us; the fit is a + S/B with both within a quarter of each.
    for size, measured in ((1048576, 34e-6), (67108864, 322e-6)):
        assert allreduce_time(H100, size, 8) == pytest.approx(measured, rel=0.25)
    fit = H100.collectives.fits[8]
    assert 20e-6 < fit.latency_s < 40e-6  # not the old flat 10 us
    assert fit.bytes_per_s < 450e9  # below the link's full rate
    assert allreduce_time(H100, 1e6, 1) == 0.0


def test_group_sizes_between_measured_ones_are_interpolated_on_log2() -> None:
    fits = A100.collectives.fits  # measured at 2 and 8 GPUs only
    weight = (math.log2(4) - 1) / (3 - 1)
    assert fits[4].latency_s == pytest.approx(
        fits[2].latency_s + weight * (fits[8].latency_s - fits[2].latency_s))
    share = A100.collectives.share
    assert share(4) == pytest.approx(share(2) + weight * (share(8) - share(2)))


def test_an_unmeasured_gpu_takes_the_measured_ones_latency_and_link_share() -> None:
    for group in (2, 4, 8):
        assert B200.collectives.fits[group].latency_s == H100.collectives.fits[group].latency_s
        assert B200.collectives.share(group) == pytest.approx(H100.collectives.share(group))
        assert B200.collectives.fits[group].bytes_per_s == pytest.approx(
            2 * H100.collectives.fits[group].bytes_per_s)  # NVLink 5: twice NVLink 4


def test_all_to_all_and_sends_use_the_fitted_latency_and_share() -> None:
    fit8 = H100.collectives.fits[8]
    rate8 = H100.collectives.share(8) * 450e9
    assert all_to_all_time(H100, 1e6, 8) == pytest.approx(fit8.latency_s + 7 / 8 * 1e6 / rate8)
    fit2 = H100.collectives.fits[2]
    assert p2p_time(H100, 4e6) == pytest.approx(
        fit2.latency_s + 4e6 / (H100.collectives.share(2) * 450e9))
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
    assert cost.collective_s == pytest.approx(160 * allreduce_time(H100, message, 8))
    assert cost.time_s == pytest.approx(cost.ops_s + cost.collective_s)
    alone = decode_step(H100, L70B, 16, 1000, tp=1)
    assert cost.flops == pytest.approx(alone.flops)  # the same work, split
    # Each GPU an eighth of every operator, but every kernel's fixed cost in full:
    kernels = 80 * (5 + 4) + 2
    assert cost.ops_s == pytest.approx(alone.ops_s / 8 + 7 / 8 * kernels * KERNEL_OVERHEAD_S,
                                       rel=0.01)


def test_expert_parallel_dispatches_and_combines_per_moe_layer() -> None:
    cost = decode_step(H100, DEEPSEEK, 64, 1000, tp=8, layout="ep")
    assert cost.collectives == 2 * 58
    per_gpu = 64 / 8 * 8 * 7168 * 1  # tokens per GPU x experts each x hidden, FP8
    assert cost.collective_s == pytest.approx(116 * all_to_all_time(H100, per_gpu, 8))


def test_groups_beyond_the_domain_or_the_heads_are_refused_by_name() -> None:
    assert tp_degrees(L40S) == (1,)
    assert tp_degrees(H100) == (1, 2, 4, 8)
    for gpu, model, gpus, layout, name in [
        (L40S, L8B, 2, "tp", "tp"),  # a PCIe card: no scale-up domain
        (H100, L8B, 16, "tp", "tp"),
        (H100, L8B, 3, "tp", "tp"),  # 32 heads do not split three ways
        (H100, L8B, 8, "ep", "layout"),  # dense: nothing to spread
        (H100, QWEN_MOE, 3, "ep", "tp"),  # 128 experts do not split three ways
        (H100, L8B, 1, "pp", "layout"),
    ]:
        with pytest.raises(InputError) as caught:
            check_group(gpu, model, gpus, layout)
        assert caught.value.input == name


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
    room = (0.9 * 80e9 - 2 * 8_030_261_248) / 131_072  # about 427,000 tokens
    assert memory_fit(H100, L8B, 1, int(room)).fits
    assert not memory_fit(H100, L8B, 1, int(room) + 1).fits


def test_a_latent_cache_is_held_whole_by_every_tensor_parallel_gpu() -> None:
    fit = memory_fit(H200, DEEPSEEK, 4, 10_000, tp=8)
    assert fit.kv_per_gpu_bytes == 4 * 10_000 * 70_272  # not divided by 8
    ep = memory_fit(H200, DEEPSEEK, 4, 10_000, tp=8, layout="ep")
    assert ep.kv_per_gpu_bytes == 4 * 10_000 * 70_272 / 8  # each GPU its own sequences
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


@pytest.mark.parametrize(("model", "chunk"), [("gpt-oss-120b", 48), ("gpt-oss-120b", 200),
                                              ("deepseek-v3", 128), ("llama-3.1-8b", 512),
                                              ("qwen3-30b-a3b", 33)])
def test_a_step_series_prices_each_slice_as_step_cost_would(model: str, chunk: int) -> None:
    """Slices of a prefill behind the same decodes: priced from two steps once the context
    is past every window, exactly before; equal to pricing each step on its own."""
    from sims.physics import step_series

    shape, decodes = MODELS[model], Work(1, 900, count=6)
    series = step_series(H100, shape, [decodes], chunk, 40, chunk, 30, tp=2, logit_tokens=0)
    exact = [step_cost(H100, shape, [decodes, Work(chunk, 40 + k * chunk, logit_tokens=0)],
                       tp=2).time_s for k in range(30)]
    assert series == pytest.approx(exact, rel=1e-12)
