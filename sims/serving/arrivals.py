"""The requests a serving sim replays, and the percentiles it reports them by.

Arrivals are a Poisson process: independent exponential gaps at the request rate, drawn
from a generator seeded with a fixed number, so the same inputs give the same requests on
every run and in every runtime. Each gap is -log(1 - u) / rate from one `random()` draw u:
the generator's sequence for an integer seed is the same integer arithmetic under CPython and
Pyodide, which the library's own samplers, whose code may change between Python versions,
do not promise. Every request of a run has the same prompt and
reply lengths: the arrivals alone make the load uneven, which keeps what a chart shows
traceable to one cause.

Percentiles are nearest-rank (the smallest value with at least that share of the samples at
or below it), so a p99 is always a latency some request really saw.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from typing import NamedTuple

SEED = 19  # any fixed number: the page states that the arrivals are one seeded draw


class Request(NamedTuple):
    """One request: when it arrives and how much work it brings."""

    index: int
    arrival_s: float
    prompt_tokens: int
    output_tokens: int  # tokens of the reply, the first one included


def poisson_requests(rate_per_s: float, count: int, prompt_tokens: int, output_tokens: int,
                     seed: int = SEED) -> list[Request]:
    """`count` requests arriving as a Poisson process at `rate_per_s`, from time 0."""
    if rate_per_s <= 0 or count < 1:
        raise ValueError(f"need a positive rate and at least one request, got {rate_per_s}, "
                         f"{count}")
    uniform = random.Random(seed).random
    requests, clock = [], 0.0
    for index in range(count):
        clock += -math.log(1 - uniform()) / rate_per_s
        requests.append(Request(index, clock, prompt_tokens, output_tokens))
    return requests


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile of `values` (`share` in (0, 1])."""
    if not values:
        raise ValueError("no values to take a percentile of")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def weighted_quantiles(samples: Iterable[tuple[float, float]], shares: Sequence[float]
                       ) -> list[float]:
    """Nearest-rank percentiles, one for each of `shares` (ascending, in (0, 1]), of values
    given as (value, how many times it occurred); one sort for all of them."""
    ordered = sorted(samples)
    total = sum(weight for _, weight in ordered)
    if total <= 0:
        raise ValueError("no samples to take a percentile of")
    found, seen, values = [], 0.0, iter(ordered)
    value = ordered[0][0]
    for share in shares:
        # A hair of slack: share * total can fall a rounding error above a count it equals.
        while seen < share * total * (1 - 1e-12):
            value, weight = next(values, (ordered[-1][0], total))
            seen += weight
        found.append(value)
    return found


def weighted_percentile(samples: Iterable[tuple[float, float]], share: float) -> float:
    """Nearest-rank percentile of values given with how many times each occurred."""
    return weighted_quantiles(samples, [share])[0]
