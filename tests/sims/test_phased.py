"""A run answered in two parts (sims.kit.phased, runner.start and runner.finish): the first
part is the whole answer's beginning, figure for figure and chart for chart, and the whole
answer is byte for byte what `run` gives, which every other test checks."""

from __future__ import annotations

import json
import sys
import types
from typing import Any

import pytest

import sims
from sims.kit import runner
from sims.kit.contract import Number, simulation
from sims.kit.phased import LATER, Phased, Rest

# Each sim that answers in two parts, with inputs that move what its first part computes.
VARIED = {
    "kv_memory": [{}, {"seed": 7}, {"allocator": "contiguous", "block_size": "64"},
                  {"kv_precision": "fp8", "tp": "2"}, {"preemption": "swap", "requests": 120}],
    "goodput": [{}, {"seed": 5}, {"request_rate": 24}, {"arrivals": "bursty", "tp": "2"},
                {"engine": "trtllm", "weights": "fp8"}],
}


def _parts(module: str, inputs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    first = json.loads(runner.start(module, json.dumps(inputs)))
    assert first.pop("more") is True and runner.more()
    whole = runner.finish()
    assert whole == runner.run(module, json.dumps(inputs))
    return first, json.loads(whole)


@pytest.mark.parametrize(("module", "inputs"),
                         [(module, inputs) for module, cases in VARIED.items() for inputs in cases])
def test_the_first_part_is_the_whole_answers_beginning(module: str, inputs: dict[str, Any]) -> None:
    first, whole = _parts(module, inputs)
    pending = first.pop("pending")
    summary, full = first["result"]["summary"], whole["result"]["summary"]
    assert list(summary) == list(full)  # the page keeps its rows: same figures, same order
    for name, value in summary.items():
        assert (value is None) if name in pending else value == full[name], name
    charts = first["result"]["charts"]
    assert charts and charts == whole["result"]["charts"][:len(charts)]
    assert len(charts) < len(whole["result"]["charts"])  # the rest owes charts: worth a part


def test_goodput_leaves_the_sweeps_figures_for_later() -> None:
    first, _ = _parts("goodput", {})
    assert first["pending"] == ["capacity_rps", "ttft_capacity_rps", "tpot_capacity_rps",
                                "peak_goodput_rps", "peak_goodput_rate_rps"]


def test_a_sim_answering_whole_starts_as_it_runs() -> None:
    for module in sims.sim_names():
        if module in VARIED:
            continue
        assert runner.start(module, "{}") == runner.run(module, "{}"), module
        assert not runner.more(), module


def test_a_refused_input_answers_whole_with_nothing_to_finish() -> None:
    answer = json.loads(runner.start("kv_memory", json.dumps({"requests": 0})))
    assert answer["ok"] is False and answer["input"] == "requests" and "more" not in answer
    assert not runner.more()
    assert json.loads(runner.finish())["ok"] is False  # nothing begun: said, not a crash


def test_a_rest_that_leaves_a_figure_out_is_a_fault_of_the_sim() -> None:
    @simulation((Number("x", "x", 1, 0, 2, 1),))
    def model(*, x: int) -> Phased:
        def rest() -> Rest:
            return {"other": 1}, []
        return Phased({"x": x, "twice": LATER}, [], rest)

    assert model.begin(x=1).first["summary"] == {"x": 1, "twice": None}  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="left \\['twice'\\]"):
        model(x=1)


def test_a_simulate_not_wrapped_by_the_contract_answers_whole(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in sim (the browser tests' faulty one) has a plain `simulate`."""
    plain = types.ModuleType("sims.plain")
    plain.simulate = lambda **inputs: {"summary": {"x": inputs["x"]}, "charts": []}  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sims.plain", plain)
    assert runner.start("plain", '{"x": 2}') == runner.run("plain", '{"x": 2}')
    assert json.loads(runner.start("plain", '{"x": 2}'))["result"]["summary"] == {"x": 2}
    assert not runner.more()
