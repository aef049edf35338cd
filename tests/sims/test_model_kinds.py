"""The 2026 models' layer kinds, read from their real config.json files.

Each fixture (tests/pipeline/fixtures/configs/, sources in its SOURCES.md) is read as a
reader's pasted config is (sims.physics.model_config.model_from_text), and its parameter
totals are held to the publishers' own within TOTAL_BAND (active: ACTIVE_BAND, the
publishers round them to a billion). What the counts leave out, by design: the vision
towers (in the published totals of Llama 4 and Qwen3.5; Kimi K2.5's 0.4B MoonViT), the
multi-token-prediction layers, and the small extras sims.physics.shapes names.

Published figures: Qwen3.5-397B-A17B (its name: 397B, 17B active); Llama 4 Scout 109B / 17B
active and Maverick 400B / 17B (Meta's model cards); DeepSeek-V3.2 671B / 37B; GLM-5 744B /
40B (the GLM-5 technical report, arXiv 2602.15763); DeepSeek-V4-Flash 284B / 13B and
V4-Pro 1.6T / 49B (DeepSeek's V4 release, April 2026); Gemma 4 26B-A4B 25.2B / 3.8B (its
model card); Kimi K2.5 1.04T / 32B (Moonshot's model card gives 1T; the K2 report 1.04T).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from sims.kit.contract import InputError
from sims.physics import GPUS, Precision, decode_step, precision_for
from sims.physics.kinds import COMPRESSED, LINEAR, SLIDING, SPARSE
from sims.physics.model_config import model_from_text
from sims.physics.precision import bytes_per_value, moe_variant, wider
from sims.physics.shapes import Model
from tests.repo import REPO

CONFIGS = REPO / "tests" / "pipeline" / "fixtures" / "configs"
TOTAL_BAND = 0.02
ACTIVE_BAND = 0.03


def model(slug: str) -> Model:
    return model_from_text((CONFIGS / f"{slug}.json").read_text(), slug)


def text(slug: str) -> dict:
    return json.loads((CONFIGS / f"{slug}.json").read_text())


@pytest.mark.parametrize(
    ("slug", "total", "active", "embedding_counted"),
    [
        # Qwen and Meta count the embedding among the active parameters; DeepSeek, Zhipu,
        # Moonshot and Google do not.
        ("qwen3.5-397b-a17b", 397e9, 17e9, True),
        ("llama-4-scout", 109e9, 17e9, True),
        ("llama-4-maverick", 400e9, 17e9, True),
        ("deepseek-v3.2", 671e9, 37e9, False),
        ("glm-5", 744e9, 40e9, False),
        ("deepseek-v4-flash", 284e9, 13e9, False),
        ("deepseek-v4-pro", 1.6e12, 49e9, False),
        ("gemma-4-26b-a4b", 25.2e9, 3.8e9, False),
        ("kimi-k2.5", 1.04e12, 32e9, False),
    ],
)
def test_totals_come_within_two_percent_of_the_publishers(
        slug: str, total: float, active: float, embedding_counted: bool) -> None:
    shape = model(slug)
    embedding = shape.vocab * shape.hidden if embedding_counted else 0
    assert shape.params == pytest.approx(total, rel=TOTAL_BAND)
    assert shape.params_active + embedding == pytest.approx(active, rel=ACTIVE_BAND)


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.json")), ids=lambda p: p.stem)
def test_every_fixture_parses_as_a_pasted_config(path) -> None:
    shape = model_from_text(path.read_text())
    assert shape.params > 0 and shape.kv_bytes(4096) > 0


def test_qwen35_has_three_linear_layers_to_each_full_one_with_a_constant_state() -> None:
    qwen = model("qwen3.5-397b-a17b")
    assert Counter(kind.attention for kind in qwen.kinds) == {LINEAR: 45, "full": 15}
    assert [kind.attention for kind in qwen.kinds[:4]] == [LINEAR, LINEAR, LINEAR, "full"]
    # 64 value heads x 128 x 128 in FP32, and 3 inputs of the convolution's 2x16x128 + 64x128
    state = 64 * 128 * 128 * 4 + 3 * (2 * 16 * 128 + 64 * 128) * 2
    assert qwen.linear_state_bytes == state
    full = 15 * 2 * 2 * 256 * 2  # K and V, 2 KV heads of 256, BF16
    assert qwen.kv_bytes_per_token() == full
    assert qwen.kv_constant_bytes() == 45 * state
    assert qwen.kv_bytes(100_000) == 45 * state + 100_000 * full
    assert qwen.shared_width == 1024 and qwen.output_gate


def test_llama4_chunks_three_layers_in_four_and_maverick_alternates_dense_and_moe() -> None:
    scout, maverick = model("llama-4-scout"), model("llama-4-maverick")
    assert [(k.attention, k.window) for k in scout.kinds[:4]] == [
        ("chunked", 8192), ("chunked", 8192), ("chunked", 8192), ("full", 0)]
    assert scout.moe_layers == 48 and maverick.moe_layers == 24
    assert [kind.moe for kind in maverick.kinds[:4]] == [False, True, False, True]
    assert maverick.ffn == 16384 and maverick.shared_width == 8192  # intermediate_size_mlp
    per_layer = 2 * 8 * 128 * 2
    assert scout.kv_bytes(20_000) == (36 * 8192 + 12 * 20_000) * per_layer


def test_gemma4_global_layers_have_their_own_heads_and_a_dense_mlp_beside_the_experts() -> None:
    gemma = model("gemma-4-26b-a4b")
    globals_ = [kind for kind in gemma.kinds if kind.attention == "full"]
    assert len(globals_) == 5 and all(k.window == 1024 for k in gemma.kinds
                                      if k.attention == SLIDING)
    assert gemma.kind_heads(globals_[0]) == (2, 512)
    # K's projection only (attention_k_eq_v), K and V both cached
    assert gemma.attention_params_of(globals_[0]) == 2816 * (16 * 512 + 2 * 512) + 16 * 512 * 2816
    assert gemma.kv_bytes_per_token() == 5 * 2 * 2 * 512 * 2
    assert gemma.moe_layers == 30 and gemma.shared_width == 2112 and gemma.ffn == 0


@pytest.mark.parametrize("slug", ["deepseek-v3.2", "glm-5"])
def test_sparse_layers_cache_every_latent_and_its_fp8_indexer_key(slug: str) -> None:
    shape = model(slug)
    assert {kind.attention for kind in shape.kinds} == {SPARSE}
    latent = shape.kv_lora_rank + shape.rope_head_dim
    assert shape.kv_bytes_per_token("bf16") == shape.layers * (latent * 2 + 128 * 1)
    assert shape.kv_constant_bytes() == 0


def test_deepseek_v4_keeps_a_window_and_compressed_entries_per_layer() -> None:
    flash = model("deepseek-v4-flash")
    assert [(k.attention, k.ratio, k.topk) for k in flash.kinds[:4]] == [
        (SLIDING, 0, 0), (SLIDING, 0, 0), (COMPRESSED, 4, 512), (COMPRESSED, 128, 0)]
    ratio4 = sum(1 for k in flash.kinds if k.ratio == 4)
    ratio128 = sum(1 for k in flash.kinds if k.ratio == 128)
    assert (ratio4, ratio128) == (21, 20)
    # one shared K=V vector of 512 a token; ratio 4 layers add an FP8 index key of 128 per entry
    per_token = ratio4 * (512 * 2 + 128) / 4 + ratio128 * 512 * 2 / 128
    assert flash.kv_bytes_per_token() == pytest.approx(per_token)
    assert flash.kv_constant_bytes() == pytest.approx(43 * 128 * 512 * 2)
    assert flash.native == Precision("fp8", "fp4")  # expert_dtype fp4 beside FP8 blocks


def test_kimi_k25_keeps_its_int4_experts_in_groups_of_32_and_the_rest_in_bf16() -> None:
    kimi = model("kimi-k2.5")
    assert kimi.native == Precision("bf16", "int4g32")
    assert bytes_per_value("int4g32") == (4 + 16 / 32) / 8
    experts = 60 * 384 * 3 * 7168 * 2048
    assert kimi.expert_weight_bytes() == pytest.approx(experts * 4.5 / 8)


def test_integer_weights_compute_at_the_activations_rate() -> None:
    h100, kimi = GPUS["h100"], model("kimi-k2.5")
    assert wider("int4", "bf16") == "bf16" and wider("fp8", "int8") == "fp8"
    assert moe_variant("int4g32", "bf16") == "w4a16"
    assert moe_variant("int4", "fp8") == "w4a8"
    assert moe_variant("int8", "bf16") == "w8a16"
    assert precision_for(h100, kimi) == Precision("bf16", "int4g32", "bf16", "bf16")
    w4a8 = precision_for(h100, kimi, activations="fp8")
    assert w4a8 == Precision("bf16", "int4g32", "fp8", "bf16")
    int4 = precision_for(h100, model("llama-4-scout"), weights="int4")
    assert int4 == Precision("int4", "int4", "bf16", "bf16")
    bf16 = decode_step(h100, model("llama-4-scout"), 8, 1000, tp=8)
    quantized = decode_step(h100, model("llama-4-scout"), 8, 1000, tp=8, precision=int4)
    assert quantized.flops == bf16.flops and quantized.bytes < bf16.bytes


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"attn_type_list": [0] * 62}, "attn_type_list"),
        ({"hidden_size_per_layer_input": 256}, "hidden_size_per_layer_input"),
        ({"compress_ratios": [16] * 44}, "compress_ratios"),
        ({"mamba_ssm_dtype": "float8"}, "mamba_ssm_dtype"),
        ({"a_new_attention_width": 64}, "a_new_attention_width"),
        ({"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 64}},
         "quantization_config"),
    ],
)
def test_what_the_physics_does_not_price_is_refused_by_name(change: dict, named: str) -> None:
    config = {**text("minimax-m2.7"), **change}
    with pytest.raises(InputError, match=named):
        model_from_text(json.dumps(config))


def test_linear_layer_types_without_their_widths_are_refused() -> None:
    config = text("qwen3.5-397b-a17b")
    del config["text_config"]["linear_key_head_dim"]
    with pytest.raises(InputError, match="linear_key_head_dim"):
        model_from_text(json.dumps(config))
