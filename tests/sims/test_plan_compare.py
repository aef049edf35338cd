"""Compare with what you measured (issue 41, point 2): a results file of vllm bench serve,
GuideLLM or genai-perf read into the plan's `measured` input, each point drawn and tabled
against serve's prediction for the measured set-up with its error, and the scales that fit
them offered to the page; bad files and bad values refused by name, saying what to give."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sims import __main__ as cli
from sims import plan
from sims.kit import runner
from sims.kit.contract import InputError
from sims.planning import compare
from sims.planning.estimate import Target

FIXTURES = Path(__file__).parent / "fixtures" / "results"
FILES = ["vllm_bench_serve.json", "guidellm_report.json", "profile_export_genai_perf.json"]
# The plan the files are compared under: the model they measured (GuideLLM's report does not
# name it), on the defaults' one H100 in BF16.
PLAN = {"model": "llama-3.1-8b", "gpu": "h100"}


def _text(name: str) -> str:
    return (FIXTURES / name).read_text()


def _run(name: str, **more: Any) -> dict[str, Any]:
    return plan.simulate(**PLAN, measured=plan.read_file("measured", _text(name)), **more)


@pytest.fixture(scope="module", params=FILES)
def compared(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    return request.param, _run(request.param)


def test_each_file_reads_as_a_line_small_enough_for_the_url() -> None:
    assert plan.read_file("measured", _text(FILES[0])) == (
        "vllm p50 llama-3.1-8b; c16 1000/200 55.12 15.71")
    assert plan.read_file("measured", _text(FILES[1])) == (
        "guidellm p50; c1 1000/200 37.9 12.1; c32 1000/200 118.3 15.5; r6 63.2 14.1")
    assert plan.read_file("measured", _text(FILES[2])) == (
        "genai-perf p50 llama-3.1-8b; c16 1000/200 84.2 20")


def test_the_runner_answers_the_page_with_the_value_or_what_to_give() -> None:
    answer = json.loads(runner.read("plan", "measured", _text(FILES[0])))
    assert answer == {"ok": True, "value": "vllm p50 llama-3.1-8b; c16 1000/200 55.12 15.71"}
    text = _text(FILES[1])
    answer = json.loads(runner.read("plan", "measured", text[: len(text) // 2]))
    assert answer["ok"] is False and answer["input"] == "measured"
    assert answer["message"].startswith("not JSON (cut short")
    assert "give the JSON file the benchmark wrote" in answer["message"]
    answer = json.loads(runner.read("plan", "rate", "{}"))
    assert answer["ok"] is False and "not an input of this sim that a file fills" in (
        answer["message"])


def test_a_file_of_another_tool_is_refused_saying_which_files_are_read() -> None:
    answer = json.loads(runner.read("plan", "measured", json.dumps({"results": []})))
    assert answer["ok"] is False
    assert "vllm bench serve --save-result" in answer["message"]
    assert "GuideLLM" in answer["message"] and "genai-perf" in answer["message"]


def test_a_run_without_a_load_to_repeat_is_refused_saying_what_to_give() -> None:
    data = json.loads(_text(FILES[0]))
    data["max_concurrency"] = None  # every request at once, at rate "inf"
    with pytest.raises(ValueError, match="--max-concurrency"):
        plan.read_file("measured", json.dumps(data))


def test_each_point_is_drawn_over_ours_and_tabled_with_its_error(
        compared: tuple[str, dict[str, Any]]) -> None:
    name, result = compared
    table = result["tables"][-1]
    rows = table["rows"]
    assert len(rows) == result["summary"]["measured_points"] == (3 if "guidellm" in name
                                                                  else 1)
    for row in rows:
        for key in ("ttft", "tpot"):
            assert row[f"{key}_error"] == pytest.approx(
                row[f"{key}_s"] / row[f"measured_{key}_s"] - 1, rel=1e-4)
    [chart] = [c for c in result["charts"] if c["title"]["text"].startswith("Measured")]
    drawn = chart["data"]["values"]
    assert {(p["load"], p["source"]) for p in drawn} == {
        (row["load"], source) for row in rows for source in ("measured", "ours")}
    assert len(drawn) == 4 * len(rows)  # first token and per token, measured and ours
    largest = max(abs(row[f"{key}_error"]) for row in rows for key in ("ttft", "tpot"))
    assert result["summary"]["measured_error_pct"] == pytest.approx(largest * 100, rel=1e-4)


def test_the_fit_is_offered_and_once_applied_leaves_a_smaller_error(
        compared: tuple[str, dict[str, Any]]) -> None:
    name, result = compared
    summary = result["summary"]
    assert summary["latencies"] == "the physics as it is"
    offer = result["apply"]
    assert offer["inputs"] == {"ttft_scale": summary["fitted_ttft_scale"],
                               "tpot_scale": summary["fitted_tpot_scale"]}
    assert summary["fitted_error_pct"] < summary["measured_error_pct"]
    fitted = _run(name, **offer["inputs"])
    assert "apply" not in fitted
    assert fitted["summary"]["latencies"] == "fitted to your measurements"
    assert fitted["summary"]["measured_error_pct"] == pytest.approx(
        summary["fitted_error_pct"], rel=1e-4)
    if "guidellm" not in name:  # one point: the fit meets it, to the scales' two decimals
        assert fitted["summary"]["measured_error_pct"] < 1.0


def test_nothing_measured_adds_nothing_but_the_same_keys() -> None:
    result = plan.simulate()
    summary = result["summary"]
    assert (summary["measured_points"], summary["fitted_ttft_scale"],
            summary["fitted_tpot_scale"], summary["latencies"]) == (
        0, 1.0, 1.0, "the physics as it is")
    assert result["tables"][-1]["rows"] == [] and "apply" not in result
    assert "load a results file" in result["charts"][-1]["title"]["text"]


def test_scales_without_measurements_are_said_to_be_by_hand() -> None:
    summary = plan.simulate(ttft_scale=1.2)["summary"]
    assert summary["latencies"] == "scaled by hand (first token x1.2, per token x1)"


@pytest.mark.parametrize(("value", "match"), [
    ("hello", "does not name a tool"),
    ("vllm p50", "1 to 16 points expected, got 0"),
    ("vllm p42; c16 55 15", "does not name a tool"),
    ("vllm p50 gpt-5; c16 55 15", "'gpt-5' is not a model of the catalogue"),
    ("vllm p50; x16 55 15", "is not a point"),
    ("vllm p50; c16 fast 15", "'fast' is not a time"),
    ("vllm p50; c0 55 15", "a load from 1 to 4096 users"),
])
def test_a_malformed_value_is_refused_naming_measured_with_an_example(value: str,
                                                                      match: str) -> None:
    with pytest.raises(InputError, match=match) as caught:
        plan.simulate(measured=value)
    assert caught.value.input == "measured"
    assert compare.EXAMPLE in str(caught.value)


def test_a_measured_set_up_that_cannot_hold_the_model_names_its_gpus() -> None:
    with pytest.raises(InputError, match="the measured set-up: .* does not fit") as caught:
        plan.simulate(measured="vllm p50 llama-3.1-70b; c16 55 15")
    assert caught.value.input == "measured_gpus"


def test_a_file_names_a_model_as_the_catalogue_does() -> None:
    assert compare.catalogue_model("meta-llama/Llama-3.1-70B-Instruct") == "llama-3.1-70b"
    assert compare.catalogue_model("Qwen/Qwen3-30B-A3B-Instruct-2507") == "qwen3-30b-a3b"
    assert compare.catalogue_model("mistralai/Mistral-7B") is None


def test_the_command_line_prints_the_comparison(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["plan", "--model", "llama-3.1-8b", "--isl", "1000", "--osl", "200",
            "--concurrency", "16", "--ttft_s", "1", "--tpot_s", "0.05", "--gpu", "h100",
            "--measured", str(FIXTURES / FILES[2]), "--measured_gpu", "h100"]
    assert cli.main(argv) == 0
    found = json.loads(capsys.readouterr().out)["measured"]
    assert found["tool"] == "genai-perf" and found["setup"]["gpu"] == "h100"
    [point] = found["points"]
    assert point["measured_ttft_s"] == pytest.approx(0.0842)
    assert point["ttft_error"] == pytest.approx(point["ttft_s"] / 0.0842 - 1, rel=1e-4)
    assert set(found["fitted"]) == {"ttft_scale", "tpot_scale"}


def test_the_command_line_refuses_a_truncated_file(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    cut = tmp_path / "cut.json"
    cut.write_text(_text(FILES[0])[:300])
    argv = ["plan", "--model", "llama-3.1-8b", "--rate", "2", "--ttft_s", "1",
            "--tpot_s", "0.05", "--measured", str(cut)]
    assert cli.main(argv) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: measured: {cut}: not JSON (cut short")


def test_a_files_lengths_get_a_spread_that_breaks_the_lock_step_and_little_more() -> None:
    """compare.BENCHMARK_SPREAD: with lengths all alike a closed loop stays in lock-step and
    the median first token is several times what it is once the users drift apart; from
    the spread chosen to twice it, it moves by a few percent."""
    setup = compare.SetUp("llama-3.1-8b", "vllm", "h100", 1, "tp", "native", "bf16")
    row = compare.Row(16, 0.0, 1000, 200, None, None)
    target = Target(1.0, 0.05, 0.9)

    def first_token(spread: float) -> float:
        return compare.predict(setup, row, 1000, 200, spread, target, "p50")[0]

    chosen = first_token(compare.BENCHMARK_SPREAD)
    assert first_token(0.0) > 3 * chosen
    assert first_token(2 * compare.BENCHMARK_SPREAD) == pytest.approx(chosen, rel=0.05)
