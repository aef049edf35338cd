"""The drafters the speculative sim offers: each one's acceptance is its source's figure, its
cost is one layer of the target priced by the physics, and MTP is for models that have it."""

from __future__ import annotations

import pytest

from sims.physics import GPUS, MODELS, decode_step, drafters
from sims.speculative import CONTEXT_TOKENS, expected_tokens, simulate

H100, H200 = GPUS["h100"], GPUS["h200"]


def test_eagle3s_rate_reproduces_the_measured_mean_acceptance() -> None:
    mean = drafters.EAGLE3_ACCEPTED / drafters.EAGLE3_DRAFTS  # accepted guesses per draft
    a = drafters.EAGLE3_ACCEPTANCE
    assert expected_tokens(a, drafters.EAGLE3_DRAFT_TOKENS) - 1 == pytest.approx(mean, rel=1e-9)
    assert 0 < a < 1


@pytest.mark.parametrize(("mean", "lookahead"), [(0.0, 3), (1.5, 3), (3.0, 3), (0.5, 1)])
def test_acceptance_for_inverts_the_expected_guesses(mean: float, lookahead: int) -> None:
    a = drafters.acceptance_for(mean, lookahead)
    assert expected_tokens(a, lookahead) - 1 == pytest.approx(mean, abs=1e-9)


def test_a_mean_above_the_guesses_is_not_a_mean() -> None:
    with pytest.raises(ValueError):
        drafters.acceptance_for(5, 4)


def test_mtp_is_deepseek_v3s_one_module_at_its_reports_acceptance() -> None:
    summary = simulate(drafter="mtp", model="deepseek-v3", gpu="h200", tp="8")["summary"]
    assert summary["acceptance_rate_used"] == 0.85
    assert summary["lookahead_used"] == summary["best_lookahead"] == 1
    assert summary["expected_tokens_per_step"] == pytest.approx(1.85)


def test_mtp_on_a_model_without_the_module_is_refused_by_the_drafter_input() -> None:
    with pytest.raises(ValueError, match="^drafter: expected draft-model or eagle-3"):
        simulate(drafter="mtp")


def test_a_built_in_drafter_costs_one_layer_and_the_head() -> None:
    model = MODELS["llama-3.1-70b"]
    summary = simulate(drafter="eagle-3", batch_size=16)["summary"]
    layer = model.pipeline_stage(model.layers, model.layers - 1)
    share = (decode_step(H100, layer, 16, CONTEXT_TOKENS, 4).time_s
             / decode_step(H100, model, 16, CONTEXT_TOKENS, 4).time_s)
    assert summary["draft_cost_used"] == pytest.approx(share, rel=1e-5)
    assert 1 / model.layers < share < 0.1  # a layer, the head and their fixed costs


def test_a_built_in_drafter_ignores_the_hand_set_acceptance_and_cost() -> None:
    one = simulate(drafter="eagle-3", acceptance_rate=0.1, draft_cost=0.9)["summary"]
    other = simulate(drafter="eagle-3", acceptance_rate=0.9, draft_cost=0.0)["summary"]
    assert one == other


def test_the_draft_model_keeps_the_readers_figures() -> None:
    summary = simulate(acceptance_rate=0.6, draft_cost=0.2, lookahead=3)["summary"]
    assert (summary["acceptance_rate_used"], summary["draft_cost_used"],
            summary["lookahead_used"]) == (0.6, 0.2, 3)


def test_on_a_mixture_of_experts_mtps_guess_costs_more_at_small_batches() -> None:
    """The guesses are tokens too: at a small batch they route to experts the plain step
    would not read, so the verify pass costs more than a step and the gain is smaller."""
    deepseek = {"drafter": "mtp", "model": "deepseek-v3", "gpu": "h200", "tp": "8"}
    small = simulate(batch_size=4, **deepseek)["summary"]
    large = simulate(batch_size=64, **deepseek)["summary"]
    assert small["verify_step_time_s"] / small["target_step_time_s"] > (
        large["verify_step_time_s"] / large["target_step_time_s"])
    assert small["speedup"] < large["speedup"]
