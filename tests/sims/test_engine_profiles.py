"""Engine profiles (content/catalogue/engines/) state the errors their overheads make on the
served runs, and their overheads are physically overheads (issue 39).

The fit itself takes minutes (`make fit`), so what is held here is what it leaves behind:
each engine's stated errors are what its overheads (and its deployments' budgets) give now,
an engine fitted to runs has overheads below the shortest gap between tokens and the
shortest first-token time of those runs, and one that is not says why; a deployment has a
fitted budget only where its set leaves the budget to the fit, and that budget prices its
training runs best of those the fit tries; a run whose set reports its steady state is
priced without its warm-up."""

from __future__ import annotations

import dataclasses
import math

import pytest

from calibrate.engines import BUDGETS, budgeted, errors, served_points
from calibrate.harness import Harness, Point
from tests.repo import LAYOUT


@pytest.fixture(scope="module")
def harness() -> Harness:
    return Harness(LAYOUT)


@pytest.mark.parametrize("key", ["vllm", "sglang", "trtllm"])
def test_stated_errors_are_what_the_overheads_give(harness: Harness, key: str) -> None:
    found = errors(harness, key, harness.engines)
    stated = harness.engines[key].accuracy
    assert {(metric, name) for metric, sets in found.items() for name in sets} == set(stated)
    for metric, sets in found.items():
        for name, measured in sets.items():
            assert stated[(metric, name)].points == measured.count
            assert stated[(metric, name)].median == pytest.approx(measured.median, abs=2e-3)
            assert stated[(metric, name)].p90 == pytest.approx(measured.p90, abs=2e-3)


@pytest.mark.parametrize("key", ["vllm", "sglang", "trtllm"])
def test_a_fitted_overhead_is_below_what_the_runs_measured(harness: Harness, key: str
                                                            ) -> None:
    record = harness.site.engines[key]
    engine = harness.engines[key]
    training = served_points(harness, key, "training")
    if record.step_overhead.source.startswith("fitted"):
        gaps = [p.measured_s for p in training if p.point.kind in ("tpot", "itl")]
        firsts = [p.measured_s for p in training if p.point.kind == "ttft"]
        assert max(engine.graph_overhead_s, engine.eager_overhead_s) <= min(gaps)
        assert engine.request_overhead_s <= min(firsts)
    else:
        assert record.step_overhead.source.startswith("assumed, not fitted: ")
        assert record.request_overhead.source == record.step_overhead.source


def test_tensorrt_llm_is_fitted_to_nim_runs(harness: Harness) -> None:
    """The one engine with training runs whose fit is an overhead."""
    assert harness.site.engines["trtllm"].step_overhead.source.startswith("fitted")
    assert served_points(harness, "trtllm", "training")
    assert served_points(harness, "trtllm", "held_out")


@pytest.mark.parametrize("key", ["vllm", "sglang", "trtllm"])
def test_only_a_deployment_whose_set_leaves_its_budget_to_the_fit_has_one(
        harness: Harness, key: str) -> None:
    assert set(harness.budgets.get(key, {})) == set(budgeted(harness, key))


def test_each_fitted_budget_prices_its_deployments_training_runs_best(harness: Harness
                                                                      ) -> None:
    """Of the budgets the fit tries, the stated one gives the smallest loss on the
    deployment's own training runs, under the stated overheads."""
    stated = harness.budgets["trtllm"]
    assert stated  # NIM's two deployments
    training = served_points(harness, "trtllm", "training")
    for deployment, tokens in stated.items():
        points = [p for p in training if (p.point.case.model, p.point.case.tp) == deployment]

        def loss(budget: int, points: list[Point] = points,
                 deployment: tuple[str, int] = deployment) -> float:
            budgets = {**harness.budgets, "trtllm": {**stated, deployment: budget}}
            return sum(math.log(harness.ratio(p, None, None, budgets)) ** 2 for p in points)

        losses = {budget: loss(budget) for budget in BUDGETS}
        assert tokens in BUDGETS and losses[tokens] == min(losses.values()), losses


def test_a_run_reported_at_its_steady_state_is_priced_without_its_warm_up(
        harness: Harness) -> None:
    """NIM's runs leave their users' first requests out (case.warmup): priced with them,
    a loaded run's first tokens come out later (the first round arrives at once)."""
    point = next(p for p in served_points(harness, "trtllm", "held_out")
                 if p.point.kind == "ttft" and (p.point.case.concurrency or 0) >= 100)
    assert point.point.case.warmup == point.point.case.concurrency
    whole = dataclasses.replace(point, point=dataclasses.replace(
        point.point, case=dataclasses.replace(point.point.case, warmup=None)))
    assert harness.ratio(whole) > harness.ratio(point)
