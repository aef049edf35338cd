"""Scaling the model's latencies to fit measured points ("fitted to your measurements").

A results file gives first-token and per-token times at a few loads; `serve` predicts the
same figures for the same set-up and loads. The physics can be off by a factor for reasons it
does not model (an engine's version, a kernel it does not know): one factor on first-token
times and one on per-token times, each the least-squares fit in log space (the geometric
mean of measured / predicted over the points that have both), is the smallest correction
that says so honestly, and the planner applies it to every latency it reports
(sims/plan.py's `ttft_scale` and `tpot_scale`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import NamedTuple

from sims.planning.measured import Point
from sims.serving.deploy import serve_json


class Scales(NamedTuple):
    """The two factors, with the points each rests on and the error left after fitting
    (the geometric spread: exp of the RMS of the log residuals, minus one)."""

    ttft_scale: float
    tpot_scale: float
    ttft_points: int
    tpot_points: int
    ttft_error: float
    tpot_error: float


def _factor(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    """(factor, residual spread) minimising sum of log(measured / (factor predicted))^2."""
    logs = [math.log(measured / predicted) for predicted, measured in pairs
            if predicted > 0 and measured > 0]
    if not logs:
        return 1.0, 0.0
    mean = sum(logs) / len(logs)
    spread = math.sqrt(sum((x - mean) ** 2 for x in logs) / len(logs))
    return math.exp(mean), math.expm1(spread)


def fit_scales(ttft: Iterable[tuple[float, float]], tpot: Iterable[tuple[float, float]]
               ) -> Scales:
    """The factors from (predicted, measured) pairs of first-token and per-token times."""
    first, later = list(ttft), list(tpot)
    (a, ea), (b, eb) = _factor(first), _factor(later)
    return Scales(a, b, len(first), len(later), ea, eb)


def fit_points(points: Iterable[Point], predict: Callable[[Point], tuple[float, float]],
               statistic: str = "p50") -> Scales:
    """Fit to measured points: `predict(point)` gives the model's (TTFT, TPOT) at the
    point's load for the same `statistic` (p50, p90, mean, ...); points that do not give
    that statistic, or no load, are skipped."""
    ttft, tpot = [], []
    for point in points:
        if point.concurrency is None and point.rate is None:
            continue
        predicted_ttft, predicted_tpot = predict(point)
        if statistic in point.ttft_s:
            ttft.append((predicted_ttft, point.ttft_s[statistic]))
        if statistic in point.tpot_s:
            tpot.append((predicted_tpot, point.tpot_s[statistic]))
    return fit_scales(ttft, tpot)


def serve_predictor(inputs: dict[str, object], statistic: str = "p50"
                    ) -> Callable[[Point], tuple[float, float]]:
    """A `predict` for fit_points: `serve` with these inputs (a set-up's `serve` entry of a
    plan, or the reader's own) at each measured point's load, its `statistic` of TTFT and
    TPOT. A point's own lengths, where the file gives them, replace the inputs'."""
    def predict(point: Point) -> tuple[float, float]:
        given = {k: v for k, v in inputs.items() if k not in ("rate", "concurrency")}
        if point.concurrency is not None:
            given["concurrency"] = max(1, round(point.concurrency))
        elif point.rate is not None:
            given["rate"] = point.rate
        for name, value in (("isl", point.isl), ("osl", point.osl)):
            if value:
                given[name] = max(1, round(value))
        served = serve_json(given)
        key = "mean" if statistic == "mean" else statistic
        return served["ttft_s"][key], (served["tpot_s"] or {}).get(key, 0.0)
    return predict
