"""Engine profiles (content/catalogue/engines/) state the errors their overheads make on the
served runs, and their overheads are physically overheads (issue 39).

The fit itself takes minutes (`make fit`), so what is held here is what it leaves behind:
each engine's stated errors are what its overheads give now, an engine fitted to runs has
overheads below the shortest gap between tokens and the shortest first-token time of those
runs, and one that is not says why."""

from __future__ import annotations

import pytest

from calibrate.engines import errors, served_points
from calibrate.harness import Harness
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
