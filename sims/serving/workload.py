"""Requests for the sims that put a replica under load: when they arrive and how long they are.

Every sim that draws traffic takes it from here (goodput and kv_memory do), so that "a
prompt of 1,024 tokens on average, spread 1" means the same thing on every page.

The contract other sims rely on: `draw(count, seed, arrivals, prompt_mean, output_mean,
spread, prompt_cap, output_cap)` returns a tuple of `count` `Request`s sorted by arrival,
the first at time 0, with arrival times for a rate of one request per second (divide by a
rate to get seconds; `sims.serving.replica.serve` does) and whole-token lengths in [1, cap]; the
same arguments give the same requests under CPython and Pyodide. `lognormal` and `gap` are
the single draws it is made of, for a sim that builds its own stream; `percentile` is the
quantile every load figure is read with.

Lengths are log-normal with a given mean and coefficient of variation (the spread: the
standard deviation over the mean). Spread 0 makes every request the same; spread 1 gives
the long right tail that chat and retrieval traffic shows (many short requests, a few very
long ones). Each draw is rounded to a whole token and clipped to [1, the cap].

Arrivals are a Poisson process (gaps exponential, coefficient of variation 1), or bursty:
gaps from a balanced mixture of two exponentials with the same mean and a coefficient of
variation of BURSTY_CV (a hyperexponential distribution), so requests come in clumps
separated by lulls. Gaps are drawn at rate 1 and scaled, so a sweep over rates replays the
very same traffic faster or slower (common random numbers: the curve against rate is
smooth, not reshuffled at every point).

Every draw goes through `random.Random.random()` and `math`: the generator's sequence for
an integer seed is the same in CPython and Pyodide, which the library's own samplers
(whose code changes between Python versions) do not promise.
"""

from __future__ import annotations

import math
import random
from typing import NamedTuple

from sims.kit import memo

ARRIVALS = ("poisson", "bursty")
BURSTY_CV = 3.0  # coefficient of variation of the gaps between bursty arrivals
# A balanced two-phase hyperexponential with squared CV c2: with probability p a gap has
# mean 1/(2p), else 1/(2(1-p)); its mean is 1 and its squared CV is c2.
_C2 = BURSTY_CV ** 2
_P = (1 + math.sqrt((_C2 - 1) / (_C2 + 1))) / 2


class Request(NamedTuple):
    """One request: when it arrives (s, at rate 1 until scaled), its prompt and its answer."""

    arrival: float
    prompt_tokens: int
    output_tokens: int


def lognormal(rng: random.Random, mean: float, spread: float, cap: int) -> int:
    """One length with this mean and coefficient of variation, in [1, cap] tokens."""
    if spread <= 0:
        return _fixed(mean, cap)
    return _length(_normal(rng), *_shape(mean, spread), cap)


def _fixed(mean: float, cap: int) -> int:
    """Every length, when lengths do not spread."""
    return max(1, min(cap, round(mean)))


def _normal(rng: random.Random) -> float:
    """One standard normal draw, by Box-Muller from two uniforms; 1 - u keeps the logarithm's
    argument above zero."""
    return math.sqrt(-2 * math.log(1 - rng.random())) * math.cos(2 * math.pi * rng.random())


def _shape(mean: float, spread: float) -> tuple[float, float]:
    """The log-normal's location and scale for this mean and coefficient of variation."""
    sigma2 = math.log1p(spread * spread)
    return math.log(mean) - sigma2 / 2, math.sqrt(sigma2)


def _length(normal: float, location: float, scale: float, cap: int) -> int:
    """The length a standard normal draw gives, in [1, cap] tokens."""
    return max(1, min(cap, round(math.exp(location + scale * normal))))


def gap(rng: random.Random, arrivals: str) -> float:
    """One gap between arrivals at rate 1 (mean 1 s)."""
    if arrivals == "poisson":
        return -math.log(1 - rng.random())
    mean = 1 / (2 * _P) if rng.random() < _P else 1 / (2 * (1 - _P))
    return -mean * math.log(1 - rng.random())


@memo.kept(maxsize=8)
def draw(
    count: int, seed: int, arrivals: str, prompt_mean: float, output_mean: float,
    spread: float, prompt_cap: int, output_cap: int,
) -> tuple[Request, ...]:
    """`count` requests at rate 1, the first arriving at time 0.

    A tuple, and remembered: a reader who moves an input the traffic does not depend on
    gets the very same requests, which the load sims' own caches of runs are keyed by."""
    if arrivals not in ARRIVALS:
        raise ValueError(f"arrivals must be one of {', '.join(ARRIVALS)}, got {arrivals!r}")
    clocks, prompt_normals, output_normals = _stream(count, seed, arrivals, spread > 0)
    if spread > 0:
        location, scale = _shape(prompt_mean, spread)
        prompts = [_length(z, location, scale, prompt_cap) for z in prompt_normals]
        location, scale = _shape(output_mean, spread)
        outputs = [_length(z, location, scale, output_cap) for z in output_normals]
    else:
        prompts = [_fixed(prompt_mean, prompt_cap)] * count
        outputs = [_fixed(output_mean, output_cap)] * count
    return tuple(map(Request, clocks, prompts, outputs))


@memo.kept(maxsize=8)
def _stream(count: int, seed: int, arrivals: str, spread: bool
            ) -> tuple[list[float], list[float], list[float]]:
    """The random part of `draw`, which the lengths' means and spread do not change: each
    request's arrival at rate 1 and, if the lengths spread, the standard normal draws its
    prompt and answer come from, in the generator's order (gap, prompt, answer). Kept, so
    that moving a mean or the spread redraws nothing. Only read."""
    rng = random.Random(seed)
    clocks, prompts, outputs = [], [], []
    clock = 0.0
    for index in range(count):
        if index:
            clock += gap(rng, arrivals)
        clocks.append(clock)
        if spread:
            prompts.append(_normal(rng))
            outputs.append(_normal(rng))
    return clocks, prompts, outputs


def percentile(ordered: list[float], share: float) -> float:
    """The `share` quantile of sorted values, interpolated between ranks (numpy's default,
    "linear"): p99 of 200 values lies between the 198th and 199th smallest."""
    if not ordered:
        raise ValueError("no values to take a percentile of")
    position = share * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
