"""The chunked-prefill sim: the story at its defaults, and the chunk-size trade-off."""

from __future__ import annotations

import math

import pytest
from explainer_pages import hardware_claims, rendered, shape_claims

from sims import chunked_prefill
from sims.chunked_prefill import Setup, simulate, slice_times
from sims.physics import (
    COMPUTE_EFFICIENCY,
    GPUS,
    MEMORY_EFFICIENCY,
    MODELS,
    Precision,
    Work,
    memory_fit,
    prefill,
    ridge_tokens,
    step_cost,
)


@pytest.fixture(scope="module")
def default() -> dict:
    return simulate()


def test_defaults_tell_the_story(default: dict) -> None:
    """About 2 s of stall without chunking; a longest gap of a few tens of ms with it."""
    summary = default["summary"]
    assert 1.8 <= summary["unchunked_stall_s"] <= 2.2
    assert 0.030 <= summary["chunked_max_gap_s"] <= 0.050
    assert summary["unchunked_stall_s"] > 40 * summary["chunked_max_gap_s"]
    assert summary["fits"] is True


def test_chunked_gap_at_the_ridge_is_under_twice_a_decode_step(default: dict) -> None:
    """At the ridge a step's arithmetic and reads take about equally long, so each operator
    costs up to 1.41 times either: more than a plain decode step, well under two."""
    summary = default["summary"]
    assert summary["decode_step_s"] < summary["chunked_max_gap_s"] < 1.7 * summary["decode_step_s"]


def test_default_chunk_is_the_ridge_point(default: dict) -> None:
    summary = default["summary"]
    ridge = ridge_tokens(GPUS["h200"], MODELS["llama-3.1-70b"])
    assert summary["ridge_chunk_tokens"] == summary["chunk_tokens_used"] == ridge
    assert summary["chunks"] == math.ceil(16384 / ridge)


@pytest.mark.parametrize("gpu", sorted(GPUS))
def test_ridge_follows_the_gpu(gpu: str) -> None:
    summary = simulate(gpu=gpu, tp="2" if GPUS[gpu].scale_up_gpus > 1 else "1")["summary"]
    assert summary["chunk_tokens_used"] == ridge_tokens(GPUS[gpu], MODELS["llama-3.1-70b"])


def test_unchunked_ttft_is_the_prefill_step() -> None:
    summary = simulate(gpu="h100", prompt_tokens=8192)["summary"]
    expected = prefill(GPUS["h100"], MODELS["llama-3.1-70b"], 8192, tp=2).time_s
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
    setup = Setup(GPUS["h100"], MODELS["llama-3.1-70b"], 4, Precision(), 16, 2048, 16384)
    expected, done = [], 0
    while done < setup.prompt_tokens:
        size = min(chunk, setup.prompt_tokens - done)
        last = done + size == setup.prompt_tokens
        work = [Work(1, 2048, count=16), Work(size, done, logit_tokens=int(last))]
        expected.append(step_cost(setup.gpu, setup.model, work, setup.tp, Precision()).time_s)
        done += size
    assert slice_times(setup, chunk) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("chunk", [128, 180, 1000, 8192, 16384, 20000])
def test_sweep_points_are_the_schedules_own_figures(chunk: int) -> None:
    """The sweep skips building steps; its numbers must be the chunked schedule's, exactly."""
    setup = Setup(GPUS["h100"], MODELS["llama-3.1-70b"], 4, Precision(), 16, 2048, 16384)
    steps = chunked_prefill.chunked(setup, chunk)
    assert chunked_prefill.sweep_point(setup, chunk) == (
        chunked_prefill.longest_gap(steps), chunked_prefill.ttft(steps))


def test_a_chunk_as_long_as_the_prompt_is_one_step() -> None:
    summary = simulate(prompt_tokens=4096, chunk_tokens=4096)["summary"]
    assert summary["chunks"] == 1
    assert summary["chunked_ttft_s"] == pytest.approx(summary["chunked_max_gap_s"], rel=0.1)


def test_timelines_share_one_clock(default: dict) -> None:
    timelines = default["charts"][:2]
    domains = [chart["encoding"]["x"]["scale"]["domain"] for chart in timelines]
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


# The page's "check it yourself" derives its figures from the constants by hand; each one
# is checked here against the shared physics at the page's starting inputs.
def page_figures() -> list[tuple[str, float, str]]:
    """(phrase with {} for the figure, value, format)."""
    gpu, model, tp = GPUS["h200"], MODELS["llama-3.1-70b"], 2
    prompt, streams, context = 16384, 16, 2048
    whole = prefill(gpu, model, prompt, tp=tp)
    layer_weights = 80 * (2 * 8192 * 8192 + 2 * 8192 * 1024 + 3 * 8192 * 28672)
    attention = 4 * 80 * 64 * 128
    matmuls = 2 * layer_weights * prompt
    pairs = prompt * (prompt + 1) / 2
    message = prompt * model.hidden * 2
    fit = gpu.collectives.fits[tp]
    decodes = Work(1, context, count=streams)
    plain = step_cost(gpu, model, [decodes], tp)
    after = step_cost(gpu, model, [decodes, Work(1, prompt)], tp)
    ridge = ridge_tokens(gpu, model)
    full = (prompt - 1) // ridge
    first = step_cost(gpu, model, [decodes, Work(ridge, 0, logit_tokens=0)], tp)
    last = step_cost(gpu, model, [decodes, Work(ridge, (full - 1) * ridge, logit_tokens=0)], tp)
    # Element-wise kernels: the norms read the full hidden state on each GPU, the rotary
    # embedding and the activation their slice; four kernels a layer, each 4 us to start.
    elementwise = (80 * 4 * 8192 * 2 * prompt + 80 * (2 * (64 + 8) * 128 + 3 * 28672) * 2
                   * prompt / tp) / (4.8e12 * 0.8) + 80 * 4 * 4e-6
    h100 = memory_fit(GPUS["h100"], model, streams, context + 1, tp, more=[(1, prompt + 1)])
    kernels = 80 * 9 + 2
    return [
        *hardware_claims(gpu, "H200", ".1f"),
        *shape_claims(model),
        ("so {} TFLOP/s and", gpu.bf16_flops * COMPUTE_EFFICIENCY / 1e12, ".1f"),
        ("and {} TB/s per GPU", gpu.hbm_bytes_per_s * MEMORY_EFFICIENCY / 1e12, ".2f"),
        ("GPUs takes {} µs plus", fit.latency_s * 1e6, ".1f"),
        ("its message at {} GB/s", fit.bytes_per_s / 1e9, ".1f"),
        ("3.84 TB/s is {} FLOP per byte", gpu.effective_ridge_flops_per_byte, ".0f"),
        ("at {} tokens, arithmetic", ridge, "d"),
        ("The layers' {} billion weights", layer_weights / 1e9, ".2f"),
        ("for each of {} tokens", prompt, ",d"),
        ("tokens make {} PFLOP", matmuls / 1e15, ".3f"),
        ("Attention adds 4 × 80 × 64 × 128 = {} FLOPs", attention, ",d"),
        ("16,384 × 16,385 / 2 pairs make {} PFLOP", attention * pairs / 1e15, ".3f"),
        ("{} PFLOP over two GPUs", whole.flops / 1e15, ".3f"),
        ("at 692.3 TFLOP/s is {} s", whole.compute_s, ".3f"),
        ("kernels add {} s of memory", elementwise, ".3f"),
        ("a little more: {} s of", whole.ops_s, ".3f"),
        ("of 8,192 values, {} MB", message / 1e6, ".0f"),
        ("32.0 µs plus {} µs,", message / fit.bytes_per_s * 1e6, ".0f"),
        ("µs, {} ms in all", whole.collective_s * 1e3, ".0f"),
        ("The step reads {} GB of weights", plain.bytes / 1e9, ".1f"),
        ("2 × 80 × 8 × 128 × 2 = {} bytes", model.kv_bytes_per_token(), ",.0f"),
        ("sixteen streams of {} positions", context + 1, ",d"),
        ("hold {} GB of them", streams * (context + 1) * model.kv_bytes_per_token() / 1e9,
         ".2f"),
        ("GPU, {} ms at 3.84 TB/s", plain.memory_s * 1e3, ".2f"),
        ("The arithmetic takes {} ms", plain.compute_s * 1e3, ".2f"),
        ("The {} kernels on each GPU", kernels, "d"),
        ("GPU take {} ms to start", kernels * 4e-3, ".2f"),
        ("operator, {} ms. The 160", plain.ops_s * 1e3, ".2f"),
        ("all-reduces of 262 KB take {} ms", plain.collective_s * 1e3, ".2f"),
        ("new request together, {} ms", after.time_s * 1e3, ".2f"),
        ("wait {} + 0.029", whole.time_s, ".3f"),
        ("2.071 + {} =", after.time_s, ".3f"),
        ("are {} full slices", full, "d"),
        ("and one of {}:", prompt - full * ridge, "d"),
        ("The first carries {} tokens", streams + ridge, "d"),
        ("prompt tokens): {} TFLOP", first.flops / 1e12, ".1f"),
        ("TFLOP take {} ms and", first.compute_s * 1e3, ".2f"),
        ("and {} GB take", first.bytes / 1e9, ".1f"),
        ("GB take {} ms. The two", first.memory_s * 1e3, ".2f"),
        ("its operators take {} ms, the", first.ops_s * 1e3, ".2f"),
        ("the all-reduces {} ms, so", first.collective_s * 1e3, ".2f"),
        ("so {} ms. The last", first.time_s * 1e3, ".2f"),
        ("attends to {} earlier tokens: 34.6", (full - 1) * ridge, ",d"),
        ("tokens: {} TFLOP take", last.flops / 1e12, ".1f"),
        ("TFLOP take {} ms, now longer", last.compute_s * 1e3, ".2f"),
        ("than its {} ms of memory", last.memory_s * 1e3, ".2f"),
        ("its operators take {} ms and", last.ops_s * 1e3, ".2f"),
        ("has {} earlier tokens", (full - 1) * ridge, ",d"),
        ("The {} steps add up", full + 1, "d"),
        ("weights take {} GB of each H100", h100.weights_per_gpu_bytes / 1e9, ".1f"),
        ("add {} GB more per GPU", h100.kv_per_gpu_bytes / 1e9, ".1f"),
        ("past the {} GB an engine", h100.usable_per_gpu_bytes / 1e9, ".0f"),
        ("An H200 has {} GB", GPUS["h200"].hbm_bytes / 1e9, ".0f"),
        ("reads all {} GB of weights again", 2 * (layer_weights + 128256 * 8192) / 1e9, ".0f"),
    ]


def test_the_hand_sums_add_up_to_the_steps() -> None:
    gpu, model = GPUS["h200"], MODELS["llama-3.1-70b"]
    plain = step_cost(gpu, model, [Work(1, 2048, count=16)], 2)
    assert plain.ops_s == pytest.approx(plain.memory_s + 722 * 4e-6, abs=0.1e-3)
    whole = prefill(gpu, model, 16384, tp=2)
    assert whole.time_s == pytest.approx(whole.ops_s + whole.collective_s)


@pytest.mark.parametrize(("phrase", "value", "spec"), page_figures())
def test_check_it_yourself_figures_match_the_physics(phrase: str, value: float, spec: str) -> None:
    assert phrase.format(format(value, spec)) in rendered("chunked-prefill")


def test_page_starts_at_the_defaults_it_derives_from() -> None:
    assert {spec.name: spec.default for spec in chunked_prefill.INPUTS} == {
        "streams": 16, "context_tokens": 2048, "prompt_tokens": 16384, "chunk_tokens": 0,
        "model": "llama-3.1-70b", "gpu": "h200", "tp": "2", "weights": "native", "kv": "bf16",
    }
    text = rendered("chunked-prefill")
    assert "```sim module: chunked_prefill ```" in text
    assert "{{" not in text
    assert "Llama 3.1 70B over two H200s, sixteen streams at 2,048 tokens of context" in text


def test_page_claims_hold_in_the_sim(default: dict) -> None:
    summary = default["summary"]
    h100 = simulate(gpu="h100")["summary"]
    assert h100["fits"] is False and summary["fits"] is True
    assert h100["ridge_chunk_tokens"] > summary["ridge_chunk_tokens"]  # "the ridge moves"
    # A chunk as long as the prompt brings the stall back.
    whole = simulate(chunk_tokens=16384)["summary"]
    assert whole["chunked_max_gap_s"] > 0.9 * summary["unchunked_stall_s"]
    assert simulate(prompt_tokens=2048)["summary"]["unchunked_stall_s"] < 0.3
