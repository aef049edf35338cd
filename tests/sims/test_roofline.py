"""The roofline sim: where prefill and decode sit against the ridge, and its page's figures."""

from __future__ import annotations

import itertools

import pytest
from explainer_pages import rendered

from sims import roofline
from sims.physics import GPUS, MODELS, decode_step, prefill


def summary(**inputs: object) -> dict:
    return roofline.simulate(**inputs)["summary"]


def test_summary_names_are_the_contract() -> None:
    names = {"ridge_flops_per_byte", "prefill_intensity", "decode_intensity", "prefill_bound",
             "decode_bound", "prefill_time_s", "decode_step_time_s", "decode_tokens_per_s"}
    result = summary()
    assert names <= set(result)
    assert set(result) == set(roofline.METRICS)
    assert {spec.name for spec in roofline.INPUTS} == {"gpu", "model", "weights", "kv",
                                                       "batch_size", "seq_len"}


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
    assert summary(model="llama-3.1-70b")["gpus"] == 4
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


def page_figures() -> list[tuple[str, float, str]]:
    """(phrase with {} for the figure, value, format) for the check-it-yourself section."""
    gpu, model = GPUS["h100"], MODELS["llama-3.1-8b"]
    batch, seq = 8, 2048
    decode, fill = decode_step(gpu, model, batch, seq), prefill(gpu, model, seq, batch)
    layer_weights = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336)
    head = 128256 * 4096
    attention = 4 * 32 * 32 * 128  # FLOPs per attended position, all layers
    matmul_io = 32 * ((4096 + 6144) + (4096 + 4096) + (4096 + 28672) + (14336 + 4096)) * 2
    attention_io = 32 * 2 * 32 * 128 * 2  # queries in, outputs out
    elementwise_io = 32 * (4 * 4096 + 2 * (32 + 8) * 128 + 3 * 14336) * 2
    per_token = matmul_io + attention_io + elementwise_io
    tokens = batch * seq
    attended = seq * (seq + 1) / 2
    compute, memory = 989e12 * 0.7, 3.35e12 * 0.8
    kernels = 32 * 9 + 2
    return [
        ("0.7 = {} TFLOP/s", compute / 1e12, ".1f"),
        ("0.8 = {} TB/s", memory / 1e12, ".2f"),
        ("= {} billion weights and", layer_weights / 1e9, ".2f"),
        ("the output head {} billion", head / 1e9, ".2f"),
        ("billion: {} billion,", (layer_weights + head) / 1e9, ".2f"),
        ("billion, {} GB in BF16", 2 * (layer_weights + head) / 1e9, ".2f"),
        ("= {} bytes. Every operator", model.kv_bytes_per_token(), ",.0f"),
        ("per token, {} MB for the matmuls", matmul_io / 1e6, ".2f"),
        ("matmuls, {} MB for attention's", attention_io / 1e6, ".2f"),
        ("and {} MB for the element-wise", elementwise_io / 1e6, ".2f"),
        ("activation), {} MB in all", per_token / 1e6, ".2f"),
        ("2 × 7.50 billion = {} GFLOP of matmuls", 2 * (layer_weights + head) / 1e9, ".2f"),
        ("at 524,288 FLOPs each, {} GFLOP", attention * (seq + 1) / 1e9, ".2f"),
        ("GFLOP: {} GFLOP, or", (2 * (layer_weights + head) + attention * (seq + 1)) / 1e9,
         ".2f"),
        ("or {} GFLOP for the batch", decode.flops / 1e9, ".1f"),
        ("bytes = {} GB of KV cache", batch * (seq + 1) * model.kv_bytes_per_token() / 1e9,
         ".2f"),
        ("and {} GB of activations", (decode.bytes - 2 * (layer_weights + head)
                                      - batch * (seq + 1) * model.kv_bytes_per_token()) / 1e9,
         ".2f"),
        ("of activations: {} GB. The intensity", decode.bytes / 1e9, ".2f"),
        ("per byte, {} times below the ridge", gpu.effective_ridge_flops_per_byte
         / decode.intensity, ".0f"),
        ("TB/s is {} ms, against", decode.memory_s * 1e3, ".2f"),
        ("against {} ms for the arithmetic", decode.compute_s * 1e3, ".2f"),
        ("the step runs {} kernels", kernels, "d"),
        ("head): 6.43 + {} =", kernels * 4e-6 * 1e3, ".2f"),
        ("layer weights is {} TFLOP", 2 * layer_weights * tokens / 1e12, ".1f"),
        ("first answer token: {} TFLOP", 2 * head * batch / 1e12, ".2f"),
        ("= {} million positions", attended / 1e6, ".2f"),
        ("million = {} TFLOP. That", batch * attention * attended / 1e12, ".2f"),
        ("That is {} TFLOP", fill.flops / 1e12, ".1f"),
        ("16,384 × 9.44 MB = {} GB of activations", tokens * per_token / 1e9, ".1f"),
        ("and {} GB to look up", tokens * 4096 * 2 * 2 / 1e9, ".2f"),
        ("embeddings: {} GB. The", fill.bytes / 1e9, ".1f"),
        ("per byte, {} times above the", fill.intensity / gpu.effective_ridge_flops_per_byte,
         ".0f"),
        ("TFLOP/s = {} s; the element-wise", fill.flops / compute, ".3f"),
        ("and move {} GB,", tokens * elementwise_io / 1e9, ".1f"),
        ("GB, {} s; each matmul's", tokens * elementwise_io / memory, ".3f"),
        ("against {} s to move every byte", fill.memory_s, ".3f"),
    ]


def test_the_hand_sums_add_up_to_the_step() -> None:
    """The page's two sums are the sim's, up to the rounding the page admits."""
    gpu, model = GPUS["h100"], MODELS["llama-3.1-8b"]
    decode = decode_step(gpu, model, 8, 2048)
    assert decode.ops_s == pytest.approx(decode.memory_s + 290 * 4e-6, abs=0.01e-3)
    fill = prefill(gpu, model, 2048, 8)
    elementwise = 16384 * 32 * (4 * 4096 + 2 * 40 * 128 + 3 * 14336) * 2 / (3.35e12 * 0.8)
    assert 0 < fill.ops_s - (fill.flops / (989e12 * 0.7) + elementwise) < 0.005


@pytest.mark.parametrize(("phrase", "value", "spec"), page_figures())
def test_check_it_yourself_figures_match_the_physics(phrase: str, value: float, spec: str) -> None:
    assert phrase.format(format(value, spec)) in rendered_page()


def test_page_starts_at_the_defaults_it_derives_from() -> None:
    defaults = {spec.name: spec.default for spec in roofline.INPUTS}
    assert defaults == {"gpu": "h100", "model": "llama-3.1-8b", "weights": "native",
                        "kv": "bf16", "batch_size": 8, "seq_len": 2048}
    text = rendered_page()
    assert "```sim module: roofline ```" in text  # no start: the page opens at the defaults
    assert "Llama 3.1 8B on one H100, batch 8, sequence length 2,048" in text
    assert "{{" not in text


def test_page_claims_hold_in_the_sim() -> None:
    text = rendered_page()
    assert "a ridge of 295 FLOP per byte" in text
    assert "moves the ridge down to 258 FLOP per byte" in text
    assert "Decode slides to an intensity of about 1 FLOP" in text
    assert round(summary(batch_size=1)["decode_intensity"]) == 1
    # "It still sits below the ridge at 256 requests" (short sequence).
    assert summary(batch_size=256, seq_len=512)["decode_bound"] == "memory"
    # "rises only slowly once the batch passes a dozen or so requests" at 32,768 tokens.
    at_16 = summary(batch_size=16, seq_len=32768)["decode_intensity"]
    at_256 = summary(batch_size=256, seq_len=32768)["decode_intensity"]
    assert at_256 - at_16 < 0.25 * at_256
    # "at the starting batch its weights and KV cache need four"
    assert summary(model="llama-3.1-70b")["gpus"] == 4
    # "Below batch 4 the effect runs the other way"
    assert summary(batch_size=2, seq_len=32768)["decode_intensity"] > summary(
        batch_size=2, seq_len=512)["decode_intensity"]
    assert summary(batch_size=8, seq_len=32768)["decode_intensity"] < summary(
        batch_size=8, seq_len=512)["decode_intensity"]
    # "several times right of the ridge"
    assert 4 < summary()["prefill_intensity"] / summary()["ridge_flops_per_byte"] < 6
