"""The reader's question as the planner takes it: one place that turns validated inputs
(from the sim's controls or the command line) into an `Ask`, so both ask the same thing."""

from __future__ import annotations

from sims.kit.contract import InputError
from sims.physics import GPUS, Model
from sims.planning.estimate import Target
from sims.planning.groups import Ask
from sims.planning.verify import Load
from sims.planning.workloads import WORKLOADS
from sims.serving.engines import ENGINES


def lengths(workload: str, isl: int, osl: int, spread: float) -> tuple[int, int, float]:
    """A preset's lengths and spread, or (workload "custom") the ones given."""
    if workload == "custom":
        return isl, osl, spread
    preset = WORKLOADS[workload]
    return preset.isl, preset.osl, preset.spread


def make_ask(model: Model, engine: str, gpus: tuple[str, ...], isl: int, osl: int,
             spread: float, rate: float, users: int, ttft_s: float, tpot_s: float,
             percentile: float, prices: dict[str, float | None], ttft_scale: float = 1.0,
             tpot_scale: float = 1.0) -> Ask:
    """An Ask from plain values (already range-checked by the caller's inputs) and the
    model (sims.physics.model_choice.model_for)."""
    if rate <= 0 and users <= 0:
        raise InputError("rate", "expected a load above zero: requests per second, or "
                                 "concurrent users")
    for key in gpus:
        if key not in GPUS:
            raise InputError("gpu", f"expected GPUs of the catalogue ({', '.join(GPUS)}), "
                                    f"got {key!r}")
    if not gpus:
        raise InputError("gpu", "expected at least one GPU")
    return Ask(model, ENGINES[engine], tuple(GPUS[k] for k in gpus), isl, osl,
               spread, Load(rate if not users else 0.0, users),
               Target(ttft_s, tpot_s, percentile / 100), prices, ttft_scale, tpot_scale)
