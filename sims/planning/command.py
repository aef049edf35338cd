"""`python -m sims plan`: the command line other tools call (the contract of issue 41).

    python -m sims plan --model M --isl I --osl O (--rate R | --concurrency C)
                        --ttft_s X --tpot_s Y [--percentile P] [--gpu G,G,...] [--engine E]
                        [--workload W] [--length_spread S] [--price G=USD,...]
                        [--ttft_scale F] [--tpot_scale F]

Each value is checked by the sim's own input (sims/plan.py: the same ranges and messages);
a workload preset gives the lengths and spread, and an explicit --isl, --osl or
--length_spread overrides its own. It prints one JSON object: the inputs as understood,
then the plan (sims.planning.search: `setups`, `estimated`, `ruled_out`, ...).
"""

from __future__ import annotations

from typing import Any

from sims import plan as sim
from sims.kit.contract import Input, InputError, normalise
from sims.planning.ask import lengths, make_ask
from sims.planning.prices import parse_prices
from sims.planning.search import plan
from sims.planning.workloads import WORKLOADS

# The command line's options: the sim's inputs it shares, and its own.
SHARED = ("model", "workload", "isl", "osl", "length_spread", "rate", "concurrency",
          "ttft_s", "tpot_s", "percentile", "engine", "ttft_scale", "tpot_scale")
OWN = {"gpu": "GPU types to consider, comma-separated (default: every one in the catalogue)",
       "price": "prices per GPU-hour in US dollars, e.g. h100=2.5,b200=6 (default: the "
                "catalogue's cited on-demand prices)"}
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
    workload = values.get("workload", sim.INPUTS[1].default)
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
    ask = make_ask(pick["model"], pick["engine"], gpus, isl, osl, spread, rate, users,
                   pick["ttft_s"], pick["tpot_s"], pick["percentile"], prices,
                   pick["ttft_scale"], pick["tpot_scale"])
    shown = {"model": pick["model"], "engine": pick["engine"], "gpu": list(gpus),
             "isl": isl, "osl": osl, "length_spread": spread,
             **({"concurrency": users} if users else {"rate": rate}),
             "ttft_s": pick["ttft_s"], "tpot_s": pick["tpot_s"],
             "percentile": pick["percentile"], "prices": prices,
             "ttft_scale": pick["ttft_scale"], "tpot_scale": pick["tpot_scale"]}
    return normalise({"inputs": shown, **plan(ask)})
