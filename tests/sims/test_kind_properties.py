"""Properties of the layer kinds (sims.physics.shapes), held over contexts Hypothesis picks:
each kind's cache and cost behave as its definition says, whatever the numbers.

A hybrid model's KV growth lies between its pure counterparts' (the same config with every
layer of one kind); a linear layer's memory and decode cost stay constant in the context;
a sliding window and a chunk cap the tokens cached; a sparse layer's attention grows slower
than the same model's full attention at long context.
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sims.physics import GPUS, Work, step_cost
from sims.physics.model_config import model_from_text
from sims.physics.shapes import Model
from tests.repo import REPO

CONFIGS = REPO / "tests" / "pipeline" / "fixtures" / "configs"
CONTEXTS = st.integers(min_value=0, max_value=1 << 21)


def variant(slug: str, **fields) -> Model:
    """The fixture's model with its language model's `fields` set (None: removed)."""
    config = json.loads((CONFIGS / f"{slug}.json").read_text())
    inner = config.get("text_config", config)
    inner = copy.deepcopy(inner)
    for field, value in fields.items():
        if value is None:
            inner.pop(field, None)
        else:
            inner[field] = value
    if "text_config" in config:
        config["text_config"] = inner
    else:
        config = inner
    return model_from_text(json.dumps(config), slug)


def layer_types(slug: str) -> list[str]:
    config = json.loads((CONFIGS / f"{slug}.json").read_text())
    return config.get("text_config", config)["layer_types"]


QWEN = variant("qwen3.5-397b-a17b")
QWEN_FULL = variant("qwen3.5-397b-a17b", layer_types=["full_attention"] * 60)
QWEN_LINEAR = variant("qwen3.5-397b-a17b", layer_types=["linear_attention"] * 60)
GEMMA = variant("gemma-4-26b-a4b")
GEMMA_FULL = variant("gemma-4-26b-a4b", layer_types=["full_attention"] * 30)
GEMMA_SLIDING = variant("gemma-4-26b-a4b", layer_types=["sliding_attention"] * 30)
SCOUT_CHUNKED = variant("llama-4-scout", no_rope_layers=[1] * 48)
SPARSE = variant("deepseek-v3.2")
DENSE = variant("deepseek-v3.2", index_topk=None, index_n_heads=None, index_head_dim=None)


@pytest.mark.parametrize(("hybrid", "first", "second"),
                         [(QWEN, QWEN_LINEAR, QWEN_FULL), (GEMMA, GEMMA_SLIDING, GEMMA_FULL)],
                         ids=["linear-full", "sliding-full"])
def test_a_hybrids_kv_per_token_lies_between_its_pure_counterparts(
        hybrid: Model, first: Model, second: Model) -> None:
    low, high = sorted((first.kv_bytes_per_token(), second.kv_bytes_per_token()))
    assert low <= hybrid.kv_bytes_per_token() <= high
    assert low < high


@given(context=CONTEXTS)
def test_a_hybrids_kv_lies_between_its_pure_counterparts_at_any_context(context: int) -> None:
    for hybrid, first, second in ((QWEN, QWEN_LINEAR, QWEN_FULL),
                                  (GEMMA, GEMMA_SLIDING, GEMMA_FULL)):
        low, high = sorted((first.kv_bytes(context), second.kv_bytes(context)))
        assert low <= hybrid.kv_bytes(context) <= high * (1 + 1e-12)


@given(context=CONTEXTS)
def test_a_linear_layers_memory_is_constant_in_the_context(context: int) -> None:
    assert QWEN_LINEAR.kv_bytes(context) == QWEN_LINEAR.kv_bytes(0) > 0
    assert QWEN_LINEAR.kv_bytes_per_token() == 0


@given(context=CONTEXTS)
def test_a_sliding_window_caps_the_cached_tokens(context: int) -> None:
    window = GEMMA_SLIDING.kinds[0].window
    held = GEMMA_SLIDING.kv_bytes(context)
    assert held == GEMMA_SLIDING.kv_bytes(min(context, window))
    assert held <= GEMMA_SLIDING.kv_bytes(window) == GEMMA_SLIDING.kv_constant_bytes()


@given(context=CONTEXTS)
def test_a_chunk_caps_the_cached_tokens(context: int) -> None:
    chunk = SCOUT_CHUNKED.kinds[0].window
    assert chunk == 8192
    held = SCOUT_CHUNKED.kv_bytes(context)
    assert held == SCOUT_CHUNKED.kv_bytes(min(context, chunk))
    assert SCOUT_CHUNKED.kv_bytes_per_token() == 0


@settings(max_examples=25, deadline=None)
@given(short=st.integers(min_value=1, max_value=4096),
       longer=st.integers(min_value=4096, max_value=1 << 20))
def test_a_linear_models_decode_does_not_grow_with_the_context(short: int, longer: int) -> None:
    gpu = GPUS["b200"]
    times = [step_cost(gpu, QWEN_LINEAR, [Work(1, context, 16)], 8, layout="ep").time_s
             for context in (short, longer)]
    assert times[0] == pytest.approx(times[1], rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(context=st.integers(min_value=32_768, max_value=1 << 20))
@pytest.mark.parametrize("gpu", ["h100", "b200"])
def test_sparse_attention_grows_slower_than_full_at_long_context(gpu: str, context: int
                                                                  ) -> None:
    chip, base = GPUS[gpu], 8192

    def growth(shape: Model, new: int) -> float:
        def at(cached: int) -> float:
            return step_cost(chip, shape, [Work(new, cached, 8 if new == 1 else 1)], 8,
                             layout="ep").time_s
        return at(context) - at(base)

    assert 0 < growth(SPARSE, 1) < growth(DENSE, 1)  # decode
    assert 0 < growth(SPARSE, 4096) < growth(DENSE, 4096)  # a prefill chunk
