"""Fit one all-reduce implementation of a profile: for each of its algorithms (the ones its
file names: a ring and an in-switch reduction for NCCL, one-shot and two-shot kernels for an
engine's own), a latency for each number of GPUs its training points have and a share of the
links' bandwidth, all fitted together since the fastest algorithm prices each point."""

from __future__ import annotations

import math

from calibrate.fit import Fitted, search
from calibrate.harness import Harness, Point
from sims.physics import profile
from sims.physics.profile import TRAFFIC


def fit_all_reduce(harness: Harness, key: str, implementation: str,
                   training: list[Point]) -> Fitted:
    base = harness.profiles[key]
    groups = sorted({point.point.case.gpus for point in training})
    kinds = [algorithm.traffic for algorithm in base.all_reduce[implementation].algorithms]
    first = kinds[0]

    def own(kind: str, n: int) -> str:
        """Whose latency `kind` has at n GPUs: its own, or the first algorithm's where the
        two move the same traffic (one-shot, ring and in-switch all move S over 2 GPUs), so
        no point could tell them apart."""
        same = TRAFFIC[kind](n) == TRAFFIC[first](n)
        return f"{first if same else kind}_latency_{n}"

    start = {own(kind, n): 1e-5 * (1 + index) for index, kind in enumerate(kinds)
             for n in groups}
    start |= {f"{kind}_bus_efficiency": 0.5 for kind in kinds}

    def build(values: dict[str, float]) -> profile.AllReduceFit:
        return profile.AllReduceFit(tuple(
            profile.AllReduceAlgorithm(kind, {n: values[own(kind, n)] for n in groups},
                                       values[f"{kind}_bus_efficiency"])
            for kind in kinds))

    def loss_of(candidate: profile.AllReduceFit) -> float:
        table = {**base.all_reduce, implementation: candidate}
        gpus = harness.gpus_under({key: base._replace(all_reduce=table)})
        return sum(math.log(harness.ratio(point, gpus)) ** 2 for point in training)

    found = build(search(start, build, loss_of))
    return Fitted(found, len(training), tuple(sorted({p.file for p in training})))
