"""The chunked-prefill sim: the story at its defaults, and the chunk-size trade-off."""

from __future__ import annotations

import math

import pytest

from sims import chunked_prefill
from sims.chunked_prefill import Setup, simulate, slice_times
from sims.physics import GPUS, MODELS, Work, prefill, ridge_tokens, step_cost


@pytest.fixture(scope="module")
def default() -> dict:
    return simulate()


def test_defaults_tell_the_story(default: dict) -> None:
    """About 2 s of stall without chunking; a longest gap near 30 ms with it."""
    summary = default["summary"]
    assert 1.8 <= summary["unchunked_stall_s"] <= 2.2
    assert 0.020 <= summary["chunked_max_gap_s"] <= 0.035
    assert summary["unchunked_stall_s"] > 50 * summary["chunked_max_gap_s"]
    assert summary["fits"] is True


def test_chunked_gap_is_a_decode_step_plus_a_little(default: dict) -> None:
    summary = default["summary"]
    assert summary["decode_step_s"] < summary["chunked_max_gap_s"] < 1.5 * summary["decode_step_s"]


def test_default_chunk_is_the_ridge_point(default: dict) -> None:
    summary = default["summary"]
    ridge = ridge_tokens(GPUS["h200"], MODELS["llama-3-70b"])
    assert summary["ridge_chunk_tokens"] == summary["chunk_tokens_used"] == ridge
    assert summary["chunks"] == math.ceil(16384 / ridge)


@pytest.mark.parametrize("gpu", sorted(GPUS))
def test_ridge_follows_the_gpu(gpu: str) -> None:
    summary = simulate(gpu=gpu)["summary"]
    assert summary["chunk_tokens_used"] == ridge_tokens(GPUS[gpu], MODELS["llama-3-70b"])


def test_unchunked_ttft_is_the_prefill_step() -> None:
    summary = simulate(gpu="h100", prompt_tokens=8192)["summary"]
    expected = prefill(GPUS["h100"], MODELS["llama-3-70b"], 8192, tp=2).time_s
    assert summary["unchunked_ttft_s"] == pytest.approx(expected, rel=1e-5)


CHUNKS = (128, 256, 512, 1024, 2048, 4096, 8192)


@pytest.fixture(scope="module")
def by_chunk() -> list[dict]:
    return [simulate(chunk_tokens=chunk)["summary"] for chunk in CHUNKS]


def test_gap_grows_with_chunk_size(by_chunk: list[dict]) -> None:
    gaps = [summary["chunked_max_gap_s"] for summary in by_chunk]
    assert gaps == sorted(gaps) and len(set(gaps)) == len(gaps)


def test_ttft_grows_as_chunks_shrink(by_chunk: list[dict]) -> None:
    ttfts = [summary["chunked_ttft_s"] for summary in by_chunk]
    assert ttfts == sorted(ttfts, reverse=True) and len(set(ttfts)) == len(ttfts)
    # Every chunked schedule answers the prompt later than running its prefill alone.
    assert all(t > by_chunk[0]["unchunked_ttft_s"] for t in ttfts)


def test_sweep_chart_marks_the_ridge(default: dict) -> None:
    sweep = default["charts"][2]
    sizes = [row["chunk_tokens"] for row in sweep["data"]["values"]]
    ridge = default["summary"]["ridge_chunk_tokens"]
    assert ridge in sizes and sizes == sorted(sizes)
    assert any(layer["encoding"].get("x") == {"datum": ridge} for layer in sweep["layer"])


@pytest.mark.parametrize("chunk", [128, 180, 1000, 4096, 16384, 20000])
def test_interpolated_slice_times_match_pricing_every_step(chunk: int) -> None:
    setup = Setup(GPUS["h100"], MODELS["llama-3-70b"], 4, 16, 2048, 16384)
    expected, done = [], 0
    while done < setup.prompt_tokens:
        size = min(chunk, setup.prompt_tokens - done)
        last = done + size == setup.prompt_tokens
        work = [Work(1, 2048, count=16), Work(size, done, logit_tokens=int(last))]
        expected.append(step_cost(setup.gpu, setup.model, work, setup.tp).time_s)
        done += size
    assert slice_times(setup, chunk) == pytest.approx(expected, rel=1e-12)


def test_a_chunk_as_long_as_the_prompt_is_one_step() -> None:
    summary = simulate(prompt_tokens=4096, chunk_tokens=4096)["summary"]
    assert summary["chunks"] == 1
    assert summary["chunked_ttft_s"] == pytest.approx(summary["chunked_max_gap_s"], rel=0.1)


def test_timelines_share_one_clock(default: dict) -> None:
    timelines = default["charts"][:2]
    domains = [chart["layer"][0]["encoding"]["x"]["scale"]["domain"] for chart in timelines]
    assert domains[0] == domains[1]
    assert domains[0][0] < 0 < default["summary"]["chunked_ttft_s"] <= domains[0][1]


@pytest.mark.parametrize("chunk", [1, 64, chunked_prefill.MIN_CHUNK_TOKENS - 1])
def test_tiny_chunks_are_refused(chunk: int) -> None:
    with pytest.raises(ValueError, match="chunk_tokens"):
        simulate(chunk_tokens=chunk)


def test_a_config_that_does_not_fit_says_so() -> None:
    """70B in BF16 on two H100s: the weights alone nearly fill them."""
    assert simulate(gpu="h100")["summary"]["fits"] is False


def test_deterministic(default: dict) -> None:
    assert simulate() == default
