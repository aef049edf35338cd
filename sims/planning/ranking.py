"""Verification order: aggregated candidates cheapest first through `serve`, replicas
added until serve's own percentiles meet the target (sims.planning.verify says why the
order is exact). One batch limit per (physics, budget) runs; the others keep their
estimates, raised to what serve showed of their physics.
"""

from __future__ import annotations

import heapq
from typing import Any

from sims.kit import progress
from sims.planning import verify
from sims.planning.estimate import Target
from sims.planning.groups import Ask, Candidate, Group
from sims.planning.groups import cost as cost_of
from sims.planning.report import entry, estimated_entry

MOST_VERIFIED = 5
MOST_RUNS = 16
MOST_RUNS_FOR_ONE = 32  # until one set-up is verified, runs may go on to this many
# A plan's steps as its progress counts them: the estimates, then each run of serve.
STEPS = 1 + MOST_RUNS_FOR_ONE


def verify_cheapest(ask: Ask, groups: dict[tuple, Group], candidates: list[Candidate],
            target: Target, label: str, share: float
            ) -> tuple[list[dict[str, Any]], int, list[dict[str, Any]]]:
    """Cheapest first through serve (the module's docstring; verify's for the order)."""
    # Ties in cost go to the set-up whose estimate serves the most, then the search's order.
    order = sorted(range(len(candidates)),
                   key=lambda i: (cost_of(candidates[i], candidates[i].replicas),
                                  -candidates[i].capacity.rate, -candidates[i].setup.max_batch,
                                  i))
    rank = {index: place for place, index in enumerate(order)}
    # One batch limit per (physics, budget) goes to serve: the cheapest by the estimate. A
    # smaller limit only caps the batch, so where the larger one misses at a count of
    # replicas it misses too; those set-ups keep their estimates.
    chosen: dict[tuple, int] = {}
    for index in order:
        chosen.setdefault((candidates[index].setup.physics,
                           candidates[index].setup.token_budget), index)
    picked = set(chosen.values())
    heap = [(cost_of(c, c.replicas), rank[index], index, c.replicas, 0, None)
            for index, c in enumerate(candidates) if index in picked]
    left: list[tuple] = [(cost_of(c, c.replicas), rank[index], index, c.replicas, 0, None)
                         for index, c in enumerate(candidates) if index not in picked]
    heapq.heapify(heap)
    verified: list[dict[str, Any]] = []
    done: set[tuple] = set()  # physics verified: its other knobs cost no less, skip them
    runs = 0
    most = ask.load.most_replicas()
    while heap and len(verified) < MOST_VERIFIED:
        cost, place, index, replicas, failed_below, result = heapq.heappop(heap)
        candidate = candidates[index]
        if result is not None:
            verified.append(entry(ask, candidate, replicas, result, label, share, index))
            done.add(candidate.setup.physics)
            continue
        if candidate.setup.physics in done:
            left.append((cost, place, index, replicas, failed_below, None))
            continue
        if runs >= (MOST_RUNS if verified or runs >= MOST_RUNS_FOR_ONE else MOST_RUNS_FOR_ONE):
            heapq.heappush(heap, (cost, place, index, replicas, failed_below, None))
            break
        group = groups[candidate.setup.physics]
        setup = candidate.setup
        progress.report(1 + runs, STEPS, f"Running serve on the cheapest set-ups "
                                         f"({len(verified)} verified so far)")
        try:
            found = verify.run(group.gpu, ask.model, ask.engine, setup.gpus, setup.parallel,
                               group.precision, ask.isl, ask.osl, ask.spread, ask.load,
                               replicas, setup.max_batch, setup.token_budget, target)
        except ValueError:
            runs += 1  # a longer request of a longer run does not fit: drop it
            continue
        runs += 1
        if verify.meets(found, target):
            if replicas - failed_below > 1 and failed_below:
                # After a jump: bisect back toward the last count that missed.
                lower = (replicas + failed_below) // 2
                if lower > failed_below:
                    heapq.heappush(heap, (cost_of(candidate, lower), place, index, lower,
                                          failed_below, None))
                    continue
            heapq.heappush(heap, (cost, place, index, replicas, failed_below, found))
            continue
        more = verify.next_count(replicas, found, target)
        if most is not None and replicas >= most:
            continue  # every user on a replica of their own already misses
        if most is not None:
            more = min(more, most)
        heapq.heappush(heap, (cost_of(candidate, more), place, index, more, replicas, None))
    seen = {entry.pop("_index") for entry in verified}
    # What serve showed of each (physics, budget): at least this many replicas. A batch
    # variant left out of the runs needs no fewer (module docstring of verify).
    fewest: dict[tuple, int] = {}
    for _, _, index, replicas, _, _ in heap:
        setup = candidates[index].setup
        fewest[(setup.physics, setup.token_budget)] = replicas
    rest = []
    for _, place, index, replicas, _, _ in heap + left:
        if index in seen:
            continue
        setup = candidates[index].setup
        count = max(replicas, fewest.get((setup.physics, setup.token_budget), 0))
        rest.append((cost_of(candidates[index], count), place, index, count))
    estimated = [estimated_entry(ask, candidates[index], count)
                 for _, _, index, count in sorted(rest)]
    return verified, runs, estimated

