"""The speculative-decoding sim: Leviathan et al.'s formula, and the batch that undoes it."""

from __future__ import annotations

import itertools

import pytest
from explainer_pages import hardware_claims, rendered, shape_claims

from sims import speculative
from sims.physics import (
    COMPUTE_EFFICIENCY,
    GPUS,
    MEMORY_EFFICIENCY,
    MODELS,
    Work,
    decode_step,
    ridge_tokens,
    step_cost,
)


def rows(result: dict, chart: int) -> list[dict]:
    return result["charts"][chart]["data"]["values"]


@pytest.mark.parametrize(
    ("acceptance", "lookahead", "expected"),
    [
        (0.8, 4, 1 + 0.8 + 0.64 + 0.512 + 0.4096),  # 3.3616
        (0.5, 2, 1.75),
        (0.0, 7, 1.0),  # every guess rejected: only the target's own token
        (1.0, 4, 5.0),  # every guess accepted: k + 1
        (1.0, 12, 13.0),
    ],
)
def test_expected_tokens_hand_values(acceptance: float, lookahead: int, expected: float) -> None:
    assert speculative.expected_tokens(acceptance, lookahead) == pytest.approx(expected)


@pytest.mark.parametrize("acceptance", [0.0, 0.1, 0.5, 0.9, 0.99, 0.999999])
@pytest.mark.parametrize("lookahead", [1, 3, 12])
def test_expected_tokens_is_leviathans_closed_form(acceptance: float, lookahead: int) -> None:
    closed = (1 - acceptance ** (lookahead + 1)) / (1 - acceptance)
    assert speculative.expected_tokens(acceptance, lookahead) == pytest.approx(closed, rel=1e-9)


def test_speedup_reduces_to_leviathan_when_verify_costs_one_step() -> None:
    """Their speedup, (1 - a^(k+1)) / ((1 - a)(ck + 1)), assumes verifying is one step."""
    a, k, c = 0.7, 5, 0.1
    leviathan = (1 - a ** (k + 1)) / ((1 - a) * (c * k + 1))
    assert speculative.speedup(a, k, c, target_s=0.02, verify_s=0.02) == pytest.approx(leviathan)


def test_summary_at_defaults() -> None:
    summary = speculative.simulate()["summary"]
    assert summary["expected_tokens_per_step"] == pytest.approx(3.3616)
    assert summary["verify_bound"] == "memory"
    assert summary["fits_in_memory"] is True
    # The title: five tokens verified cost within a few percent of one made.
    ratio = summary["verify_step_time_s"] / summary["target_step_time_s"]
    assert 1 < ratio < 1.05
    assert summary["speedup"] > 2.5


def test_step_times_come_from_the_shared_physics() -> None:
    summary = speculative.simulate(lookahead=3, batch_size=16, model="llama-3.1-8b", tp="1")[
        "summary"
    ]
    gpu, model = GPUS["h100"], MODELS["llama-3.1-8b"]
    context = speculative.CONTEXT_TOKENS
    target = decode_step(gpu, model, 16, context).time_s
    verify = step_cost(gpu, model, [Work(4, context)] * 16).time_s
    assert summary["target_step_time_s"] == pytest.approx(target, rel=1e-5)
    assert summary["verify_step_time_s"] == pytest.approx(verify, rel=1e-5)
    assert summary["draft_time_s"] == pytest.approx(3 * 0.05 * target, rel=1e-5)


GRID = list(
    itertools.product(
        ["llama-3.1-8b", "llama-3.1-70b"], ["h100", "a100"], ["1", "8"], [0.0, 0.6, 1.0], [0.0, 0.3]
    )
)


@pytest.mark.parametrize(("model", "gpu", "tp", "acceptance", "draft_cost"), GRID)
def test_speedup_never_exceeds_lookahead_plus_one(
    model: str, gpu: str, tp: str, acceptance: float, draft_cost: float
) -> None:
    result = speculative.simulate(
        model=model, gpu=gpu, tp=tp, acceptance_rate=acceptance, draft_cost=draft_cost,
        batch_size=1,
    )
    for row in rows(result, 0):
        assert row["speedup"] <= row["lookahead"] + 1
    for row in rows(result, 1):
        assert row["speedup"] <= 4 + 1


@pytest.mark.parametrize(("model", "gpu", "tp", "acceptance", "draft_cost"), GRID)
def test_speedup_falls_as_the_batch_grows(
    model: str, gpu: str, tp: str, acceptance: float, draft_cost: float
) -> None:
    result = speculative.simulate(
        model=model, gpu=gpu, tp=tp, acceptance_rate=acceptance, draft_cost=draft_cost
    )
    speedups = [row["speedup"] for row in rows(result, 1)]
    assert all(later <= earlier for earlier, later in itertools.pairwise(speedups))


def test_speedup_drops_below_one_once_the_batch_uses_the_compute() -> None:
    by_batch = {row["batch_size"]: row for row in rows(speculative.simulate(), 1)}
    assert by_batch[1]["speedup"] > 2.5 and by_batch[1]["verify_bound"] == "memory"
    assert by_batch[256]["speedup"] < 1.2 and by_batch[256]["verify_bound"] == "compute"
    assert by_batch[512]["speedup"] < 1 < by_batch[256]["speedup"]
    assert speculative.simulate(batch_size=512)["summary"]["fits_in_memory"] is True


def test_memory_bound_speedup_is_close_to_leviathans() -> None:
    """At batch 1 the verify pass is nearly free, so the sim sits just under their formula."""
    a, k, c = 0.8, 4, 0.05
    summary = speculative.simulate(batch_size=1)["summary"]
    leviathan = (1 - a ** (k + 1)) / ((1 - a) * (c * k + 1))
    assert leviathan * 0.97 < summary["speedup"] < leviathan


@pytest.mark.parametrize("batch", [1, 64, 512])
@pytest.mark.parametrize(("acceptance", "draft_cost"), [(0.8, 0.05), (0.95, 0.0), (0.5, 0.2)])
def test_best_lookahead_is_the_argmax(batch: int, acceptance: float, draft_cost: float) -> None:
    kwargs = {"batch_size": batch, "acceptance_rate": acceptance, "draft_cost": draft_cost}
    summary = speculative.simulate(**kwargs)["summary"]
    each = {
        k: speculative.simulate(lookahead=k, **kwargs)["summary"]["speedup"]
        for k in range(1, speculative.MAX_LOOKAHEAD + 1)
    }
    best = max(each.values())
    assert summary["best_speedup"] == best
    assert summary["best_lookahead"] == min(k for k, value in each.items() if value == best)


@pytest.mark.parametrize("batch", [1, 8, 512])
@pytest.mark.parametrize("draft_cost", [0.01, 0.5, 1.0])
def test_acceptance_zero_loses_whenever_drafting_costs_anything(
    batch: int, draft_cost: float
) -> None:
    summary = speculative.simulate(acceptance_rate=0.0, draft_cost=draft_cost, batch_size=batch)[
        "summary"
    ]
    assert summary["expected_tokens_per_step"] == 1
    assert summary["speedup"] < 1
    assert summary["best_lookahead"] == 1


def test_acceptance_one_yields_lookahead_plus_one_tokens() -> None:
    summary = speculative.simulate(acceptance_rate=1.0, lookahead=7, draft_cost=0.0,
                                   batch_size=1)["summary"]
    assert summary["expected_tokens_per_step"] == 8
    assert 7 < summary["speedup"] <= 8


def test_a_model_that_does_not_fit_is_reported() -> None:
    assert speculative.simulate(model="llama-3.1-70b", tp="1")["summary"]["fits_in_memory"] is False
    assert speculative.simulate(model="llama-3.1-8b", tp="1")["summary"]["fits_in_memory"] is True


def test_metrics_label_every_summary_key() -> None:
    assert set(speculative.METRICS) == set(speculative.simulate()["summary"])


@pytest.mark.parametrize(
    ("name", "value"), [("tp", "3"), ("lookahead", 0), ("acceptance_rate", 1.5)]
)
def test_bad_inputs_name_the_input(name: str, value: object) -> None:
    with pytest.raises(ValueError, match=name):
        speculative.simulate(**{name: value})


def test_a_costlier_draft_wants_a_shorter_lookahead() -> None:
    best = [
        speculative.simulate(draft_cost=c)["summary"]["best_lookahead"]
        for c in (0.0, 0.05, 0.1, 0.2, 0.4, 1.0)
    ]
    assert best == sorted(best, reverse=True) and best[0] > best[-1]


# The page's "check it yourself" section derives the headline figures from the constants.
# Each figure it types is checked here against the shared physics; the figures it pulls
# from the sim through {{ sim:... }} placeholders are rendered the way staging renders them.
def rendered_page() -> str:
    return rendered("speculative-decoding")


def page_figures() -> list[tuple[str, float, str]]:
    """(phrase with {} for the figure, value, format) at the page's starting inputs."""
    gpu, model = GPUS["h100"], MODELS["llama-3.1-70b"]
    context, batch, k, a, c, tp = speculative.CONTEXT_TOKENS, 8, 4, 0.8, 0.05, 4
    plain = decode_step(gpu, model, batch, context, tp)
    verify = step_cost(gpu, model, [Work(k + 1, context, count=batch)], tp)
    fit = gpu.collectives.fits[tp]
    layer = (8192 * 10240 + 8192 * 8192 + 3 * 8192 * 28672)
    matmuls = 80 * layer + 128256 * 8192
    per_token = (80 * ((8192 + 10240) + (8192 + 8192) + (8192 + 57344) + (28672 + 8192)) * 2
                 + (8192 + 128256) * 2  # the head's input and logits
                 + 80 * 2 * 64 * 128 * 2  # attention's queries and outputs
                 + 80 * (4 * 8192 + 2 * (64 + 8) * 128 + 3 * 28672) * 2  # element-wise
                 + 8192 * 2 * 2)  # the embedding row, read and written
    kv = model.kv_bytes_per_token()
    tokens = speculative.expected_tokens(a, k)
    draft = k * c * plain.time_s
    return [
        *hardware_claims(gpu, "H100", ".2f"),
        *shape_claims(model),
        ("every sequence {} tokens into its context", context, "d"),
        ("batch 8, {} tokens of context per sequence", context, "d"),
        ("so {} TFLOP/s and", gpu.bf16_flops * COMPUTE_EFFICIENCY / 1e12, ".0f"),
        ("and {} TB/s per GPU", gpu.hbm_bytes_per_s * MEMORY_EFFICIENCY / 1e12, ".2f"),
        ("H100s takes {} µs plus", fit.latency_s * 1e6, ".1f"),
        ("its message at {} GB/s", fit.bytes_per_s / 1e9, ".1f"),
        ("2.68 TB/s is {} FLOP per byte", gpu.effective_ridge_flops_per_byte, ".0f"),
        ("with {} tokens in the pass", ridge_tokens(gpu, model), "d"),
        ("compute-bound at about {} tokens", ridge_tokens(gpu, model), "d"),
        ("puts {} through", 64 * (k + 1), "d"),
        ("hold {} billion parameters", matmuls / 1e9, ".1f"),
        ("billion parameters, {} GB in BF16", 2 * matmuls / 1e9, ".1f"),
        ("× 2 = {} bytes", kv, ",.0f"),
        ("8 sequences of {} positions", context + 1, "d"),
        ("write {} GB of KV cache", batch * (context + 1) * kv / 1e9, ".2f"),
        ("outputs add {} MB per token", per_token / 1e6, ".1f"),
        ("per token, {} GB for 8 tokens", batch * per_token / 1e9, ".2f"),
        ("That is {} GB, a quarter", plain.bytes / 1e9, ".1f"),
        ("full hidden states): {} ms at", plain.memory_s * 1e3, ".2f"),
        ("The arithmetic, {} TFLOP", plain.flops / 1e12, ".2f"),
        ("takes {} ms across the four GPUs", plain.compute_s * 1e3, ".2f"),
        ("The {} kernels of a step", 80 * 9 + 2, "d"),
        ("step take {} ms to start", (80 * 9 + 2) * 4e-3, ".2f"),
        ("start: {} ms of operators", plain.ops_s * 1e3, ".2f"),
        ("per layer make {}, each", plain.collectives, "d"),
        ("plus {} µs of transfer", batch * 8192 * 2 / fit.bytes_per_s * 1e6, ".2f"),
        ("of transfer: {} ms", plain.collective_s * 1e3, ".2f"),
        ("The step takes {} ms", plain.time_s * 1e3, ".2f"),
        ("now has {} new positions", k + 1, "d"),
        ("new positions, {} in all", batch * (k + 1), "d"),
        ("grows to {} GB", batch * (context + k + 1) * kv / 1e9, ".2f"),
        ("the activations to {} GB", batch * (k + 1) * per_token / 1e9, ".2f"),
        ("so {} GB, and", verify.bytes / 1e9, ".1f"),
        ("and {} ms to read", verify.memory_s * 1e3, ".2f"),
        ("fivefold to {} TFLOP", verify.flops / 1e12, ".2f"),
        ("TFLOP, {} ms: still", verify.compute_s * 1e3, ".2f"),
        ("a little: {} ms. The", verify.ops_s * 1e3, ".2f"),
        ("the data, {} ms in all", verify.collective_s * 1e3, ".2f"),
        ("The pass takes {} ms", verify.time_s * 1e3, ".2f"),
        ("ms, {}% more than making one token", (verify.time_s / plain.time_s - 1) * 100, ".0f"),
        ("4 × 0.05 × {} ms", plain.time_s * 1e3, ".2f"),
        ("target step: 4 × 0.05 × 21.27 ms = {} ms", draft * 1e3, ".2f"),
        ("step takes {} + 21.94", draft * 1e3, ".2f"),
        ("4.25 + {} = 26.19", verify.time_s * 1e3, ".2f"),
        ("= {} ms and yields", (draft + verify.time_s) * 1e3, ".2f"),
        ("yields {} tokens on average", tokens, ".2f"),
        ("that is {} tokens", tokens, ".2f"),
        ("on average, {} ms per token", (draft + verify.time_s) / tokens * 1e3, ".2f"),
        ("against {} ms for plain decoding", plain.time_s * 1e3, ".2f"),
        ("**{}x**", tokens * plain.time_s / (draft + verify.time_s), ".2f"),
        ("gives {} / 1.2", tokens, ".2f"),
        ("3.36 / {} = 2.80x", 1 + k * c, ".1f"),
        ("/ 1.2 = {}x", (1 - a ** (k + 1)) / ((1 - a) * (c * k + 1)), ".2f"),
        ("carries {} tokens", 256 * (k + 1), ",d"),
        ("0.8^10, about {})", a**10, ".2f"),
    ]


@pytest.mark.parametrize(("phrase", "value", "spec"), page_figures())
def test_check_it_yourself_figures_match_the_physics(phrase: str, value: float, spec: str) -> None:
    assert phrase.format(format(value, spec)) in rendered_page()


def test_page_starts_at_the_defaults_it_derives_from() -> None:
    defaults = {spec.name: spec.default for spec in speculative.INPUTS}
    assert defaults == {
        "acceptance_rate": 0.8, "lookahead": 4, "draft_cost": 0.05, "batch_size": 8,
        "model": "llama-3.1-70b", "gpu": "h100", "tp": "4", "drafter": "draft-model",
    }
    text = rendered_page()
    assert "```sim module: speculative ```" in text  # no start: the page opens at the defaults
    assert "Llama 3.1 70B over 4 H100s, batch 8," in text
    assert "lookahead 4, acceptance rate 0.8, draft cost 0.05, BF16 weights and cache." in text


def test_page_claims_hold_in_the_sim() -> None:
    text = rendered_page()
    assert "five times the ridge" in text
    gpu, model = GPUS["h100"], MODELS["llama-3.1-70b"]
    assert round(256 * 5 / ridge_tokens(gpu, model)) == 5
    assert "{{" not in text
    assert speculative.simulate(acceptance_rate=0.0)["summary"]["speedup"] < 1
    assert speculative.simulate(model="llama-3.1-8b", tp="1", batch_size=512)["summary"][
        "speedup"
    ] > 1
    # "past a few hundred sequences speculation makes decoding slower"
    assert speculative.simulate(batch_size=256)["summary"]["speedup"] > 1
    at_512 = speculative.simulate(batch_size=512)["summary"]
    assert at_512["speedup"] < 1
    # "cutting the lookahead to 1 recovers": the shortest lookahead is the best one
    assert at_512["best_lookahead"] == 1 and at_512["best_speedup"] > 1
