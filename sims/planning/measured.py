"""Reading a benchmark's results file: `vllm bench serve`, GuideLLM, NVIDIA genai-perf.

Standard library only: the same code reads a file the reader drops on the page (in the
browser, never uploaded) and one given to a test. Each parser returns the file's measured
points in one shape (`Point`: the load, then first-token, per-token and inter-token times in
seconds at the percentiles the file gives, and throughput); a file of the wrong shape, or a
truncated one, raises ValueError saying what is wrong and what to give instead.

Where the field names come from:

- vLLM, `vllm bench serve --save-result` (vllm/benchmarks/serve.py; before it
  benchmarks/benchmark_serving.py): one JSON object, the run's settings (`request_rate`,
  "inf" for all at once; `max_concurrency`, null for none; `num_prompts`) merged with its
  metrics: `completed`, `duration`, `request_throughput`, `output_throughput`, and for each
  of ttft, tpot, itl and e2el `mean_<m>_ms`, `median_<m>_ms`, `std_<m>_ms` and
  `p<P>_<m>_ms` for each percentile of --metric-percentiles (99 by default); with
  --save-detailed also `input_lens`, `output_lens`, `ttfts`, `itls`.
- GuideLLM, its JSON report (benchmarks.json; src/guidellm/benchmark/schemas/generative/
  metrics.py, GenerativeMetrics): {"benchmarks": [...]}, each benchmark with its scheduling
  `strategy` (`type_` synchronous, concurrent with `streams`, constant or poisson with
  `rate`, throughput) under `config` (older reports: `args`), and `metrics`:
  `time_to_first_token_ms`, `inter_token_latency_ms` (decode only, (last - first) /
  (tokens - 1): vLLM's TPOT), `time_per_output_token_ms` (which includes the first token),
  `output_tokens_per_second`, `requests_per_second`, `request_concurrency`, each a status
  distribution whose `successful` part has `mean`, `median` and `percentiles` (p50, p90,
  p99, ...).
- NVIDIA genai-perf, profile_export_genai_perf.json (its successor AIPerf writes the same
  keys to profile_export_aiperf.json): one object per metric, `time_to_first_token`,
  `inter_token_latency` (per request, (last - first) / (tokens - 1)), `request_latency`,
  `output_token_throughput`, `request_throughput`, `output_sequence_length`,
  `input_sequence_length`, each with its `unit` and `avg`, `p50`, `p90`, `p99` (and
  min, max, std, p25, p75, p95); the load under `input_config` (`concurrency` or
  `request_rate`, in AIPerf under `loadgen`).
"""

from __future__ import annotations

import json
import math
from typing import Any, NamedTuple

SHARES = ("mean", "p50", "p90", "p95", "p99")
UNITS = {"ms": 1e-3, "s": 1.0, "sec": 1.0, "us": 1e-6, "ns": 1e-9}


class Point(NamedTuple):
    """One measured run, in seconds and per second."""

    tool: str
    concurrency: float | None  # users in a closed loop
    rate: float | None  # requests per second offered (None: all at once or unknown)
    ttft_s: dict[str, float]  # by "mean", "p50", "p90", "p99", ... (those given)
    tpot_s: dict[str, float]
    itl_s: dict[str, float]
    output_tokens_per_s: float | None
    requests_per_s: float | None
    isl: float | None
    osl: float | None

    def plain(self) -> dict[str, Any]:
        return self._asdict()


def _number(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(
            value):
        raise ValueError(f"{where} is {value!r}, not a number: give the results file as "
                         f"the tool wrote it, unedited")
    return float(value)


def _positive(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        and math.isfinite(value) and value > 0 else None


# -- vLLM --------------------------------------------------------------------------------

VLLM_HINT = ("give the JSON `vllm bench serve --save-result` writes (it has completed, "
             "mean_ttft_ms, mean_tpot_ms, output_throughput)")


def parse_vllm(data: Any) -> list[Point]:
    """A `vllm bench serve` saved result: one point."""
    if not isinstance(data, dict):
        raise ValueError(f"a vLLM result is one JSON object; {VLLM_HINT}")
    missing = [k for k in ("completed", "mean_ttft_ms", "mean_tpot_ms", "output_throughput")
               if k not in data]
    if missing:
        raise ValueError(f"not a complete vLLM result: {', '.join(missing)} missing; "
                         f"{VLLM_HINT}")
    if not data["completed"]:
        raise ValueError("the vLLM run completed no request: there is nothing to compare; "
                         "give a run whose requests succeeded")

    def stats(metric: str) -> dict[str, float]:
        found = {}
        for key, value in data.items():
            if not key.endswith(f"_{metric}_ms") or key.startswith("std_"):
                continue
            head = key[: -len(f"_{metric}_ms")]
            label = {"mean": "mean", "median": "p50"}.get(head, head)
            if label == "mean" or (label.startswith("p") and label[1:].replace(".", "")
                                   .isdigit()):
                number = _number(value, key)
                if number is not None:
                    found[label] = number / 1000
        return found

    rate = data.get("request_rate")
    lens = data.get("input_lens"), data.get("output_lens")
    return [Point(
        "vllm", _positive(data.get("max_concurrency")),
        _positive(rate) if rate != "inf" else None,
        stats("ttft"), stats("tpot"), stats("itl"),
        _number(data["output_throughput"], "output_throughput"),
        _number(data.get("request_throughput"), "request_throughput"),
        sum(lens[0]) / len(lens[0]) if isinstance(lens[0], list) and lens[0] else None,
        sum(lens[1]) / len(lens[1]) if isinstance(lens[1], list) and lens[1] else None,
    )]


# -- GuideLLM ----------------------------------------------------------------------------

GUIDELLM_HINT = ("give GuideLLM's JSON report (benchmarks.json, written with --output-path "
                 "...json): {\"benchmarks\": [...]} with each benchmark's metrics")


def _distribution(metrics: dict[str, Any], name: str, scale: float, where: str
                  ) -> dict[str, float]:
    summary = metrics.get(name)
    if summary is None:
        return {}
    part = summary.get("successful") if isinstance(summary, dict) else None
    if not isinstance(part, dict):
        raise ValueError(f"{where}.{name} has no successful distribution; {GUIDELLM_HINT}")
    found = {}
    if "mean" in part:
        found["mean"] = _number(part["mean"], f"{where}.{name}.mean") * scale
    percentiles = part.get("percentiles") or {}
    for key in ("p50", "p90", "p95", "p99"):
        if key in percentiles:
            found[key] = _number(percentiles[key], f"{where}.{name}.{key}") * scale
    if "p50" not in found and "median" in part:
        found["p50"] = _number(part["median"], f"{where}.{name}.median") * scale
    return found


def parse_guidellm(data: Any) -> list[Point]:
    """A GuideLLM report: one point per benchmark (per load of its sweep)."""
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        raise ValueError(f"not a GuideLLM report: no list of benchmarks; {GUIDELLM_HINT}")
    if not data["benchmarks"]:
        raise ValueError(f"the GuideLLM report holds no benchmark; {GUIDELLM_HINT}")
    points = []
    for index, bench in enumerate(data["benchmarks"]):
        where = f"benchmarks[{index}]"
        metrics = bench.get("metrics") if isinstance(bench, dict) else None
        if not isinstance(metrics, dict) or "time_to_first_token_ms" not in metrics:
            raise ValueError(f"{where} has no metrics with time_to_first_token_ms; "
                             f"{GUIDELLM_HINT}")
        settings = bench.get("config") or bench.get("args") or {}
        strategy = settings.get("strategy") if isinstance(settings, dict) else None
        strategy = strategy if isinstance(strategy, dict) else {}
        kind = strategy.get("type_")
        users = 1.0 if kind == "synchronous" else _positive(strategy.get("streams"))
        rate = _positive(strategy.get("rate")) if kind in ("constant", "poisson") else None
        throughput = _distribution(metrics, "output_tokens_per_second", 1.0, where)
        requests = _distribution(metrics, "requests_per_second", 1.0, where)
        prompts = _distribution(metrics, "prompt_token_count", 1.0, where)
        outputs = _distribution(metrics, "output_token_count", 1.0, where)
        decode = _distribution(metrics, "inter_token_latency_ms", 1e-3, where)
        points.append(Point(
            "guidellm", users, rate,
            _distribution(metrics, "time_to_first_token_ms", 1e-3, where),
            decode, decode, throughput.get("mean"), requests.get("mean"),
            prompts.get("mean"), outputs.get("mean")))
    return points


# -- genai-perf --------------------------------------------------------------------------

GENAI_HINT = ("give genai-perf's profile_export_genai_perf.json (or AIPerf's "
              "profile_export_aiperf.json): time_to_first_token, inter_token_latency, ... "
              "each with its unit")


def _metric(data: dict[str, Any], name: str) -> dict[str, float]:
    entry = data.get(name)
    if entry is None:
        return {}
    if not isinstance(entry, dict):
        raise ValueError(f"{name} is not a metric object with a unit; {GENAI_HINT}")
    unit = entry.get("unit", "ms")
    scale = UNITS.get(unit)
    if scale is None:
        raise ValueError(f"{name} is in {unit!r}, not a unit of time this reader knows "
                         f"(ms, s, us, ns); {GENAI_HINT}")
    found = {}
    for key, label in (("avg", "mean"), ("p50", "p50"), ("p90", "p90"), ("p95", "p95"),
                       ("p99", "p99")):
        if key in entry:
            found[label] = _number(entry[key], f"{name}.{key}") * scale
    return found


def parse_genai_perf(data: Any) -> list[Point]:
    """A genai-perf (or AIPerf) profile export: one point."""
    if not isinstance(data, dict) or "time_to_first_token" not in data:
        raise ValueError(f"not a genai-perf profile export: no time_to_first_token; "
                         f"{GENAI_HINT}")
    settings = data.get("input_config") or {}
    load = settings.get("loadgen", settings) if isinstance(settings, dict) else {}
    load = load if isinstance(load, dict) else {}

    def avg(name: str) -> float | None:
        entry = data.get(name)
        return _number(entry.get("avg"), f"{name}.avg") if isinstance(entry, dict) else None

    itl = _metric(data, "inter_token_latency")
    return [Point("genai-perf", _positive(load.get("concurrency")),
                  _positive(load.get("request_rate")), _metric(data, "time_to_first_token"),
                  itl, itl, avg("output_token_throughput"), avg("request_throughput"),
                  avg("input_sequence_length"), avg("output_sequence_length"))]


# -- any of them -------------------------------------------------------------------------

def parse(text: str) -> list[Point]:
    """A results file's text, whichever of the three tools wrote it."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON (cut short, or not a results file): {error.msg} at line "
                         f"{error.lineno}, column {error.colno}; give the JSON file the "
                         f"benchmark wrote, whole") from None
    if isinstance(data, dict) and "benchmarks" in data:
        return parse_guidellm(data)
    if isinstance(data, dict) and "time_to_first_token" in data:
        return parse_genai_perf(data)
    if isinstance(data, dict) and any(k.endswith("_ttft_ms") for k in data):
        return parse_vllm(data)
    raise ValueError("not a results file this page reads: give the JSON of `vllm bench "
                     "serve --save-result` (mean_ttft_ms, ...), GuideLLM's report "
                     "({\"benchmarks\": [...]}) or genai-perf's profile export "
                     "(time_to_first_token, ...)")
