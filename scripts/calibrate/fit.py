"""Fit a profile's constants for one kernel class and format to its training points alone.

Each class's constants are the fields of its fit (sims.physics.profile); the fit minimizes
the sum over the category's training points of log(ours / measured)^2 (a point 20% off
weighs as much at 5 µs as at 5 ms), by Nelder-Mead from a fixed set of starting values, so
that the same points always give the same constants. Shares of peak stay in (0, 1] and times and
counts above 0 (each is searched through a transform that keeps it there).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
from scipy.optimize import minimize

from calibrate.harness import Harness, Point
from sims.physics import profile

# Where each class's search starts, in the fit's own units (seconds, shares, passes).
START: dict[str, dict[str, float]] = {
    "gemm": {"compute_efficiency": 0.7, "memory_efficiency": 0.8, "fixed_s": 5e-6,
             "k_step_s": 1e-10},
    "prefill_attention": {"compute_efficiency": 0.5, "memory_passes": 2.0, "fixed_s": 2e-5,
                          "per_sequence_head_s": 5e-8},
    "decode_attention": {"memory_efficiency": 0.8, "unit_share": 0.1, "fixed_s": 1e-5,
                         "per_sequence_s": 5e-8},
    "moe": {"memory_efficiency": 0.8, "fixed_s": 2.5e-5, "per_row_s": 2e-9},
}
MOE_TILES = (0, 16, 32, 64, 128)  # rows per tile an MoE kernel may run in (0: unpadded)
STARTS, SPREAD, SEED = 4, 0.7, 38  # starts per search, their spread (search units), the seed
SHARES = {"compute_efficiency", "memory_efficiency", "unit_share", "bus_efficiency"}
CLASSES = {"gemm": profile.GemmFit, "prefill_attention": profile.PrefillAttentionFit,
           "decode_attention": profile.DecodeAttentionFit, "moe": profile.MoeFit}


class Fitted(NamedTuple):
    fit: Any  # the class's fit (a sims.physics.profile NamedTuple)
    points: int  # training points it was fitted to
    files: tuple[str, ...]  # the calibration sets they come from


def to_search(name: str, value: float) -> float:
    if name in SHARES:
        value = min(max(value, 1e-6), 1 - 1e-9)
        return math.log(value / (1 - value))
    return math.log(max(value, 1e-15))


def from_search(name: str, value: float) -> float:
    if name in SHARES:
        return 1 / (1 + math.exp(-value))
    return math.exp(value)


def search(start: dict[str, float], build: Callable[[dict[str, float]], Any],
           loss_of: Callable[[Any], float]) -> dict[str, float]:
    """The values of `start`'s fields that minimize `loss_of(build(values))`."""
    names = list(start)

    def loss(x: Sequence[float]) -> float:
        values = {name: from_search(name, v) for name, v in zip(names, x, strict=True)}
        return loss_of(build(values))

    x0 = np.array([to_search(name, start[name]) for name in names])
    # Nelder-Mead stops in the first valley it finds: it starts again from the fixed start
    # moved a set way along each axis (the same moves every run, so the same points give the
    # same constants), then once more from the best, whose simplex is fresh.
    moves = np.random.default_rng(SEED).normal(0.0, SPREAD, (STARTS - 1, len(names)))
    best = min((_minimize(loss, x0 + move) for move in [np.zeros(len(names)), *moves]),
               key=lambda found: found.fun)
    best = _minimize(loss, best.x)
    return {name: from_search(name, v) for name, v in zip(names, best.x, strict=True)}


def _minimize(loss: Callable[[Sequence[float]], float], x0: Any) -> Any:
    return minimize(loss, x0, method="Nelder-Mead",
                    options={"xatol": 1e-7, "fatol": 1e-10, "maxiter": 20000, "maxfev": 20000})


def fit_class(harness: Harness, key: str, cls: str, variant: str,
              training: list[Point]) -> Fitted:
    """The `cls` fit of profile `key` for `variant` that best prices `training`."""
    base = harness.profiles[key]

    def build(values: dict[str, float]) -> Any:
        return CLASSES[cls](**values)

    def loss_of(candidate: Any) -> float:
        table = {**getattr(base, cls), variant: candidate}
        gpus = harness.gpus_under({key: base._replace(**{cls: table})})
        return sum(math.log(harness.ratio(point, gpus)) ** 2 for point in training)

    if cls != "moe":
        values = search(START[cls], build, loss_of)
        return Fitted(build(values), len(training), tuple(sorted({p.file for p in training})))
    # An MoE kernel's tile is a whole number of rows: each candidate is fitted in turn and
    # the one that prices the training points best is kept.
    candidates = []
    for tile in MOE_TILES:
        def tiled(values: dict[str, float], tile: int = tile) -> Any:
            return profile.MoeFit(**values, tile_rows=tile)

        found = tiled(search(START[cls], tiled, loss_of))
        candidates.append((loss_of(found), tile, found))
    best = min(candidates, key=lambda entry: (entry[0], entry[1]))[2]
    return Fitted(best, len(training), tuple(sorted({p.file for p in training})))
