"""The chunked-prefill sim: the story at its defaults, and the chunk-size trade-off."""

from __future__ import annotations

import math

import pytest
from explainer_pages import (
    Claim,
    hand_priced,
    hardware_claims,
    profile_claims,
    rendered,
    shape_claims,
    step_allreduce,
    total_s,
)

from sims import chunked_prefill
from sims.chunked_prefill import MIN_CHUNK_TOKENS, Setup, simulate, slice_times
from sims.physics import (
    GPUS,
    MODELS,
    Precision,
    Work,
    memory_fit,
    prefill,
    ridge_tokens,
    step_cost,
)
from tests.sims.explainer_pages import opens_at_the_defaults


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
    """At the ridge a GEMM's arithmetic and reads take about equally long, so each costs up
    to 2^(1/p) times either; with the slice's attention and its larger all-reduces the
    longest gap is more than a plain decode step, and under two."""
    summary = default["summary"]
    assert summary["decode_step_s"] < summary["chunked_max_gap_s"] < 2 * summary["decode_step_s"]


def test_default_chunk_is_the_ridge_point(default: dict) -> None:
    summary = default["summary"]
    ridge = ridge_tokens(GPUS["h200"], MODELS["llama-3.1-70b"])
    assert summary["ridge_chunk_tokens"] == summary["chunk_tokens_used"] == ridge
    assert summary["chunks"] == math.ceil(16384 / ridge)


@pytest.mark.parametrize("gpu", sorted(GPUS))
def test_ridge_follows_the_gpu(gpu: str) -> None:
    """The chunk is the GPU's ridge point, or the smallest chunk the sim runs where the
    ridge is below it (the H20: little compute for its bandwidth)."""
    summary = simulate(gpu=gpu, tp="2" if GPUS[gpu].scale_up_gpus > 1 else "1")["summary"]
    ridge = ridge_tokens(GPUS[gpu], MODELS["llama-3.1-70b"])
    assert summary["ridge_chunk_tokens"] == ridge
    assert summary["chunk_tokens_used"] == max(ridge, MIN_CHUNK_TOKENS)


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
def page_figures() -> list[Claim]:
    """(phrase with {} for the figure, value, format)."""
    gpu, model, tp = GPUS["h200"], MODELS["llama-3.1-70b"], 2
    prompt, streams, context = 16384, 16, 2048
    whole = prefill(gpu, model, prompt, tp=tp)
    alone = hand_priced(gpu, model, [Work(prompt, 0, logit_tokens=1)], tp)
    layer_weights = 80 * (2 * 8192 * 8192 + 2 * 8192 * 1024 + 3 * 8192 * 28672)
    attention = 4 * 80 * 64 * 128
    matmuls = 2 * layer_weights * prompt
    pairs = prompt * (prompt + 1) / 2
    big = step_allreduce(gpu, model, prompt, tp)
    decodes = Work(1, context, count=streams)
    plain = step_cost(gpu, model, [decodes], tp)
    step = hand_priced(gpu, model, [decodes], tp)
    after = step_cost(gpu, model, [decodes, Work(1, prompt)], tp)
    ridge = ridge_tokens(gpu, model)
    full = (prompt - 1) // ridge
    first_work = [decodes, Work(ridge, 0, logit_tokens=0)]
    first = hand_priced(gpu, model, first_work, tp)
    first_step = step_cost(gpu, model, first_work, tp)
    last = hand_priced(gpu, model, [decodes, Work(ridge, (full - 1) * ridge, logit_tokens=0)],
                       tp)
    attention_rate = gpu.bf16_flops * gpu.kernels.prefill_attention["bf16"].compute_efficiency
    fit = gpu.kernels.gemm["bf16"]
    h100 = memory_fit(GPUS["h100"], model, streams, context + 1, tp, more=[(1, prompt + 1)])
    return [
        *hardware_claims(gpu, "H200", ".1f"),
        *profile_claims(gpu, "overlap", "gemm", "prefill_attention", "decode_attention",
                        "elementwise"),
        *shape_claims(model),
        ("787.7 TFLOP/s over {} TB/s", gpu.hbm_bytes_per_s * fit.memory_efficiency / 1e12,
         ".2f"),
        ("3.93 TB/s is {} FLOP per byte", gpu.effective_ridge_flops_per_byte, ".0f"),
        ("at {} tokens, a GEMM's arithmetic", ridge, "d"),
        ("The layers' {} billion weights", layer_weights / 1e9, ".2f"),
        ("for each of {} tokens", prompt, ",d"),
        ("tokens make {} PFLOP", matmuls / 1e15, ".3f"),
        ("Attention adds 4 × 80 × 64 × 128 = {} FLOPs", attention, ",d"),
        ("16,384 × 16,385 / 2 pairs make {} PFLOP", attention * pairs / 1e15, ".3f"),
        ("its GEMMs take {} s at", alone["gemm"].compute_s, ".3f"),
        ("at 787.7 TFLOP/s, {} s with their memory", alone["gemm"].time_s, ".3f"),
        ("its attention takes {} s at", alone["prefill_attention"].compute_s, ".3f"),
        ("s at {} TFLOP/s, 0.319", attention_rate / 1e12, ".1f"),
        ("TFLOP/s, {} s with its tensors'", alone["prefill_attention"].time_s, ".3f"),
        ("kernels move {} GB, 0.053", alone["elementwise"].moved / 1e9, ".1f"),
        ("GB, {} s with their starts", alone["elementwise"].time_s, ".3f"),
        ("That is {} s of operators", whole.ops_s, ".3f"),
        ("of 8,192 values, {} MB", big.message / 1e6, ".0f"),
        ("{} µs plus 839", big.latency_s * 1e6, ".1f"),
        ("µs plus {} µs,", big.message / big.bytes_per_s * 1e6, ".0f"),
        ("µs, {} ms in all", whole.collective_s * 1e3, ".0f"),
        ("Each GPU's GEMMs move {} GB", step["gemm"].moved / 1e9, ".2f"),
        ("activations, in {} ms at 3.93", step["gemm"].memory_s * 1e3, ".2f"),
        ("TB/s, {} ms with their arithmetic", step["gemm"].time_s * 1e3, ".2f"),
        ("2 × 80 × 8 × 128 × 2 = {} bytes", model.kv_bytes_per_token(), ",.0f"),
        ("sixteen streams of {} positions", context + 1, ",d"),
        ("hold {} GB of them", streams * (context + 1) * model.kv_bytes_per_token() / 1e9,
         ".2f"),
        ("of them), {} GB, in", step["decode_attention"].moved / 1e9, ".2f"),
        ("GB, in {} ms, 2.25", step["decode_attention"].memory_s * 1e3, ".2f"),
        ("ms, {} ms with its fixed costs", step["decode_attention"].time_s * 1e3, ".2f"),
        ("kernels take {} ms, nearly all", step["elementwise"].time_s * 1e3, ".2f"),
        ("starts: {} ms of operators", total_s(step) * 1e3, ".2f"),
        ("all-reduces of 262 KB take {} ms", plain.collective_s * 1e3, ".2f"),
        ("new request together, {} ms", after.time_s * 1e3, ".2f"),
        ("wait {} + 0.023", whole.time_s, ".3f"),
        ("1.931 + {} =", after.time_s, ".3f"),
        ("in slices of {} are", ridge, "d"),
        ("are {} full slices", full, "d"),
        ("and one of {}:", prompt - full * ridge, "d"),
        ("The first carries {} tokens", streams + ridge, "d"),
        ("decodes and {} prompt tokens", ridge, "d"),
        ("as long, {} and", first["gemm"].compute_s * 1e3, ".2f"),
        ("and {} ms, where the cube root", first["gemm"].memory_s * 1e3, ".2f"),
        ("most: {} ms with their starts", first["gemm"].time_s * 1e3, ".2f"),
        ("mostly fixed costs, {} ms", first["prefill_attention"].time_s * 1e3, ".2f"),
        ("decode attention {} ms and", first["decode_attention"].time_s * 1e3, ".2f"),
        ("element-wise kernels {} ms:", first["elementwise"].time_s * 1e3, ".2f"),
        ("ms: {} ms of operators, and", total_s(first) * 1e3, ".2f"),
        ("each now carrying {} MB", (streams + ridge) * model.hidden * 2 / 1e6, ".2f"),
        ("MB, {} ms: 32.80", first_step.collective_s * 1e3, ".2f"),
        ("ms: {} ms. The last", first_step.time_s * 1e3, ".2f"),
        ("attends to {} earlier tokens", (full - 1) * ridge, ",d"),
        ("its attention takes {} ms instead", last["prefill_attention"].time_s * 1e3, ".2f"),
        ("The {} steps add up", full + 1, "d"),
        ("weights take {} GB of each H100", h100.weights_per_gpu_bytes / 1e9, ".1f"),
        ("add {} GB more per GPU", h100.kv_per_gpu_bytes / 1e9, ".1f"),
        ("past the {} GB an engine", h100.usable_per_gpu_bytes / 1e9, ".0f"),
        ("An H200 has {} GB", GPUS["h200"].hbm_bytes / 2**30, ".0f"),  # the datasheet's GiB
        ("reads all {} GB of weights again", 2 * (layer_weights + 128256 * 8192) / 1e9, ".0f"),
    ]


def test_the_hand_pricing_is_the_steps() -> None:
    """The page's kernel-by-kernel sums are the steps the sim prices, and the longest gap is
    the last full slice's step."""
    gpu, model = GPUS["h200"], MODELS["llama-3.1-70b"]
    decodes = Work(1, 2048, count=16)
    ridge = ridge_tokens(gpu, model)
    full = (16384 - 1) // ridge
    cases = [[decodes], [Work(16384, 0, logit_tokens=1)],
             [decodes, Work(ridge, 0, logit_tokens=0)],
             [decodes, Work(ridge, (full - 1) * ridge, logit_tokens=0)]]
    for work in cases:
        assert total_s(hand_priced(gpu, model, work, 2)) == pytest.approx(
            step_cost(gpu, model, work, 2).ops_s, rel=1e-12)
        tokens = sum(w.count * w.new_tokens for w in work)
        cost = step_cost(gpu, model, work, 2)
        assert 160 * step_allreduce(gpu, model, tokens, 2).time_s == pytest.approx(
            cost.collective_s, rel=1e-12)
    longest = step_cost(gpu, model, cases[-1], 2).time_s
    assert simulate()["summary"]["chunked_max_gap_s"] == pytest.approx(longest, rel=1e-5)


@pytest.mark.parametrize(("phrase", "value", "spec"), page_figures())
def test_check_it_yourself_figures_match_the_physics(phrase: str, value: float, spec: str) -> None:
    assert phrase.format(format(value, spec)) in rendered("chunked-prefill")


def test_page_starts_at_the_defaults_it_derives_from() -> None:
    assert {spec.name: spec.default for spec in chunked_prefill.INPUTS} == {
        "streams": 16, "context_tokens": 2048, "prompt_tokens": 16384, "chunk_tokens": 0,
        "model": "llama-3.1-70b", "model_config": "", "gpu": "h200", "tp": "2", "weights": "native",
        "kv": "bf16",
    }
    text = rendered("chunked-prefill")
    assert opens_at_the_defaults("chunked-prefill", "chunked_prefill")
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
