"""Each sim's run time natively (CPython): at its defaults and at its most expensive inputs.

"Most expensive" is searched, not guessed: a sim may declare `WORST_CASE` (a mapping of
inputs) and it is tried first; then every corner of the declared ranges (each number at its
minimum or maximum, each choice at every option) when there are few enough corners, and
otherwise a coordinate search from the defaults (each input in turn set to whichever
extreme or choice is slowest, twice round). Inputs a sim refuses together (a minimum above
a maximum) are skipped. Each candidate is timed by the best of a few runs; the winner is
then timed properly (median of many runs of CPU time).
"""

from __future__ import annotations

import itertools
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sims
from bench.stats import median
from sims.kit import memo
from sims.kit.contract import Choice, Number, Text, defaults

CORNER_LIMIT = 256  # beyond this many corners, search coordinate-wise
PROBE_RUNS = 2  # per candidate: the best of these
FINAL_RUNS = 15  # for the reported figures: the median of these
ROUNDS = 2  # coordinate search passes
FINALISTS = 3  # slowest candidates timed properly

Clock = Callable[[], float]


@dataclass
class SimTiming:
    """One sim's figures (ms) and the inputs of its most expensive run."""

    module: str
    defaults_ms: float
    worst_ms: float
    worst_inputs: dict[str, Any]
    candidates: int


def extremes(spec: Number | Choice | Text) -> list[Any]:
    """The values of an input worth trying: its range's ends, or every choice (a text: its
    default; what else it may hold is the sim's own format)."""
    if isinstance(spec, Choice):
        return list(spec.choices)
    if isinstance(spec, Text):
        return [spec.default]
    return list(dict.fromkeys((spec.min, spec.max)))


def corners(inputs: tuple[Number | Choice | Text, ...]) -> Iterator[dict[str, Any]]:
    """Every combination of every input's extremes."""
    names = [spec.name for spec in inputs]
    for values in itertools.product(*(extremes(spec) for spec in inputs)):
        yield dict(zip(names, values, strict=True))


def corner_count(inputs: tuple[Number | Choice | Text, ...]) -> int:
    count = 1
    for spec in inputs:
        count *= len(extremes(spec))
    return count


def time_run(simulate: Callable[..., Any], inputs: Mapping[str, Any], runs: int,
             clock: Clock = time.process_time) -> list[float] | None:
    """Durations (ms) of `runs` calls, or None when the sim refuses these inputs.

    CPU time of this process, not wall time: a sim is single-threaded, and on a shared
    machine other processes' work would otherwise be counted as the sim's. The runs a sim
    keeps between changes (`sims.kit.memo`) are forgotten before each call: the same inputs
    again would otherwise time a lookup, not the run."""
    durations = []
    for _ in range(runs):
        memo.forget()
        start = clock()
        try:
            simulate(**inputs)
        except ValueError:
            return None
        durations.append((clock() - start) * 1000)
    return durations


def _probe(simulate: Callable[..., Any], inputs: Mapping[str, Any]) -> float | None:
    durations = time_run(simulate, inputs, PROBE_RUNS)
    return min(durations) if durations else None


def search_worst(module: str) -> tuple[list[dict[str, Any]], int]:
    """The most expensive inputs found for `module` (the FINALISTS slowest, slowest
    first), and how many inputs were tried."""
    sim = sims.load(module)
    tried: dict[str, float] = {}

    def cost(inputs: dict[str, Any]) -> float:
        key = repr(sorted(inputs.items()))
        if key not in tried:
            tried[key] = _probe(sim.simulate, inputs) or -1.0  # refused: never the worst
        return tried[key]

    candidates: list[dict[str, Any]] = [defaults(sim.INPUTS)]
    declared = getattr(sim, "WORST_CASE", None)
    if declared:
        candidates.append({**defaults(sim.INPUTS), **declared})
    if corner_count(sim.INPUTS) <= CORNER_LIMIT:
        candidates.extend(corners(sim.INPUTS))
    else:  # from the defaults, the declared case and the two all-min/all-max corners
        ends = [{spec.name: extremes(spec)[side] for spec in sim.INPUTS} for side in (0, -1)]
        for start in [*candidates, *ends]:
            current = dict(start)
            for _ in range(ROUNDS):
                for spec in sim.INPUTS:
                    options = [{**current, spec.name: value} for value in extremes(spec)]
                    current = max([current, *options], key=cost)
            candidates.append(current)
    ranked = sorted(candidates, key=cost, reverse=True)
    unique = list({repr(sorted(c.items())): c for c in ranked}.values())
    return unique[:FINALISTS], len(tried)


def measure(module: str) -> SimTiming:
    """Defaults and most expensive inputs of one sim, timed (medians of FINAL_RUNS; the
    few slowest candidates of the search are all timed so, and the slowest reported)."""
    sim = sims.load(module)
    sim.simulate()  # first call: imports and caches warm, as on a page after loading
    at_defaults = time_run(sim.simulate, {}, FINAL_RUNS)
    if at_defaults is None:
        raise RuntimeError(f"{module} refuses its own defaults")
    finalists, tried = search_worst(module)
    timed = [(median(time_run(sim.simulate, inputs, FINAL_RUNS) or [-1.0]), inputs)
             for inputs in finalists]
    timed.append((median(at_defaults), defaults(sim.INPUTS)))  # the defaults may be worst
    worst_ms, worst = max(timed, key=lambda item: item[0])
    return SimTiming(module, median(at_defaults), worst_ms, worst, tried)


def measure_all() -> list[SimTiming]:
    return [measure(module) for module in sims.sim_names()]


def serve_cli_s(runs: int = 5) -> float:
    """`python -m sims serve` at its defaults (500 requests), as a user runs it: a fresh
    interpreter each time (start-up, imports, pricing the step table, the run, the JSON).
    The median of `runs` runs' CPU time (user and system, from the children's rusage), so
    that other work on a shared machine is not counted."""
    times = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "sims", "serve"], check=True,
                       stdout=subprocess.DEVNULL, cwd=Path(sims.__file__).parent.parent)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return median(times)
