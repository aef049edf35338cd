"""The goodput sim: the story the page tells, each part checked against the shared physics
or against another run of the sim, never against a step time typed in."""

from __future__ import annotations

import re

import pytest
from explainer_pages import PROFILE, rendered

from sims import goodput
from sims.goodput import simulate
from sims.kit.contract import InputError
from sims.physics import (
    GPUS,
    MODELS,
    USABLE_MEMORY_FRACTION,
    Work,
    precision_for,
    prefill,
)
from sims.physics.pricing import pricer
from sims.serving.engines import ENGINES
from sims.serving.kv_space import kv_space
from tests.sims.explainer_pages import opens_at_the_defaults


@pytest.fixture(scope="module")
def default() -> dict:
    return simulate()


# The sweep's charts draw one row per rate and series; their series, by chart, as fields.
SERIES = (
    {"median": "p50_ttft_s", "99th percentile": "p99_ttft_s"},
    {"median": "p50_tpot_ms", "99th percentile": "p99_tpot_ms"},
    {"both SLOs": "attainment_pct", "first token": "ttft_attainment_pct",
     "later tokens": "tpot_attainment_pct"},
    {"arriving": "offered_rps", "served": "throughput_rps",
     "served within the SLO": "goodput_rps"},
)


def _sweep(result: dict) -> list[dict]:
    """The sweep as one row per rate with every figure the four charts draw."""
    rows: dict[float, dict] = {}
    for chart, series in zip(result["charts"][1:], SERIES, strict=False):
        for point in chart["data"]["values"]:
            rows.setdefault(point["rate"], {"rate": point["rate"]})[
                series[point["series"]]] = point["value"]
    return [rows[rate] for rate in sorted(rows)]


def test_at_low_load_the_wait_is_about_one_prefill() -> None:
    """Every prompt alike (spread 0) and requests far apart: the median first token is the
    prompt's own prefill; the slowest waits at most for a step in progress and for a second
    step, when a decoding request took one token of the budget and cut the prompt in two."""
    summary = simulate(request_rate=0.5, length_spread=0.0)["summary"]
    alone = prefill(GPUS["h100"], MODELS["llama-3.1-8b"], 2048).time_s
    assert summary["prefill_s"] == pytest.approx(alone)
    assert summary["p50_ttft_s"] == pytest.approx(alone, rel=0.03)  # the step table's margin
    assert alone <= summary["p99_ttft_s"] <= 2.5 * alone


def test_with_long_prompts_in_the_mix_the_low_load_p99_is_the_long_prompts_prefill(
    default: dict
) -> None:
    low = _sweep(default)[0]
    summary = default["summary"]
    assert summary["p99_prompt_prefill_s"] <= low["p99_ttft_s"] <= 2 * summary[
        "p99_prompt_prefill_s"]


def test_the_tail_grows_sharply_past_capacity(default: dict) -> None:
    rows = _sweep(default)
    capacity = default["summary"]["capacity_rps"]
    below = [r["p99_ttft_s"] for r in rows if r["rate"] < capacity / 2]
    above = [r["p99_ttft_s"] for r in rows if r["rate"] > 1.5 * capacity]
    assert below and above and min(above) > 5 * max(below)
    waits = [r["p99_ttft_s"] for r in rows]
    assert waits == sorted(waits)


def test_goodput_rises_peaks_and_falls(default: dict) -> None:
    goodputs = [r["goodput_rps"] for r in _sweep(default)]
    peak = goodputs.index(max(goodputs))
    assert 0 < peak < len(goodputs) - 1
    assert goodputs[:peak + 1] == sorted(goodputs[:peak + 1])
    after = goodputs[peak:]
    assert after == sorted(after, reverse=True) and after[1] < after[0]
    assert goodputs[-1] < goodputs[peak] / 10


def test_throughput_levels_off_while_arrivals_keep_rising(default: dict) -> None:
    rows = _sweep(default)
    assert rows[0]["throughput_rps"] == pytest.approx(rows[0]["rate"], rel=0.1)
    assert rows[-1]["throughput_rps"] < rows[-1]["rate"] / 2
    assert rows[-1]["throughput_rps"] == pytest.approx(rows[-2]["throughput_rps"], rel=0.05)


def test_capacity_is_where_attainment_crosses_the_target(default: dict) -> None:
    rows, capacity = _sweep(default), default["summary"]["capacity_rps"]
    target = 90
    before = [r for r in rows if r["rate"] <= capacity]
    after = [r for r in rows if r["rate"] > capacity]
    assert all(r["attainment_pct"] >= target for r in before)
    assert after[0]["attainment_pct"] < target


def test_the_chosen_rate_below_capacity_meets_the_target(default: dict) -> None:
    summary = default["summary"]
    assert summary["capacity_rps"] > goodput.INPUTS[0].default
    assert summary["slo_attainment"] >= 0.9
    assert summary["goodput_rps"] == pytest.approx(summary["throughput_rps"], rel=0.02)


@pytest.fixture(scope="module")
def schedulers() -> dict[str, dict]:
    return {name: simulate(scheduler=name)["summary"] for name in goodput.SCHEDULERS}


def test_chunked_prefill_moves_the_first_token_knee_left_and_the_per_token_knee_right(
    schedulers: dict[str, dict]
) -> None:
    chunked, alone = schedulers["chunked"], schedulers["prefill-first"]
    assert chunked["ttft_capacity_rps"] < alone["ttft_capacity_rps"]
    assert chunked["tpot_capacity_rps"] > alone["tpot_capacity_rps"]


def test_a_bigger_budget_moves_the_two_knees_the_other_way() -> None:
    small, big = (simulate(token_budget=b)["summary"] for b in (512, 8192))
    assert big["ttft_capacity_rps"] > small["ttft_capacity_rps"]
    assert big["tpot_capacity_rps"] < small["tpot_capacity_rps"]


def test_bursty_arrivals_halve_the_capacity(default: dict) -> None:
    bursty = simulate(arrivals="bursty")["summary"]
    assert bursty["capacity_rps"] < 0.7 * default["summary"]["capacity_rps"]
    assert bursty["p99_ttft_s"] > default["summary"]["p99_ttft_s"]


def test_a_tighter_slo_lowers_capacity_on_the_same_runs(default: dict) -> None:
    tight = simulate(slo_ttft_s=0.3)
    assert tight["summary"]["capacity_rps"] < default["summary"]["capacity_rps"]
    assert tight["summary"]["saturation_rps"] == default["summary"]["saturation_rps"]
    assert [r["p99_ttft_s"] for r in _sweep(tight)] == [r["p99_ttft_s"] for r in _sweep(default)]


def test_a_longer_run_shows_a_lower_sustained_capacity(default: dict) -> None:
    longer = simulate(requests=500)["summary"]
    assert longer["capacity_rps"] < default["summary"]["capacity_rps"]


def test_memory_short_of_the_load_preempts() -> None:
    """Qwen3 32B leaves 11.8 GB of an H100 for KV: near its capacity, requests are
    preempted and recomputed; Llama 3.1 8B leaves 61 GB and never is."""
    tight = simulate(model="qwen3-32b", request_rate=2.5)["summary"]
    assert tight["preemptions"] > 0 and tight["kv_capacity_tokens"] < 50000
    assert simulate()["summary"]["preemptions"] == 0


def test_a_replica_whose_weights_fill_it_serves_nobody() -> None:
    summary = simulate(model="deepseek-v3", gpu="a100")["summary"]
    assert summary["fits"] is False and summary["refused"] == 250
    assert summary["throughput_rps"] == summary["capacity_rps"] == 0


def test_the_requests_chart_shows_every_request_of_the_chosen_rate(default: dict) -> None:
    rows = default["charts"][0]["data"]["values"]
    assert len(rows) == 250
    met = sum(row["outcome"] == "met the SLO" for row in rows)
    assert met / 250 == pytest.approx(default["summary"]["slo_attainment"])


def test_the_same_seed_gives_the_same_runs(default: dict) -> None:
    assert simulate() == default
    assert simulate(seed=2) != default


# -- the page ---------------------------------------------------------------------------

def capacity_bracket(rows: list[dict]) -> tuple[dict, dict]:
    """The two sampled rates either side of the 90% target: the last that meets it, the
    first that does not."""
    failing = next(i for i, row in enumerate(rows) if row["attainment_pct"] < 90)
    return rows[failing - 1], rows[failing]


def page_figures() -> list[tuple[str, float, str]]:
    """(phrase with {} for the figure, value, format) of the page's "check it yourself",
    each computed here from the shared physics or read from the sim."""
    gpu, model = GPUS["h100"], MODELS["llama-3.1-8b"]
    precision = precision_for(gpu, model)
    profile = gpu.kernels
    space = kv_space(gpu, model, 1, precision)
    matmul = profile.gemm["bf16"]
    rate = gpu.bf16_flops * matmul.compute_efficiency
    head = model.vocab * model.hidden  # the output head: logits at the last position only
    matmuls = 2 * (model.params_active - head) * 2048
    fill = [Work(2048, 0, logit_tokens=1)]
    one = prefill(gpu, model, 2048)
    parts = pricer(gpu, model, precision, 1, "tp").classes(fill)
    pairs = 2048 * 2049 / 2
    attention = 4 * model.layers * model.heads * model.head_dim
    share = 2048 / (2048 + 128)
    rows = _sweep(simulate())
    passing, failing = capacity_bracket(rows)
    p, f = passing["attainment_pct"], failing["attainment_pct"]
    fraction = (p - 90) / (p - f)
    gap = failing["rate"] - passing["rate"]
    low = simulate(request_rate=0.5, length_spread=0.0)["summary"]
    return [
        ("H100 does {} TFLOP/s of dense BF16", gpu.bf16_flops / 1e12, ".0f"),
        ("and reads {} TB/s from HBM", gpu.hbm_bytes_per_s / 1e12, ".2f"),
        ("kernels: {}% of the peak for a BF16 matmul", matmul.compute_efficiency * 100, PROFILE),
        ("matmul, {}% for the attention operator",
         profile.prefill_attention["bf16"].compute_efficiency * 100, PROFILE),
        ("90% of the H100's {} GB", gpu.hbm_bytes / 1e9, ".0f"),
        ("GB (80 GiB): {} GB.", gpu.hbm_bytes * USABLE_MEMORY_FRACTION / 1e9, ".1f"),
        ("The weights take {} GB", space.weights_bytes / 1e9, ".2f"),
        ("({} billion parameters at two bytes)", model.params / 1e9, ".2f"),
        ("× 128 dimensions × 2 bytes = {} bytes", space.bytes_per_token, ",.0f"),
        ("so the {} GB left", space.usable_bytes / 1e9, ".2f"),
        ("left hold {} tokens", space.token_slots(), ",d"),
        ("about two hundred requests of {} tokens", 2048 + 128, ",d"),
        ("goes through {} billion parameters", (model.params_active - head) / 1e9, ".2f"),
        ("the output head, {} billion", head / 1e9, ".2f"),
        ("each per token: {} TFLOP", matmuls / 1e12, ".1f"),
        ("at the last position adds {} TFLOP", 2 * head / 1e12, ".3f"),
        ("4 × 32 × 32 × 128 = {} FLOPs", attention, ",d"),
        ("pairs make {} TFLOP", attention * pairs / 1e12, ".2f"),
        ("In all {} TFLOP", one.flops / 1e12, ".1f"),
        ("arithmetic, at {} TFLOP/s", rate / 1e12, ".1f"),
        ("TFLOP/s, takes {} ms;", matmuls / rate * 1e3, ".1f"),
        ("included, they take {} ms", parts["gemm", "bf16"] * 1e3, ".2f"),
        ("fixed costs, takes {} ms", parts["prefill_attention", "bf16"] * 1e3, ".2f"),
        ("memory-bound, {} ms. The prefill", parts["elementwise", ""] * 1e3, ".2f"),
        ("the median first token comes after {} ms", low["p50_ttft_s"] * 1e3, ".0f"),
        ("matmuls' arithmetic, {} ms. A request", matmuls / rate * 1e3, ".1f"),
        ("serves {} requests' worth", share, ".2f"),
        ("0.94 / {} s", matmuls / rate, ".4f"),
        ("s = {} requests", share / (matmuls / rate), ".0f"),
        ("off well below that, at {}:", rows[-1]["throughput_rps"], ".1f"),
        ("At {} requests per second", passing["rate"], ".2f"),
        ("second {}% of requests meet both", p, ".1f"),
        ("targets; at {}, ", failing["rate"], ".2f"),
        (f"at {failing['rate']:.2f}, {{}}% do", f, ".1f"),
        (f"({p:.1f} − 90) / ({p:.1f} − {f:.1f}) = {{}} of the way", fraction, ".2f"),
        (f"{passing['rate']:.2f} + {fraction:.2f} × {gap:.2f} = {{}} requests per second.",
         simulate()["summary"]["capacity_rps"], ".1f"),
    ]


@pytest.mark.parametrize(("phrase", "value", "spec"), page_figures())
def test_check_it_yourself_figures_match_the_physics(phrase: str, value: float, spec: str
                                                     ) -> None:
    assert phrase.format(format(value, spec)) in rendered("goodput")


def test_the_ceiling_bounds_every_throughput_on_the_sweep(default: dict) -> None:
    gpu, model = GPUS["h100"], MODELS["llama-3.1-8b"]
    outside_head = model.params_active - model.vocab * model.hidden
    rate = gpu.bf16_flops * gpu.kernels.gemm["bf16"].compute_efficiency
    ceiling = 2048 / 2176 / (2 * outside_head * 2048 / rate)
    assert all(r["throughput_rps"] < ceiling for r in _sweep(default))


def test_a_saturated_step_is_mostly_decode_attention(default: dict) -> None:
    """The page: past the knee, steps that read a couple of hundred requests' KV cost far
    more than their arithmetic; the summary's regime names decode attention first."""
    share = re.search(r"kernels\)\. (\d+)% decode attention", default["summary"]["accuracy"])
    assert share and int(share[1]) > 50  # "takes most of a saturated step"


def test_the_page_renders_every_figure() -> None:
    text = rendered("goodput")
    assert opens_at_the_defaults("goodput", "goodput") and "{{" not in text


def test_fp8_weights_free_room_and_speed_every_step(default: dict) -> None:
    """FP8 weights: the KV room is the physics' (half the weights' bytes freed), tokens come
    sooner and the capacity rises."""
    fp8 = simulate(weights="fp8")["summary"]
    chip, shape = GPUS["h100"], MODELS["llama-3.1-8b"]
    room = kv_space(chip, shape, 1, precision_for(chip, shape, "fp8")).token_slots()
    assert fp8["kv_capacity_tokens"] == room > default["summary"]["kv_capacity_tokens"]
    assert fp8["p50_tpot_s"] < default["summary"]["p50_tpot_s"]
    assert fp8["capacity_rps"] > default["summary"]["capacity_rps"]


@pytest.mark.parametrize("engine", list(ENGINES))
def test_an_engine_adds_its_overheads_and_states_its_error(default: dict, engine: str) -> None:
    """An engine's time per request and per step only add: the first token comes no sooner,
    at a low rate (no queue to reorder) by at least the engine's intake, and the summary
    names the engine's measured error."""
    profile = ENGINES[engine]
    alone = simulate(request_rate=0.5, length_spread=0.0)["summary"]
    run = simulate(request_rate=0.5, length_spread=0.0, engine=engine)["summary"]
    assert run["p50_ttft_s"] >= alone["p50_ttft_s"] + profile.request_overhead_s
    assert run["p50_tpot_s"] >= alone["p50_tpot_s"]
    assert f"{profile.name}, against published runs" in run["accuracy"]
    assert "against published runs" not in default["summary"]["accuracy"]


def test_expert_parallel_attention_keeps_one_copy_of_each_latent_cache() -> None:
    """DeepSeek-V3 on eight H200s: under tensor parallelism every GPU holds each request's
    latent KV; with attention data-parallel each GPU holds its own requests' alone, so the
    replica's room is eight GPUs' rooms, and it serves more at the same SLO."""
    given = {"model": "deepseek-v3", "gpu": "h200", "tp": "8", "request_rate": 2}
    tp, ep = (simulate(**given, parallel=layout)["summary"] for layout in ("tp", "ep"))
    chip, shape = GPUS["h200"], MODELS["deepseek-v3"]
    precision = precision_for(chip, shape)
    assert tp["kv_capacity_tokens"] == kv_space(chip, shape, 8, precision).token_slots()
    assert ep["kv_capacity_tokens"] == 8 * kv_space(chip, shape, 8, precision,
                                                    "ep").token_slots()
    assert ep["capacity_rps"] > tp["capacity_rps"]


def test_expert_parallelism_is_refused_for_a_dense_model() -> None:
    with pytest.raises(InputError) as refused:
        simulate(parallel="ep", tp="2")
    assert refused.value.input == "parallel"
