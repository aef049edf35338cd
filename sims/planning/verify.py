"""The cheapest candidates run through `serve` itself, so that what a plan reports is
`serve`'s own latencies, not the estimate's.

A candidate is a set-up with the replicas its estimated capacity needs for the load. It is
run as one replica at its share of the load (`deploy.served_run`: a rate's share as Poisson
arrivals, or the busiest replica's share of the users, ceil(users / replicas), in a closed
loop), over enough requests to reach its steady state (`requests_for`) with a fixed seed.
If serve's percentiles miss the target, replicas are added and the run repeated; after a
jump of more than one replica, the count is bisected back so that one replica fewer is known
to miss. The estimate is built
to be optimistic, so that the first count tried is not above what the set-up needs; that is
checked on samples (tests/sims/test_plan.py: cheaper set-ups, and the best one with a replica
fewer, all miss under serve), not proven.

Candidates are taken cheapest first from a heap ordered by cost at their current replica
count: a candidate that fails goes back with its higher cost, and a verified one is final
when it comes out on top again. Since no count below a candidate's estimate can meet the
target, the verified set-ups come out in cost order: as far as the estimate is optimistic,
no set-up of the search that it admits is cheaper than one reported before it.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from sims.physics import Gpu, Model, Precision
from sims.planning.estimate import VERIFY_REQUESTS, Target, burst_requests
from sims.serving.deploy import figures, served_run
from sims.serving.engines import Engine
from sims.serving.workload import percentile

SEED = 0
MOST_RATE_REQUESTS = 1500


class Load(NamedTuple):
    """The whole load: a rate (requests/s) or a number of users."""

    rate: float  # 0 in a closed loop
    users: int  # 0 under a rate

    def share(self, replicas: int) -> tuple[float, int]:
        """(rate, users) of the busiest replica."""
        if self.users:
            return 0.0, math.ceil(self.users / replicas)
        return self.rate / replicas, 0

    def most_replicas(self) -> int | None:
        """Beyond this many replicas a closed loop gives some replicas nobody."""
        return self.users or None


class Run(NamedTuple):
    """One serve run of a replica: the target's percentiles, and the benchmark's figures."""

    ttft_s: float
    tpot_s: float
    figures: dict[str, Any]
    requests: int


def requests_for(users: int, rate: float, target: Target, osl: float) -> int:
    """Requests one run sends: a closed loop's at least three rounds of its users; a rate's
    at least three times what a replica meeting the target holds in flight (Little's law:
    the rate times the first-token target plus the answer at the per-token target), so the
    run reaches its steady state. A long answer at a high rate keeps hundreds in flight, and
    a run of fewer would end before the replica is ever as full as it would be."""
    if users:
        return burst_requests(users)
    in_flight = rate * (target.ttft_s + max(0.0, osl - 1) * target.tpot_s)
    return min(MOST_RATE_REQUESTS, max(VERIFY_REQUESTS, 3 * math.ceil(in_flight)))


def run(gpu: Gpu, model: Model, engine: Engine, gpus: int, layout: str,
        precision: Precision, isl: int, osl: int, spread: float, load: Load, replicas: int,
        max_batch: int, budget: int, target: Target) -> Run:
    """One replica at its share of the load, through serve."""
    rate, users = load.share(replicas)
    count = requests_for(users, rate, target, osl)
    served, outputs = served_run(gpu, model, engine, gpus, layout, precision, isl, osl,
                                 count, spread, SEED, users, rate or 1.0, max_batch, budget)
    ttft = sorted(first - at for first, at in zip(served.first_token, served.sent,
                                                  strict=True))
    tpot = sorted((end - first) / (n - 1) for first, end, n in
                  zip(served.first_token, served.finished, outputs, strict=True) if n > 1)
    return Run(percentile(ttft, target.share), percentile(tpot, target.share) if tpot else 0.0,
               figures(served, outputs, gpus), count)


def meets(found: Run, target: Target) -> bool:
    return found.ttft_s <= target.ttft_s and found.tpot_s <= target.tpot_s


def next_count(replicas: int, found: Run, target: Target) -> int:
    """Replicas to try after a miss: one more, or more when serve missed by far (its
    latencies over the target, a rough guide to how much more load was asked for)."""
    miss = max(found.ttft_s / target.ttft_s, found.tpot_s / target.tpot_s)
    return max(replicas + 1, math.ceil(replicas * min(2.0, miss ** 0.5)))
