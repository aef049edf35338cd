"""The shared physics against datasheets, published configs and sums worked by hand.

Every expected number here is written out from its source (a datasheet figure, a
config.json field) rather than taken from the module, so a typo in `sims.physics` fails.
"""

from __future__ import annotations

import itertools

import pytest

from sims.physics import (
    ALLREDUCE_LATENCY_S,
    COMPUTE_EFFICIENCY,
    GPUS,
    MEMORY_EFFICIENCY,
    MODELS,
    P2P_LATENCY_S,
    USABLE_MEMORY_FRACTION,
    Work,
    allreduce_time,
    decode_step,
    memory_fit,
    p2p_time,
    prefill,
    smallest_fitting_tp,
    step_cost,
)

H100, H200, A100 = GPUS["h100"], GPUS["h200"], GPUS["a100"]
L8B, L70B = MODELS["llama-3-8b"], MODELS["llama-3-70b"]


# --- GPUs: datasheet values, dense BF16 -------------------------------------------------

@pytest.mark.parametrize(
    ("key", "flops", "bandwidth", "capacity", "nvlink"),
    [
        # H100 SXM: 1,979 TFLOPS BF16 is the sparse figure; dense is 989.
        ("h100", 989e12, 3.35e12, 80e9, 900e9),
        ("h200", 989e12, 4.8e12, 141e9, 900e9),
        # A100 80 GB SXM: 312 TFLOPS dense BF16 (624 sparse), 2,039 GB/s HBM2e.
        ("a100", 312e12, 2039e9, 80e9, 600e9),
    ],
)
def test_gpu_constants_match_the_datasheets(
    key: str, flops: float, bandwidth: float, capacity: float, nvlink: float
) -> None:
    gpu = GPUS[key]
    assert gpu.bf16_flops == pytest.approx(flops)
    assert gpu.hbm_bytes_per_s == pytest.approx(bandwidth)
    assert gpu.hbm_bytes == pytest.approx(capacity)
    assert gpu.nvlink_bytes_per_s == pytest.approx(nvlink)
    assert gpu.nvlink_one_way_bytes_per_s == pytest.approx(nvlink / 2)


def test_h100_uses_the_dense_not_the_sparse_peak() -> None:
    assert H100.bf16_flops < 1_000e12  # the sparse 1,979 TFLOP/s would pass 1,000


def test_ridge_points() -> None:
    assert H100.ridge_flops_per_byte == pytest.approx(989 / 3.35)  # 295.2
    assert H100.effective_ridge_flops_per_byte == pytest.approx(989 * 0.7 / (3350 * 0.8) * 1e3)
    assert round(H100.effective_ridge_flops_per_byte, 1) == 258.3
    assert A100.ridge_flops_per_byte == pytest.approx(312e12 / 2039e9)  # 153.0
    assert (COMPUTE_EFFICIENCY, MEMORY_EFFICIENCY) == (0.7, 0.8)


# --- Models: counts derived from config.json shapes -------------------------------------

def _llama_params(layers: int, hidden: int, heads: int, kv_heads: int, head_dim: int,
                  ffn: int, vocab: int, tied: bool) -> int:
    """Parameters of a Llama-shaped model, written out term by term."""
    attention = hidden * heads * head_dim * 2 + hidden * kv_heads * head_dim * 2  # q,o + k,v
    mlp = 3 * hidden * ffn  # gate, up, down
    norms = 2 * hidden
    embedding = vocab * hidden
    head = 0 if tied else vocab * hidden
    return layers * (attention + mlp + norms) + embedding + head + hidden  # + final norm


def test_llama_3_8b_shape_and_size() -> None:
    expected = _llama_params(32, 4096, 32, 8, 128, 14336, 128256, tied=False)
    assert expected == 8_030_261_248
    assert L8B.params == expected
    assert round(L8B.params / 1e9, 2) == 8.03


def test_llama_3_70b_shape_and_size() -> None:
    expected = _llama_params(80, 8192, 64, 8, 128, 28672, 128256, tied=False)
    assert expected == 70_553_706_496
    assert L70B.params == expected
    assert round(L70B.params / 1e9, 2) == 70.55


def test_tied_and_large_models() -> None:
    small = MODELS["llama-3.2-1b"]
    assert small.params == _llama_params(16, 2048, 32, 8, 64, 8192, 128256, tied=True)
    assert round(small.params / 1e9, 2) == 1.24
    big = MODELS["llama-3.1-405b"]
    assert big.params == _llama_params(126, 16384, 128, 8, 128, 53248, 128256, tied=False)
    assert round(big.params / 1e9) == 406


def test_kv_bytes_per_token() -> None:
    # K and V, per layer, per KV head, head_dim values of 2 bytes each.
    assert L8B.kv_bytes_per_token == 2 * 32 * 8 * 128 * 2 == 131_072
    assert L70B.kv_bytes_per_token == 2 * 80 * 8 * 128 * 2 == 327_680


def test_weight_bytes() -> None:
    assert L8B.weight_bytes == 2 * 8_030_261_248
    # Streamed per step: every matmul weight (layers and head), not the embedding table.
    layer_matmuls = 32 * (4096 * 4096 * 2 + 4096 * 1024 * 2 + 3 * 4096 * 14336)
    assert layer_matmuls == 6_979_321_856
    assert L8B.streamed_weight_bytes == 2 * (layer_matmuls + 128256 * 4096)


def test_activation_bytes_per_token() -> None:
    # Per layer, each matmul's input and output, BF16: QKV (4096 in, 6144 out), O (4096,
    # 4096), gate-up (4096, 28672), down (14336, 4096).
    per_layer = (4096 + 6144) + (4096 + 4096) + (4096 + 2 * 14336) + (14336 + 4096)
    assert L8B.activation_bytes_per_token == 32 * per_layer * 2 == 4_456_448
    assert L8B.head_activation_bytes_per_logit == (4096 + 128256) * 2


# --- One step, worked by hand ---------------------------------------------------------

LAYER_MATMULS_8B = 6_979_321_856
HEAD_8B = 128256 * 4096
ATTENTION_8B = 4 * 32 * 32 * 128  # FLOPs per new token per earlier position, all layers
WEIGHTS_8B = 2 * (LAYER_MATMULS_8B + HEAD_8B)
ACTIVATIONS_8B = 4_456_448
LOGIT_IO_8B = (4096 + 128256) * 2


def test_prefill_flops_and_bytes_by_hand() -> None:
    n = 1000
    cost = prefill(H100, L8B, n)
    flops = 2 * LAYER_MATMULS_8B * n + 2 * HEAD_8B * 1 + ATTENTION_8B * n * (n + 1) // 2
    assert flops == 14_222_100_529_152
    assert cost.flops == flops
    moved = WEIGHTS_8B + n * 131_072 + n * ACTIVATIONS_8B + 1 * LOGIT_IO_8B
    assert moved == 19_597_101_568
    assert cost.bytes == moved
    assert cost.compute_s == pytest.approx(flops / (989e12 * 0.7))
    assert cost.memory_s == pytest.approx(moved / (3.35e12 * 0.8))
    assert cost.bound == "compute"
    assert cost.time_s == pytest.approx(flops / (989e12 * 0.7))  # about 20.5 ms


def test_decode_step_flops_and_bytes_by_hand() -> None:
    batch, context = 8, 2048
    cost = decode_step(H100, L8B, batch, context)
    per_sequence = 2 * LAYER_MATMULS_8B + 2 * HEAD_8B + ATTENTION_8B * (context + 1)
    assert cost.flops == batch * per_sequence == 128_668_663_808
    moved = (WEIGHTS_8B + batch * (context + 1) * 131_072 + batch * ACTIVATIONS_8B
             + batch * LOGIT_IO_8B)
    assert cost.bytes == moved == 17_195_618_304
    assert cost.bound == "memory"
    assert cost.time_s == pytest.approx(moved / (3.35e12 * 0.8))  # about 6.42 ms
    assert cost.intensity == pytest.approx(128_668_663_808 / 17_195_618_304)


def test_step_time_is_the_roofline_maximum_plus_allreduces() -> None:
    for work in ([Work(1, 4096, count=4)], [Work(512, 0, logit_tokens=1)], [Work(8192, 0)]):
        cost = step_cost(H100, L70B, work, tp=4)
        assert cost.matmul_s == max(cost.compute_s, cost.memory_s)
        assert cost.time_s == pytest.approx(cost.matmul_s + cost.allreduce_s)
        assert cost.compute_s == pytest.approx(cost.flops / 4 / (989e12 * 0.7))
        assert cost.memory_s == pytest.approx(cost.bytes / 4 / (3.35e12 * 0.8))


def test_count_is_the_same_as_repeating_the_work() -> None:
    one = step_cost(H100, L8B, [Work(3, 700, count=5)])
    many = step_cost(H100, L8B, [Work(3, 700)] * 5)
    assert (one.flops, one.bytes) == (many.flops, many.bytes)


def test_logits_only_where_sampled() -> None:
    # A decode and a speculative verify score every new position; a prefill only its last.
    verify = step_cost(H100, L8B, [Work(5, 100)])
    no_head = step_cost(H100, L8B, [Work(5, 100, logit_tokens=0)])
    assert verify.flops - no_head.flops == 5 * 2 * HEAD_8B
    assert verify.bytes - no_head.bytes == 5 * LOGIT_IO_8B
    assert prefill(H100, L8B, 64).flops == step_cost(
        H100, L8B, [Work(64, 0, logit_tokens=1)]).flops


@pytest.mark.parametrize("bad", [dict(new_tokens=-1), dict(new_tokens=2, logit_tokens=3),
                                 dict(new_tokens=1, context_tokens=-5)])
def test_work_refuses_impossible_counts(bad: dict) -> None:
    with pytest.raises(ValueError):
        Work(**bad)


# --- Tensor and pipeline parallel communication -----------------------------------------

def test_allreduce_is_latency_plus_the_ring_term() -> None:
    message = 1e6
    for tp in (2, 4, 8):
        expected = ALLREDUCE_LATENCY_S + 2 * (tp - 1) / tp * message / (900e9 / 2)
        assert allreduce_time(H100, message, tp) == pytest.approx(expected)
    assert allreduce_time(H100, message, 1) == 0.0
    assert allreduce_time(H100, message, 8, latency_s=0.0) == pytest.approx(
        1.75 * 1e6 / 450e9)


def test_two_allreduces_per_layer() -> None:
    cost = decode_step(H100, L70B, 1, 1000, tp=2)
    assert cost.allreduces == 160
    message = 1 * 8192 * 2  # one token's hidden state in BF16
    assert cost.allreduce_s == pytest.approx(160 * (10e-6 + 2 * 1 / 2 * message / 450e9))
    assert decode_step(H100, L70B, 1, 1000, tp=1).allreduces == 0
    assert decode_step(H100, L8B, 1, 1000, tp=8).allreduces == 64


def test_allreduce_grows_with_batch_only_through_the_bandwidth_term() -> None:
    small = decode_step(H100, L70B, 1, 1000, tp=8).allreduce_s
    large = decode_step(H100, L70B, 256, 1000, tp=8).allreduce_s
    assert small == pytest.approx(160 * (10e-6 + 1.75 * 16384 / 450e9))
    assert large - small == pytest.approx(160 * 1.75 * 255 * 16384 / 450e9)


def test_p2p_time() -> None:
    assert p2p_time(H100, 4e6) == pytest.approx(P2P_LATENCY_S + 4e6 / 450e9)


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
    one = memory_fit(H100, L70B, kv_tokens=0)
    assert one.weights_per_gpu_bytes == pytest.approx(141.1e9, rel=1e-3)
    assert not one.fits
    two = memory_fit(H100, L70B, kv_tokens=1000, tp=2)
    assert two.fits
    assert two.kv_per_gpu_bytes == 1000 * 327_680 / 2
    assert smallest_fitting_tp(H100, L70B, 1000) == 2
    assert smallest_fitting_tp(H200, L70B, 1000) == 2  # 141.1 GB > 0.9 x 141 GB
    assert smallest_fitting_tp(H100, L8B, 0) == 1


def test_kv_can_push_a_model_off_its_gpus() -> None:
    # 8B on one H100: 72 GB usable, 16.06 GB weights, so about 427,000 tokens of KV.
    room = (0.9 * 80e9 - 2 * 8_030_261_248) / 131_072
    assert memory_fit(H100, L8B, int(room)).fits
    assert not memory_fit(H100, L8B, int(room) + 1).fits
    assert smallest_fitting_tp(H100, MODELS["llama-3.1-405b"], 0) is None


# --- Monotonic: more work never costs less ----------------------------------------------

def _never_cheaper(costs: list) -> bool:
    return all(
        later.flops >= earlier.flops and later.bytes >= earlier.bytes
        and later.time_s >= earlier.time_s
        for earlier, later in itertools.pairwise(costs)
    )


@pytest.mark.parametrize("gpu", ["h100", "a100"])
@pytest.mark.parametrize("model", ["llama-3-8b", "llama-3-70b"])
@pytest.mark.parametrize("tp", [1, 4])
def test_more_batch_context_or_tokens_is_never_cheaper(gpu: str, model: str, tp: int) -> None:
    device, shape = GPUS[gpu], MODELS[model]
    sizes = [1, 2, 7, 16, 64, 255, 1024, 4096, 32768]
    for context in (0, 512, 8192):
        assert _never_cheaper([decode_step(device, shape, b, context, tp) for b in sizes[:7]])
    for batch in (1, 32):
        assert _never_cheaper([decode_step(device, shape, batch, c, tp) for c in sizes])
    assert _never_cheaper([prefill(device, shape, n, tp=tp) for n in sizes])
    assert _never_cheaper([prefill(device, shape, 512, cached_tokens=c, tp=tp) for c in sizes])
