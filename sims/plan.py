"""Plan a deployment: the set-ups that serve a model's traffic within a latency target,
cheapest first, with what each costs and what limits it; and those ruled out, with why.

The search (sims.planning) weighs every GPU type of the catalogue, GPUs per replica, tensor
or expert parallelism, weight and KV formats, batch limit and token budget, aggregated or
disaggregated serving. Exact checks rule set-ups out; a steady-state estimate from a few
priced steps gives each one's highest per-replica load within the target; the cheapest are
then run through `serve` itself (python -m sims serve) at their share of the load, adding
replicas until serve's own percentiles meet the target. `setups` lists those verified,
cheapest first, with serve's latencies; `estimated` the next candidates by the estimate
alone (disaggregated ones always: serve runs one pool, sims/planning/disaggregated.py says
what that estimate leaves out); `ruled_out` every other set-up with its reason.

Prices are the catalogue's on-demand list prices (each with its source and date) unless
the reader gives their own; a GPU with neither is ruled out. `ttft_scale` and `tpot_scale`
multiply the model's latencies ("fitted to your measurements": sims.planning.fit finds them
from a benchmark's results file), 1 being the physics as it is.

Compare with what you measured: `measured` holds a results file's points (vllm bench serve,
GuideLLM, genai-perf; `read_file` turns the file into this compact line, whose format
sims/planning/compare.py states), and `measured_*` the set-up that was measured. The result
then draws each point over serve's prediction for that set-up and load, tables each error,
and offers (`apply`) the scales that fit them. Nothing is measured by default, and the plan
then costs nothing more.
"""

from __future__ import annotations

from typing import Any

from sims import plan_charts
from sims.kit.contract import Choice, Number, Text, simulation
from sims.physics import GPUS, LAYOUTS
from sims.physics.model_choice import model_for, model_inputs
from sims.physics.precision import PRECISIONS, WEIGHT_FORMATS
from sims.planning import compare, tables
from sims.planning.ask import lengths, make_ask
from sims.planning.feasibility import share_label
from sims.planning.search import plan as search
from sims.planning.workloads import DEFAULT_WORKLOAD, WORKLOADS
from sims.serving.deploy import MAX_GPUS, MAX_TOKENS
from sims.serving.engines import ENGINES

TITLE = "Plan a deployment: which GPUs, how many, split how, and what it costs"
# Issue 41: the default search within about 0.3 s natively, 3 s in a browser.
WORST_MS = 3000
# And on its page (make bench's interaction group): the first ranked answer within 0.5 s of
# a change, the whole search within 3 s. The search answers in one run, so both are the
# time to the result on screen.
PAGE_ANSWER_MS = 500
PAGE_COMPLETE_MS = 3000
LOADS = ("rate", "concurrency")

INPUTS = (
    *model_inputs("llama-3.1-70b"),
    Choice("workload", "Workload", DEFAULT_WORKLOAD, (*WORKLOADS, "custom"),
           help="A preset's prompt and answer lengths and spread; custom: the three below."),
    Number("isl", "Prompt tokens (custom)", default=1000, min=1, max=MAX_TOKENS // 2,
           unit="tokens", help="Mean prompt length, for a custom workload."),
    Number("osl", "Answer tokens (custom)", default=250, min=1, max=MAX_TOKENS // 2,
           unit="tokens", help="Mean answer length, for a custom workload."),
    Number("length_spread", "Length spread (custom)", default=0.5, min=0.0, max=2.0,
           step=0.05, help="Coefficient of variation of both lengths (log-normal)."),
    Choice("load", "Load given as", "rate", LOADS,
           help="rate: requests per second, Poisson; concurrency: users in a closed loop."),
    Number("rate", "Request rate", default=10.0, min=0.01, max=10_000.0, step=0.01,
           unit="requests/s"),
    Number("concurrency", "Concurrent users", default=64, min=1, max=10_000, unit="users"),
    Number("ttft_s", "Target: first token within", default=1.0, min=0.01, max=600.0,
           step=0.01, unit="s"),
    Number("tpot_s", "Target: each later token within", default=0.05, min=0.001, max=10.0,
           step=0.001, unit="s"),
    Number("percentile", "Target percentile", default=90.0, min=50.0, max=99.9, step=0.1,
           help="Share of requests (%) that must meet both targets."),
    Choice("gpu", "GPUs", "all", ("all", *GPUS), help="Every GPU type, or one."),
    Choice("engine", "Engine", "vllm", tuple(ENGINES)),
    *(Number(f"price_{key}", f"Price of a {gpu.name} GPU-hour",
             default=gpu.price_per_gpu_hour or 0.0, min=0.0, max=1000.0, step=0.01,
             unit="USD/h", help="0: no price, and the GPU is ruled out. The default is a "
                                "dated on-demand list price; its source is on the catalogue "
                                "page." if gpu.price_per_gpu_hour else
                                "The catalogue has no cited price: give one to plan with it.")
      for key, gpu in GPUS.items()),
    Number("ttft_scale", "First-token times x", default=1.0, min=0.1, max=10.0, step=0.01,
           help="Scales the model's first-token times (fitted to your measurements)."),
    Number("tpot_scale", "Per-token times x", default=1.0, min=0.1, max=10.0, step=0.01,
           help="Scales the model's per-token times (fitted to your measurements)."),
    Text("measured", "Measured points", max_length=600, file=".json,application/json",
         help="Load the JSON results file of vllm bench serve (--save-result), GuideLLM "
              "or genai-perf (profile_export_genai_perf.json): it is read on your device, "
              "never uploaded, and its points are kept here."),
    Choice("measured_gpu", "Measured on: GPU", "h100", tuple(GPUS),
           help="The GPU type of the run you measured (the file does not say)."),
    Number("measured_gpus", "Measured on: GPUs per replica", default=1, min=1,
           max=MAX_GPUS, unit="GPUs"),
    Choice("measured_parallel", "Measured on: parallelism", "tp", LAYOUTS),
    Choice("measured_weights", "Measured on: weights' format", "native",
           ("native", *WEIGHT_FORMATS), help="native: the checkpoint's own."),
    Choice("measured_kv", "Measured on: KV cache's format", "bf16", PRECISIONS),
)

METRICS = {
    "met": "Some set-up meets the target",
    "best_gpu": "Cheapest set-up: GPU",
    "best_gpus_per_replica": "Cheapest set-up: GPUs per replica (GPUs)",
    "best_parallel": "Cheapest set-up: parallelism",
    "best_weights": "Cheapest set-up: weights' format",
    "best_kv": "Cheapest set-up: KV cache's format",
    "best_replicas": "Cheapest set-up: replicas (replicas)",
    "best_gpus": "Cheapest set-up: GPUs in all (GPUs)",
    "best_cost_per_hour": "Cheapest set-up: cost per hour (USD/h)",
    "best_cost_per_million_output_tokens": "Cheapest set-up: cost per million output "
                                           "tokens (USD)",
    "best_binding_limit": "Cheapest set-up: the limit that binds",
    "best_ttft_s": "Cheapest set-up: first token at the target percentile, serve's (s)",
    "best_tpot_s": "Cheapest set-up: time per output token at the target percentile, "
                   "serve's (s)",
    "setups_searched": "Set-ups searched (set-ups)",
    "setups_ruled_out": "Set-ups ruled out, each with its reason (set-ups)",
    "candidates": "Set-ups the estimate admits (set-ups)",
    "serve_runs": "Runs of serve spent verifying (runs)",
    "measured_points": "Measured points compared (points)",
    "measured_error_pct": "Largest error of the latencies shown against the measured (%)",
    "fitted_ttft_scale": "First-token times x, fitted to your measurements (1: none loaded)",
    "fitted_tpot_scale": "Per-token times x, fitted to your measurements (1: none loaded)",
    "fitted_error_pct": "Largest error left after fitting (%)",
    "latencies": "The latencies shown: the physics as it is, scaled by hand, or fitted to "
                 "your measurements",
    "accuracy": "Regime of the cheapest set-up's decode step and the measured error there, "
                "and how far the engine's served runs were from published ones",
}


def given_prices(values: dict[str, Any]) -> dict[str, float | None]:
    """The price inputs as {gpu: USD/h}, those that differ from the catalogue's; a 0 means
    none (the GPU is then ruled out, whatever the catalogue says)."""
    given: dict[str, float | None] = {}
    for key, gpu in GPUS.items():
        value = values[f"price_{key}"]
        if value != (gpu.price_per_gpu_hour or 0.0):
            given[key] = value or None
    return given


def summary_of(result: dict[str, Any], share: float,
               measured: dict[str, Any] | None = None) -> dict[str, Any]:
    best = result["setups"][0] if result["setups"] else None
    label = f"p{share_label(share)}"
    summary: dict[str, Any] = {"met": best is not None}
    for field in ("gpu", "gpus_per_replica", "parallel", "weights", "kv", "replicas", "gpus",
                  "cost_per_hour", "cost_per_million_output_tokens", "binding_limit"):
        summary[f"best_{field}"] = best[field] if best else (
            "none" if field in ("gpu", "parallel", "weights", "kv", "binding_limit") else 0)
    summary["best_ttft_s"] = best["ttft_s"][label] if best else 0.0
    summary["best_tpot_s"] = best["tpot_s"][label] if best else 0.0
    summary["setups_searched"] = result["searched"]
    summary["setups_ruled_out"] = len(result["ruled_out"])
    summary["candidates"] = result["candidates"]
    summary["serve_runs"] = result["serve_runs"]
    summary.update(measured or compared_summary(None, 1.0, 1.0))
    summary["accuracy"] = result["accuracy"]
    return summary


def compared_summary(found: dict[str, Any] | None, ttft_scale: float, tpot_scale: float
                     ) -> dict[str, Any]:
    """The comparison's summary figures (the same keys when nothing is measured)."""
    if (ttft_scale, tpot_scale) == (1.0, 1.0):
        latencies = "the physics as it is"
    elif found and found["is_fitted"]:
        latencies = "fitted to your measurements"
    else:
        latencies = f"scaled by hand (first token x{ttft_scale:g}, per token x{tpot_scale:g})"
    return {"measured_points": len(found["rows"]) if found else 0,
            "measured_error_pct": found["error"] * 100 if found else 0.0,
            "fitted_ttft_scale": found["fitted"][0] if found else 1.0,
            "fitted_tpot_scale": found["fitted"][1] if found else 1.0,
            "fitted_error_pct": found["fitted_error"] * 100 if found else 0.0,
            "latencies": latencies}


def read_file(name: str, text: str) -> str:
    """A results file (vllm bench serve, GuideLLM, genai-perf) as the `measured` value."""
    if name != "measured":
        raise ValueError(f"{name}: not an input a file fills")
    return compare.read_file(text)


def searched(result: dict[str, Any]) -> int:
    """The set-ups a run weighed (make bench's set-ups per second)."""
    return int(result["summary"]["setups_searched"])


@simulation(INPUTS)
def simulate(**values: Any) -> dict[str, Any]:
    isl, osl, spread = lengths(values["workload"], values["isl"], values["osl"],
                               values["length_spread"])
    gpus = tuple(GPUS) if values["gpu"] == "all" else (values["gpu"],)
    by_rate = values["load"] == "rate"
    ask = make_ask(model_for(values["model"], values["model_config"]), values["engine"], gpus,
                   isl, osl, spread, values["rate"] if by_rate else 0.0,
                   0 if by_rate else values["concurrency"], values["ttft_s"],
                   values["tpot_s"], values["percentile"], given_prices(values),
                   values["ttft_scale"], values["tpot_scale"])
    measured = compare.decode(values["measured"])
    found = None
    if measured:
        found = compare.compare(measured, compare.measured_setup(measured, values), isl, osl,
                                spread, ask.target,
                                values["ttft_scale"], values["tpot_scale"])
    result = search(ask)
    statistic = measured.statistic if measured else "p50"
    answer = {
        "summary": summary_of(result, ask.target.share, compared_summary(
            found, values["ttft_scale"], values["tpot_scale"])),
        "charts": [plan_charts.frontier_chart(result["frontier"], values["tpot_s"],
                                              ask.model.name,
                                              tuple(GPUS)),
                   plan_charts.measured_chart(found["rows"] if found else [], statistic)],
        "tables": [*tables.plan_tables(result, ask.target.share),
                   tables.compared_table(found, statistic)],
        **result,
    }
    if found and not found["is_fitted"]:
        ttft, tpot = found["fitted"]
        answer["apply"] = {"label": f"Scale to fit your measurements (first token x{ttft:g}, "
                                    f"per token x{tpot:g})",
                           "inputs": {"ttft_scale": ttft, "tpot_scale": tpot}}
    return answer
