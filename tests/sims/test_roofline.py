"""The roofline sim: where prefill and decode sit against the ridge, and its page's figures."""

from __future__ import annotations

import itertools

import pytest
from explainer_pages import (
    Claim,
    hand_priced,
    hardware_claims,
    profile_claims,
    rendered,
    shape_claims,
    total_s,
    unfitted,
)

from sims import roofline
from sims.physics import GPUS, MODELS, Work, decode_step, prefill
from tests.sims.explainer_pages import opens_at_the_defaults


def summary(**inputs: object) -> dict:
    return roofline.simulate(**inputs)["summary"]


def test_summary_names_are_the_contract() -> None:
    names = {"ridge_flops_per_byte", "prefill_intensity", "decode_intensity", "prefill_bound",
             "decode_bound", "prefill_time_s", "decode_step_time_s", "decode_tokens_per_s"}
    result = summary()
    assert names <= set(result)
    assert set(result) == set(roofline.METRICS)
    assert {spec.name for spec in roofline.INPUTS} == {"gpu", "model", "model_config",
                                                       "weights", "kv", "batch_size", "seq_len"}


def test_decode_at_small_batch_sits_far_left_of_the_ridge() -> None:
    for seq_len in (16, 2048, 32768):
        result = summary(batch_size=1, seq_len=seq_len)
        assert result["decode_intensity"] < result["ridge_flops_per_byte"] / 100
        assert result["decode_bound"] == "memory"


def test_prefill_of_a_long_prompt_sits_right_of_the_ridge() -> None:
    models = ("llama-3.1-8b", "llama-3.1-70b")
    for gpu, model in itertools.product(("h100", "h200", "a100"), models):
        result = summary(gpu=gpu, model=model, batch_size=1, seq_len=4096)
        # Activations, read and written by every operator, cap it below 2 x params / bytes
        # per token of activations; several times the ridge all the same.
        assert result["prefill_intensity"] > 3 * result["ridge_flops_per_byte"]
        assert result["prefill_bound"] == "compute"


def test_batch_moves_decode_toward_the_ridge() -> None:
    intensities = [summary(batch_size=b, seq_len=512)["decode_intensity"]
                   for b in (1, 2, 8, 32, 128, 256)]
    assert intensities == sorted(intensities)
    assert intensities[-1] > 100 * intensities[0]
    assert intensities[-1] < summary()["ridge_flops_per_byte"]  # still memory-bound at 256


def test_long_contexts_pull_decode_back() -> None:
    for batch in (8, 64, 256):
        by_context = [summary(batch_size=batch, seq_len=c) for c in (512, 4096, 32768)]
        intensities = [r["decode_intensity"] for r in by_context]
        assert intensities == sorted(intensities, reverse=True)
        shares = [r["decode_kv_share"] for r in by_context]
        assert shares == sorted(shares)
    # At long context the intensity approaches heads / kv_heads = 4 and batch barely helps.
    long = [summary(batch_size=b, seq_len=32768)["decode_intensity"] for b in (64, 256)]
    assert long[1] - long[0] < 0.5
    assert 4 < long[1] < 8


def test_bounds_agree_with_the_ridge() -> None:
    for batch, seq_len in itertools.product((1, 16, 256), (16, 256, 8192)):
        result = summary(batch_size=batch, seq_len=seq_len)
        for phase in ("prefill", "decode"):
            left = result[f"{phase}_intensity"] < result["ridge_flops_per_byte"]
            assert result[f"{phase}_bound"] == ("memory" if left else "compute")


def test_times_come_from_the_shared_physics() -> None:
    gpu, model = GPUS["a100"], MODELS["llama-3.1-8b"]
    result = summary(gpu="a100", batch_size=4, seq_len=1000)
    assert result["prefill_time_s"] == pytest.approx(prefill(gpu, model, 1000, 4).time_s,
                                                     rel=1e-5)
    step = decode_step(gpu, model, 4, 1000).time_s
    assert result["decode_step_time_s"] == pytest.approx(step, rel=1e-5)
    assert result["decode_tokens_per_s"] == pytest.approx(4 / step, rel=1e-3)


def test_a_model_that_does_not_fit_one_gpu_is_split_and_said_so() -> None:
    assert summary(model="llama-3.1-70b", batch_size=1)["gpus"] == 2
    assert summary(model="llama-3.1-70b")["gpus"] == 2
    assert summary(model="llama-3.1-70b", batch_size=64)["gpus"] == 4
    assert summary(model="llama-3.1-8b")["gpus"] == 1
    too_big = summary(model="llama-3.1-405b", batch_size=256, seq_len=32768)
    assert too_big["fits"] is False and too_big["gpus"] == 8
    # Splitting the model divides FLOPs and bytes alike: intensity does not change.
    one = decode_step(GPUS["h100"], MODELS["llama-3.1-70b"], 8, 2048, tp=1).intensity
    assert summary(model="llama-3.1-70b")["decode_intensity"] == pytest.approx(one, abs=0.01)


def test_edge_inputs() -> None:
    small = summary(batch_size=1, seq_len=16)
    assert small["prefill_time_s"] > 0 and small["decode_step_time_s"] > 0
    with pytest.raises(ValueError, match="batch_size"):
        roofline.simulate(batch_size=0)
    with pytest.raises(ValueError, match="gpu"):
        roofline.simulate(gpu="h300")


def test_roofline_chart_is_log_log_with_both_phases() -> None:
    chart = roofline.simulate()["charts"][0]
    rows = chart["data"]["values"]
    assert {r["phase"] for r in rows if r["kind"] == "phase"} == {"prefill", "decode"}
    for layer in chart["layer"][:2]:
        encoding = layer["encoding"]
        assert encoding["x"]["scale"]["type"] == "log"
        assert encoding["y"]["scale"]["type"] == "log"
        assert "(FLOP/byte)" in encoding["x"]["title"]
        assert "(TFLOP/s)" in encoding["y"]["title"]
    low, high = roofline.X_DOMAIN
    for batch, seq_len in ((1, 16), (256, 32768)):
        for model in ("llama-3.2-1b", "llama-3.1-405b"):
            result = summary(model=model, batch_size=batch, seq_len=seq_len)
            assert low < result["decode_intensity"] and result["prefill_intensity"] < high


def test_points_move_with_the_inputs() -> None:
    def points(**inputs: object) -> dict:
        rows = roofline.simulate(**inputs)["charts"][0]["data"]["values"]
        return {r["phase"]: r["intensity"] for r in rows if r["kind"] == "phase"}

    assert points(batch_size=64)["decode"] > points(batch_size=8)["decode"]
    assert points(seq_len=8192)["prefill"] > points(seq_len=512)["prefill"]


# --- The page -------------------------------------------------------------------------

def rendered_page() -> str:
    return rendered("roofline")


def page_figures() -> list[Claim]:
    """(phrase with {} for the figure, value, format) for the check-it-yourself section."""
    gpu, model = GPUS["h100"], MODELS["llama-3.1-8b"]
    batch, seq = 8, 2048
    decode, fill = decode_step(gpu, model, batch, seq), prefill(gpu, model, seq, batch)
    by_hand = hand_priced(gpu, model, [Work(1, seq, count=batch)])
    fill_by_hand = hand_priced(gpu, model, [Work(seq, 0, count=batch, logit_tokens=1)])
    gemm, attention, elementwise = (by_hand[k] for k in ("gemm", "decode_attention",
                                                            "elementwise"))
    fill_gemm, fill_attention, fill_elementwise = (
        fill_by_hand[k] for k in ("gemm", "prefill_attention", "elementwise"))
    fit = gpu.kernels.gemm["bf16"]
    gemm_rate = gpu.bf16_flops * fit.compute_efficiency
    attention_rate = gpu.bf16_flops * gpu.kernels.prefill_attention["bf16"].compute_efficiency
    layer_weights = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336)
    head = 128256 * 4096
    attention_flops = 4 * 32 * 32 * 128  # FLOPs per attended position, all layers
    matmul_io = 32 * ((4096 + 6144) + (4096 + 4096) + (4096 + 28672) + (14336 + 4096)) * 2
    attention_io = 32 * (2 * 32 + 2 * 8) * 128 * 2  # queries, outputs, new keys and values
    elementwise_io = 32 * (4 * 4096 + 3 * 14336) * 2
    per_token = matmul_io + attention_io + elementwise_io
    tokens = batch * seq
    attended = seq * (seq + 1) / 2
    kv = batch * (seq + 1) * model.kv_bytes_per_token()
    fixed = gemm.fixed_s + attention.fixed_s + elementwise.fixed_s
    return [
        *hardware_claims(gpu, "H100", ".2f"),
        *profile_claims(gpu, "overlap", "gemm", "decode_attention", "prefill_attention",
                        "elementwise"),
        ("{} TFLOP/s over 2.74 TB/s", gemm_rate / 1e12, ".1f"),
        ("787.7 TFLOP/s over {} TB/s", gpu.hbm_bytes_per_s * fit.memory_efficiency / 1e12,
         ".2f"),
        *shape_claims(model, ",d"),
        ("= {} billion weights and", layer_weights / 1e9, ".2f"),
        ("the output head {} billion", head / 1e9, ".2f"),
        ("billion: {} billion,", (layer_weights + head) / 1e9, ".2f"),
        ("billion, {} GB in BF16", 2 * (layer_weights + head) / 1e9, ".2f"),
        ("= {} bytes. Every operator", model.kv_bytes_per_token(), ",.0f"),
        ("per token, {} MB for the matmuls", matmul_io / 1e6, ".2f"),
        ("matmuls, {} MB for the element-wise", elementwise_io / 1e6, ".2f"),
        ("and in prefill {} MB for attention's", attention_io / 1e6, ".2f"),
        ("2 × 7.50 billion = {} GFLOP of matmuls", 2 * (layer_weights + head) / 1e9, ".2f"),
        ("at 524,288 FLOPs each, {} GFLOP", attention_flops * (seq + 1) / 1e9, ".2f"),
        ("GFLOP: {} GFLOP, or",
         (2 * (layer_weights + head) + attention_flops * (seq + 1)) / 1e9, ".2f"),
        ("or {} GFLOP for the batch", decode.flops / 1e9, ".1f"),
        ("bytes = {} GB of KV cache", kv / 1e9, ".2f"),
        ("and {} GB of activations", (decode.bytes - 2 * (layer_weights + head) - kv) / 1e9,
         ".2f"),
        ("of activations: {} GB. The intensity", decode.bytes / 1e9, ".2f"),
        ("128.7 / {} =", decode.bytes / 1e9, ".2f"),
        ("per byte, {} times below the ridge",
         gpu.effective_ridge_flops_per_byte / decode.intensity, ".0f"),
        ("It runs {} kernels", sum(k.count for k in by_hand.values()), "d"),
        ("The {} GEMMs (four a layer", gemm.count, "d"),
        ("head) move {} GB, weights", gemm.moved / 1e9, ".2f"),
        ("activations, in {} ms at 2.74 TB/s", gemm.memory_s * 1e3, ".2f"),
        ("their arithmetic, {} ms,", gemm.compute_s * 1e3, ".2f"),
        ("their starts add {} ms:", gemm.fixed_s * 1e3, ".2f"),
        ("add 0.41 ms: {} ms.", gemm.time_s * 1e3, ".2f"),
        ("reads the {} GB of cache", attention.moved / 1e9, ".2f"),
        ("of cache in {} ms", attention.memory_s * 1e3, ".2f"),
        ("and pays {} ms in fixed costs", attention.fixed_s * 1e3, ".2f"),
        ("in fixed costs: {} ms.", attention.time_s * 1e3, ".2f"),
        ("The {} element-wise kernels", elementwise.count, "d"),
        ("lookup) move {} GB in", elementwise.moved / 1e9, ".2f"),
        ("GB in {} ms but take", elementwise.memory_s * 1e3, ".2f"),
        ("but take {} ms to start", elementwise.fixed_s * 1e3, ".2f"),
        ("to start: {} ms. One after", elementwise.time_s * 1e3, ".2f"),
        ("ms, of which {} ms are fixed costs", fixed * 1e3, ".2f"),
        ("layer weights is {} TFLOP", 2 * layer_weights * tokens / 1e12, ".1f"),
        ("first answer token: {} TFLOP", 2 * head * batch / 1e12, ".2f"),
        ("= {} million positions", attended / 1e6, ".2f"),
        ("million = {} TFLOP. That", batch * attention_flops * attended / 1e12, ".2f"),
        ("That is {} TFLOP", fill.flops / 1e12, ".1f"),
        ("16,384 × {} MB", per_token / 1e6, ".2f"),
        ("MB = {} GB of activations", tokens * per_token / 1e9, ".1f"),
        ("and {} GB to look up", tokens * 4096 * 2 * 2 / 1e9, ".2f"),
        ("embeddings: {} GB. The", fill.bytes / 1e9, ".1f"),
        ("per byte, {} times above the",
         fill.intensity / gpu.effective_ridge_flops_per_byte, ".0f"),
        ("The GEMMs' {} TFLOP", fill_gemm.compute_s * gemm_rate / 1e12, ".1f"),
        ("TFLOP take {} ms at 787.7", fill_gemm.compute_s * 1e3, ".1f"),
        ("their {} GB of traffic", fill_gemm.moved / 1e9, ".1f"),
        ("adds {} ms through the cube root",
         (fill_gemm.time_s - fill_gemm.fixed_s - fill_gemm.compute_s) * 1e3, ".2f"),
        ("and their starts {} ms:", fill_gemm.fixed_s * 1e3, ".2f"),
        ("ms: {} ms. Attention's", fill_gemm.time_s * 1e3, ".1f"),
        ("Attention's {} TFLOP", fill_attention.compute_s * attention_rate / 1e12, ".2f"),
        ("take {} ms at", fill_attention.compute_s * 1e3, ".1f"),
        ("at {} TFLOP/s, its", attention_rate / 1e12, ".1f"),
        ("its {} GB of tensors", fill_attention.moved / 1e9, ".1f"),
        ("tensors {} ms over their passes", fill_attention.memory_s * 1e3, ".2f"),
        ("its {} calls", fill_attention.count, "d"),
        ("calls {} ms:", fill_attention.fixed_s * 1e3, ".2f"),
        ("ms: {} ms. The element-wise", fill_attention.time_s * 1e3, ".1f"),
        ("and move {} GB,", fill_elementwise.moved / 1e9, ".1f"),
        ("GB, {} ms at 2.68 TB/s", fill_elementwise.memory_s * 1e3, ".1f"),
        ("ms at {} TB/s, ", gpu.hbm_bytes_per_s * gpu.kernels.elementwise.memory_efficiency / 1e12,
         ".2f"),
        ("TB/s, {} ms with their starts", fill_elementwise.time_s * 1e3, ".1f"),
    ]


def test_what_the_pages_call_assumed_is_still_unfitted() -> None:
    """This page and the tensor-parallel, parallelism, batching, chunked-prefill and
    speculative-decoding pages call the overlap exponent and the element-wise constants
    assumed, not measured: true while Hopper's profile sources them as assumed, not fitted."""
    assert unfitted(GPUS["h100"]) == {"overlap_exponent", "elementwise"}


def test_the_hand_pricing_is_the_step() -> None:
    """The page's kernel-by-kernel sums are the physics' steps, exactly."""
    gpu, model = GPUS["h100"], MODELS["llama-3.1-8b"]
    for work, cost in (([Work(1, 2048, count=8)], decode_step(gpu, model, 8, 2048)),
                       ([Work(2048, 0, count=8, logit_tokens=1)], prefill(gpu, model, 2048, 8))):
        assert total_s(hand_priced(gpu, model, work)) == pytest.approx(cost.ops_s, rel=1e-12)


@pytest.mark.parametrize(("phrase", "value", "spec"), page_figures())
def test_check_it_yourself_figures_match_the_physics(phrase: str, value: float, spec: str) -> None:
    assert phrase.format(format(value, spec)) in rendered_page()


def test_page_starts_at_the_defaults_it_derives_from() -> None:
    defaults = {spec.name: spec.default for spec in roofline.INPUTS}
    assert defaults == {"gpu": "h100", "model": "llama-3.1-8b", "model_config": "",
                        "weights": "native",
                        "kv": "bf16", "batch_size": 8, "seq_len": 2048}
    text = rendered_page()
    assert opens_at_the_defaults("roofline", "roofline")  # no start: the page opens at the defaults
    assert "Llama 3.1 8B on one H100, batch 8, sequence length 2,048" in text
    assert "{{" not in text


def test_page_claims_hold_in_the_sim() -> None:
    text = rendered_page()
    gpu = GPUS["h100"]
    assert f"a ridge of {gpu.ridge_flops_per_byte:.0f} FLOP per byte" in text
    assert f"move the ridge down to {gpu.effective_ridge_flops_per_byte:.0f} FLOP" in text
    assert "Decode slides to an intensity of about 1 FLOP" in text
    assert round(summary(batch_size=1)["decode_intensity"]) == 1
    # "It still sits below the ridge at 256 requests" (short sequence).
    assert summary(batch_size=256, seq_len=512)["decode_bound"] == "memory"
    # "rises only slowly once the batch passes a dozen or so requests" at 32,768 tokens.
    at_16 = summary(batch_size=16, seq_len=32768)["decode_intensity"]
    at_256 = summary(batch_size=256, seq_len=32768)["decode_intensity"]
    assert at_256 - at_16 < 0.25 * at_256
    # "at the starting batch its weights and KV cache need two"
    assert summary(model="llama-3.1-70b")["gpus"] == 2
    # "Below batch 4 the effect runs the other way"
    assert summary(batch_size=2, seq_len=32768)["decode_intensity"] > summary(
        batch_size=2, seq_len=512)["decode_intensity"]
    assert summary(batch_size=8, seq_len=32768)["decode_intensity"] < summary(
        batch_size=8, seq_len=512)["decode_intensity"]
    # "several times right of the ridge"
    assert 4 < summary()["prefill_intensity"] / summary()["ridge_flops_per_byte"] < 6
