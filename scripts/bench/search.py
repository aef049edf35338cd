"""A search sim's speed: the set-ups one run weighs, per second of its CPU time.

A sim that searches (the planner, sims/plan.py) declares `searched(result)`; the bench then
prints how many set-ups it weighs per second natively (the sims group, CPython) and in the
browser (the interaction group: the CPU of the page and Python's worker within a change).
"""

from __future__ import annotations

from typing import Any

from bench.report import Figure


def setups_per_s(sim: Any, result: Any, where: str, how: str) -> list[Figure]:
    """`sim`'s set-ups per second over `result`'s time per run (a native timing's defaults,
    or a page's changes); none for a sim that does not search."""
    if not hasattr(sim, "searched"):
        return []
    count = sim.searched(sim.simulate())
    per_run_ms = (result.cpu_p50_ms if where == "in the browser" else result.defaults_ms)
    return [Figure("interaction" if where == "in the browser" else "sims",
                   f"{result.module}: set-ups searched per second, {where}",
                   count / (per_run_ms / 1000), "set-ups/s",
                   note=f"{count:,} set-ups at the defaults over {per_run_ms:.0f} ms ({how})")]
