"""`python -m sims plan`: the command line other tools call (the contract of issue 41).

    python -m sims plan --model M --isl I --osl O (--rate R | --concurrency C)
                        --ttft_s X --tpot_s Y [--percentile P] [--gpu G,G,...] [--engine E]
                        [--workload W] [--length_spread S] [--price G=USD,...]
                        [--ttft_scale F] [--tpot_scale F]
                        [--measured FILE [--measured_gpu G] [--measured_gpus N]
                         [--measured_parallel tp|ep] [--measured_weights F] [--measured_kv F]]

Each value is checked by the sim's own input (sims/plan.py: the same ranges and messages);
a workload preset gives the lengths and spread, and an explicit --isl, --osl or
--length_spread overrides its own. It prints one JSON object: the inputs as understood,
then the plan (sims.planning.search: `setups`, `estimated`, `ruled_out`, ...), and with
--measured (a results file of vllm bench serve, GuideLLM or genai-perf) `measured`: each
point measured against serve's prediction for the set-up given by the --measured_* options,
with its error, and the scales that fit them (sims/planning/compare.py).
"""

from __future__ import annotations

from typing import Any

from sims import plan as sim
from sims.kit.contract import Input, InputError, normalise
from sims.physics.model_choice import compact, model_for
from sims.planning import compare
from sims.planning.ask import lengths, make_ask
from sims.planning.prices import parse_prices
from sims.planning.search import plan
from sims.planning.workloads import WORKLOADS

# The command line's options: the sim's inputs it shares, and its own.
SHARED = ("model", "model_config", "workload", "isl", "osl", "length_spread", "rate", "concurrency",
          "ttft_s", "tpot_s", "percentile", "engine", "ttft_scale", "tpot_scale",
          "measured_gpu", "measured_gpus", "measured_parallel", "measured_weights",
          "measured_kv")
OWN = {"gpu": "GPU types to consider, comma-separated (default: every one in the catalogue)",
       "price": "prices per GPU-hour in US dollars, e.g. h100=2.5,b200=6 (default: the "
                "catalogue's cited on-demand prices)",
       "measured": "a results file to compare with: the JSON of vllm bench serve "
                   "--save-result, GuideLLM's report or genai-perf's "
                   "profile_export_genai_perf.json"}
SPECS: dict[str, Input] = {spec.name: spec for spec in sim.INPUTS if spec.name in SHARED}


def options() -> list[tuple[str, str]]:
    """(name, help) of every option, for the command's parser."""
    return ([(name, f"{spec.label}: {spec.allowed()} (default {spec.default})")
             for name, spec in SPECS.items()] + list(OWN.items()))


def plan_json(given: dict[str, str]) -> dict[str, Any]:
    """What `python -m sims plan` prints for the options given (strings, as parsed)."""
    values = {name: SPECS[name].parse(value) for name, value in given.items()
              if name in SPECS}
    if "rate" in given and "concurrency" in given:
        raise InputError("rate", "give --rate (Poisson arrivals) or --concurrency (a closed "
                                 "loop of users), not both")
    workload = values.get("workload", SPECS["workload"].default)
    preset = WORKLOADS.get(workload)
    isl, osl, spread = lengths(workload, values.get("isl", preset.isl if preset else 1000),
                               values.get("osl", preset.osl if preset else 250),
                               values.get("length_spread",
                                          preset.spread if preset else 0.5))
    isl = values.get("isl", isl)
    osl = values.get("osl", osl)
    spread = values.get("length_spread", spread)
    gpus = tuple(g.strip() for g in given.get("gpu", ",".join(sim.GPUS)).split(",")
                 if g.strip())
    prices = parse_prices(given.get("price", ""))
    default = {spec.name: spec.default for spec in SPECS.values()}
    pick = {**default, **values}
    users = pick["concurrency"] if "concurrency" in given else 0
    rate = 0.0 if users else pick["rate"]
    ask = make_ask(model_for(pick["model"], pick["model_config"]), pick["engine"], gpus, isl,
                   osl, spread, rate, users, pick["ttft_s"], pick["tpot_s"],
                   pick["percentile"], prices, pick["ttft_scale"], pick["tpot_scale"])
    shown = {"model": pick["model"],
             **({"model_config": compact(pick["model_config"])} if pick["model_config"] else {}),
             "engine": pick["engine"], "gpu": list(gpus),
             "isl": isl, "osl": osl, "length_spread": spread,
             **({"concurrency": users} if users else {"rate": rate}),
             "ttft_s": pick["ttft_s"], "tpot_s": pick["tpot_s"],
             "percentile": pick["percentile"], "prices": prices,
             "ttft_scale": pick["ttft_scale"], "tpot_scale": pick["tpot_scale"]}
    found = _measured(given.get("measured"), pick, isl, osl, spread, ask)
    return normalise({"inputs": shown, **plan(ask), **found})


def _measured(path: str | None, pick: dict[str, Any], isl: int, osl: int, spread: float,
              ask: Any) -> dict[str, Any]:
    """`{"measured": ...}` for a results file given with --measured, else nothing."""
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except OSError as error:
        raise InputError("measured", f"cannot read {path}: {error.strerror}") from None
    try:
        value = compare.read_file(text)
    except ValueError as error:
        raise InputError("measured", f"{path}: {error}") from None
    measured = compare.decode(value)
    assert measured is not None
    setup = compare.measured_setup(measured, pick)
    found = compare.compare(measured, setup, isl, osl, spread, ask.target,
                            pick["ttft_scale"], pick["tpot_scale"])
    return {"measured": {
        "tool": measured.tool, "statistic": measured.statistic, "setup": setup._asdict(),
        "value": value, "points": found["rows"],
        "fitted": {"ttft_scale": found["fitted"][0], "tpot_scale": found["fitted"][1]},
        "error": found["error"], "fitted_error": found["fitted_error"],
        "latencies": sim.compared_summary(found, pick["ttft_scale"],
                                          pick["tpot_scale"])["latencies"]}}
