"""The speculative-decoding sim: Leviathan et al.'s formula, and the batch that undoes it."""

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
    step_allreduce,
    total_s,
)

from sims import speculative
from sims.physics import (
    GPUS,
    MODELS,
    Work,
    decode_step,
    ridge_tokens,
    step_cost,
)
from tests.sims.explainer_pages import opens_at_the_defaults


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
    # The title: five tokens verified cost within a tenth of one made.
    ratio = summary["verify_step_time_s"] / summary["target_step_time_s"]
    assert 1 < ratio < 1.1
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
    """At batch 1 the verify pass costs a little more than a step (a few positions' more
    activations, and all-reduces too large for the engine's own kernels), so the sim sits
    under their formula, by no more than that extra cost."""
    a, k, c = 0.8, 4, 0.05
    summary = speculative.simulate(batch_size=1)["summary"]
    leviathan = (1 - a ** (k + 1)) / ((1 - a) * (c * k + 1))
    extra = summary["verify_step_time_s"] / summary["target_step_time_s"]
    assert 1 < extra < 1.1
    assert leviathan / extra <= summary["speedup"] < leviathan


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


def page_figures() -> list[Claim]:
    """(phrase with {} for the figure, value, format) at the page's starting inputs."""
    gpu, model = GPUS["h100"], MODELS["llama-3.1-70b"]
    context, batch, k, a, c, tp = speculative.CONTEXT_TOKENS, 8, 4, 0.8, 0.05, 4
    plain = decode_step(gpu, model, batch, context, tp)
    verify = step_cost(gpu, model, [Work(k + 1, context, count=batch)], tp)
    plain_ops = hand_priced(gpu, model, [Work(1, context, count=batch)], tp)
    verify_ops = hand_priced(gpu, model, [Work(k + 1, context, count=batch)], tp)
    plain_ar = step_allreduce(gpu, model, batch, tp)
    verify_ar = step_allreduce(gpu, model, batch * (k + 1), tp)
    fit = gpu.kernels.gemm["bf16"]
    layer = (8192 * 10240 + 8192 * 8192 + 3 * 8192 * 28672)
    matmuls = 80 * layer + 128256 * 8192
    kv = model.kv_bytes_per_token()
    tokens = speculative.expected_tokens(a, k)
    draft = k * c * plain.time_s
    ridge = ridge_tokens(gpu, model)
    return [
        *hardware_claims(gpu, "H100", ".2f"),
        *profile_claims(gpu, "overlap", "gemm", "decode_attention", "elementwise"),
        *shape_claims(model),
        ("every sequence {} tokens into its context", context, "d"),
        ("batch 8, {} tokens of context per sequence", context, "d"),
        ("787.7 TFLOP/s over {} TB/s", gpu.hbm_bytes_per_s * fit.memory_efficiency / 1e12,
         ".2f"),
        ("2.74 TB/s is {} FLOP per byte", gpu.effective_ridge_flops_per_byte, ".0f"),
        ("with {} tokens in the pass", ridge, "d"),
        ("compute-bound at about {} tokens", ridge, "d"),
        ("puts {} through", 64 * (k + 1), "d"),
        ("hold {} billion parameters", matmuls / 1e9, ".1f"),
        ("billion parameters, {} GB in BF16", 2 * matmuls / 1e9, ".1f"),
        ("× 2 = {} bytes", kv, ",.0f"),
        ("8 sequences of {} positions", context + 1, "d"),
        ("positions hold {} GB of KV cache", batch * (context + 1) * kv / 1e9, ".2f"),
        ("Each GPU runs {} kernels", sum(x.count for x in plain_ops.values()), "d"),
        ("Its {} GEMMs move", plain_ops["gemm"].count, "d"),
        ("GEMMs move {} GB, a quarter", plain_ops["gemm"].moved / 1e9, ".2f"),
        ("activations, in {} ms at 2.74", plain_ops["gemm"].memory_s * 1e3, ".2f"),
        ("their arithmetic, {} ms, barely", plain_ops["gemm"].compute_s * 1e3, ".2f"),
        ("their starts add {} ms:", plain_ops["gemm"].fixed_s * 1e3, ".2f"),
        ("add 1.02 ms: {} ms.", plain_ops["gemm"].time_s * 1e3, ".2f"),
        ("two KV heads of cache, {} GB", plain_ops["decode_attention"].moved / 1e9, ".2f"),
        ("GB, in {} ms, 1.00", plain_ops["decode_attention"].memory_s * 1e3, ".2f"),
        ("ms, {} ms with its fixed costs", plain_ops["decode_attention"].time_s * 1e3, ".2f"),
        ("kernels take {} ms, nearly all", plain_ops["elementwise"].time_s * 1e3, ".2f"),
        ("starts: {} ms of operators. Two", plain.ops_s * 1e3, ".2f"),
        ("per layer make {}, each", plain.collectives, "d"),
        ("each carrying {} bytes", plain_ar.message, ",.0f"),
        ("bytes in {} µs:", plain_ar.time_s * 1e6, ".2f"),
        ("µs: {} ms. The step", plain.collective_s * 1e3, ".2f"),
        ("now has {} new positions", k + 1, "d"),
        ("new positions, {} in all", batch * (k + 1), "d"),
        ("grows fivefold, to {} ms", verify_ops["gemm"].compute_s * 1e3, ".2f"),
        ("barely moves ({} ms:", verify_ops["gemm"].memory_s * 1e3, ".2f"),
        ("the cube root they take {} ms", verify_ops["gemm"].time_s * 1e3, ".2f"),
        ("a sequence, take {} ms:", verify_ops["elementwise"].time_s * 1e3, ".2f"),
        ("ms: {} ms of operators. The all-reduces", verify.ops_s * 1e3, ".2f"),
        ("the data, {} µs each", verify_ar.time_s * 1e6, ".2f"),
        ("µs each, {} ms in all", verify.collective_s * 1e3, ".2f"),
        ("ms, {}% more than making one token", (verify.time_s / plain.time_s - 1) * 100, ".0f"),
        ("4 × 0.05 × {} ms", plain.time_s * 1e3, ".2f"),
        ("step takes {} + 17.41", draft * 1e3, ".2f"),
        ("3.28 + {} = 20.69", verify.time_s * 1e3, ".2f"),
        ("= {} ms and yields", (draft + verify.time_s) * 1e3, ".2f"),
        ("that is {} tokens", tokens, ".2f"),
        ("on average, {} ms per token", (draft + verify.time_s) / tokens * 1e3, ".2f"),
        ("against {} ms for plain decoding", plain.time_s * 1e3, ".2f"),
        ("**{}x**", tokens * plain.time_s / (draft + verify.time_s), ".2f"),
        ("gives {} / 1.2", tokens, ".2f"),
        ("3.36 / {} = 2.80x", 1 + k * c, ".1f"),
        ("/ 1.2 = {}x", (1 - a ** (k + 1)) / ((1 - a) * (c * k + 1)), ".2f"),
        ("the {}% the pass really costs", (verify.time_s / plain.time_s - 1) * 100, ".0f"),
        ("carries {} tokens", 256 * (k + 1), ",d"),
        ("tokens, {} times the ridge", 256 * (k + 1) / ridge, ".1f"),
        ("0.8^10, about {})", a**10, ".2f"),
    ]


def test_the_worked_example_prices_what_the_sim_prices() -> None:
    """The page's kernel sums are the two passes, and both passes' all-reduces run on the
    one-shot kernel."""
    gpu, model, context = GPUS["h100"], MODELS["llama-3.1-70b"], speculative.CONTEXT_TOKENS
    for new in (1, 5):
        work = [Work(new, context, count=8)]
        cost = step_cost(gpu, model, work, 4)
        assert total_s(hand_priced(gpu, model, work, 4)) == pytest.approx(cost.ops_s,
                                                                        rel=1e-12)
        allreduce = step_allreduce(gpu, model, 8 * new, 4)
        assert allreduce.algorithm == "one_shot"
        assert 160 * allreduce.time_s == pytest.approx(cost.collective_s, rel=1e-12)


@pytest.mark.parametrize(("phrase", "value", "spec"), page_figures())
def test_check_it_yourself_figures_match_the_physics(phrase: str, value: float, spec: str) -> None:
    assert phrase.format(format(value, spec)) in rendered_page()


def test_page_starts_at_the_defaults_it_derives_from() -> None:
    defaults = {spec.name: spec.default for spec in speculative.INPUTS}
    assert defaults == {
        "acceptance_rate": 0.8, "lookahead": 4, "draft_cost": 0.05, "batch_size": 8,
        "model": "llama-3.1-70b", "model_config": "", "gpu": "h100", "tp": "4",
        "drafter": "draft-model",
    }
    text = rendered_page()
    assert opens_at_the_defaults("speculative-decoding", "speculative")
    assert "Llama 3.1 70B over 4 H100s, batch 8," in text
    assert "lookahead 4, acceptance rate 0.8, draft cost 0.05, BF16 weights and cache." in text


def test_page_claims_hold_in_the_sim() -> None:
    text = rendered_page()
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
