"""Results files (vLLM bench serve, GuideLLM, genai-perf) read into one shape, refused with a
clear message when they are not what the tool writes, and the two-factor fit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sims.planning import fit, measured

FIXTURES = Path(__file__).parent / "fixtures" / "results"


def _text(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_a_vllm_result_reads_as_one_point_in_seconds() -> None:
    [point] = measured.parse(_text("vllm_bench_serve.json"))
    assert point.tool == "vllm" and point.concurrency == 16 and point.rate is None
    assert point.ttft_s["mean"] == pytest.approx(0.06134)
    assert point.ttft_s["p50"] == pytest.approx(0.05512)
    assert point.ttft_s["p99"] == pytest.approx(0.1319)
    assert point.tpot_s["p90"] == pytest.approx(0.0169)
    assert point.itl_s["p99"] == pytest.approx(0.0447)
    assert point.output_tokens_per_s == pytest.approx(961.07)


def test_a_guidellm_report_reads_as_one_point_per_benchmark() -> None:
    points = measured.parse(_text("guidellm_report.json"))
    assert [(p.concurrency, p.rate) for p in points] == [(1.0, None), (32.0, None),
                                                         (None, 6.0)]
    assert points[1].ttft_s["p90"] == pytest.approx(0.231)
    # GuideLLM's inter-token latency is vLLM's TPOT (its own TPOT counts the first token).
    assert points[1].tpot_s["p50"] == pytest.approx(0.0155)
    assert points[1].output_tokens_per_s == pytest.approx(1921.0)
    assert points[0].isl == 1000.0 and points[0].osl == 200.0


def test_a_genai_perf_export_reads_with_its_units() -> None:
    [point] = measured.parse(_text("profile_export_genai_perf.json"))
    assert point.tool == "genai-perf" and point.concurrency == 16
    assert point.ttft_s["p99"] == pytest.approx(0.2204)
    assert point.tpot_s["mean"] == pytest.approx(0.0201)
    assert point.requests_per_s == pytest.approx(3.91)
    assert point.isl == 1000.0


@pytest.mark.parametrize("name", ["vllm_bench_serve.json", "guidellm_report.json",
                                  "profile_export_genai_perf.json"])
def test_a_truncated_file_is_refused_saying_so(name: str) -> None:
    text = _text(name)
    with pytest.raises(ValueError, match="not JSON .*give the JSON file the benchmark wrote"):
        measured.parse(text[: len(text) // 2])


@pytest.mark.parametrize(("data", "match"), [
    ([1, 2, 3], "not a results file this page reads"),
    ({"hello": "world"}, "not a results file this page reads"),
    ({"mean_ttft_ms": 3.0}, "not a complete vLLM result: completed, mean_tpot_ms, "
                            "output_throughput missing"),
    ({"mean_ttft_ms": 3.0, "completed": 0, "mean_tpot_ms": 1, "output_throughput": 0},
     "completed no request"),
    ({"mean_ttft_ms": "fast", "completed": 3, "mean_tpot_ms": 1, "output_throughput": 9},
     "mean_ttft_ms is 'fast', not a number"),
    ({"benchmarks": []}, "holds no benchmark"),
    ({"benchmarks": [{"metrics": {}}]}, r"benchmarks\[0\] has no metrics"),
    ({"time_to_first_token": {"unit": "furlongs", "avg": 3}}, "not a unit of time"),
    ({"time_to_first_token": 12}, "not a metric object"),
])
def test_a_malformed_file_is_refused_with_what_to_give(data: object, match: str) -> None:
    with pytest.raises(ValueError, match=match) as caught:
        measured.parse(json.dumps(data))
    assert "give" in str(caught.value)


def test_the_fit_recovers_one_factor_per_latency() -> None:
    scales = fit.fit_scales([(0.1, 0.2), (0.3, 0.6)], [(0.01, 0.015), (0.02, 0.03)])
    assert scales.ttft_scale == pytest.approx(2.0)
    assert scales.tpot_scale == pytest.approx(1.5)
    assert scales.ttft_error == pytest.approx(0.0, abs=1e-12)


def test_the_fit_skips_points_without_a_load_or_the_statistic() -> None:
    points = measured.parse(_text("guidellm_report.json"))
    scales = fit.fit_points(points, lambda p: (p.ttft_s["p50"] / 2, p.tpot_s["p50"] * 2))
    assert scales.ttft_points == 3 and scales.ttft_scale == pytest.approx(2.0)
    assert scales.tpot_scale == pytest.approx(0.5)


def test_the_fit_against_serve_brings_its_latencies_onto_the_measured_ones() -> None:
    points = measured.parse(_text("profile_export_genai_perf.json"))
    setup = {"model": "llama-3.1-8b", "gpu": "h100", "gpus": 1, "weights": "bf16",
             "kv": "bf16", "engine": "vllm", "requests": 200}
    predict = fit.serve_predictor(setup)
    scales = fit.fit_points(points, predict)
    ttft, tpot = predict(points[0])
    assert ttft * scales.ttft_scale == pytest.approx(points[0].ttft_s["p50"])
    assert tpot * scales.tpot_scale == pytest.approx(points[0].tpot_s["p50"])
