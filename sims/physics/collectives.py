"""Collectives between GPUs, fitted to measured times: all-reduce, all-to-all, point to point.

An all-reduce over n GPUs of an S-byte message takes a + S / B: a fixed time a (kernel launch,
synchronisation across the GPUs, the link's latency) and a bandwidth B, both fitted for each
n to measured NCCL times (a least-squares fit of the relative error, so that a 30 us point
weighs as much as a 300 us one). The measurements and their sources are in the GPU's
catalogue file (`collectives:`); the fit happens here, once, when the catalogue is read.

What the fit stands for beyond the measurements, each an assumption of this model:

- a number of GPUs between two measured ones takes their latency and their share of the
  link's bandwidth, interpolated on log2(n); outside the measured range, the nearest;
- a GPU without measurements (`collectives: like: <gpu>`) takes the measured GPU's latency
  and its share of the link's bandwidth ("bus bandwidth" B * 2(n-1)/n over the link's rate
  in one direction), over its own link;
- an all-to-all over n GPUs, each sending S bytes of which (n-1)/n leave it, takes the
  all-reduce's latency and the same share of the link, since no measured all-to-all was
  found in the stored sources;
- a send between two GPUs (pipeline stages) takes the two-GPU all-reduce's latency and
  share of the link.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import NamedTuple


class Fit(NamedTuple):
    """An all-reduce fitted at one number of GPUs."""

    latency_s: float  # the fixed part, s
    bytes_per_s: float  # message bytes per second of the size-dependent part

    def time(self, message_bytes: float) -> float:
        return self.latency_s + message_bytes / self.bytes_per_s


def fit(points: Iterable[tuple[float, float]]) -> Fit:
    """Least squares of (a + S b) / t - 1 over (S bytes, t seconds): closed form in (a, b)."""
    s11 = s12 = s22 = s1 = s2 = 0.0
    for size, seconds in points:
        x1, x2 = 1 / seconds, size / seconds
        s11, s12, s22, s1, s2 = s11 + x1 * x1, s12 + x1 * x2, s22 + x2 * x2, s1 + x1, s2 + x2
    determinant = s11 * s22 - s12 * s12
    latency = (s1 * s22 - s2 * s12) / determinant
    per_byte = (s11 * s2 - s12 * s1) / determinant
    return Fit(latency, 1 / per_byte)


def bus_share(group: int, fitted: Fit, link_bytes_per_s: float) -> float:
    """The fit's bus bandwidth, B * 2(n-1)/n, over the link's one-way rate."""
    return fitted.bytes_per_s * 2 * (group - 1) / group / link_bytes_per_s


def measured_fits(measured: Iterable[Iterable[float]]) -> dict[int, Fit]:
    """Fits per number of GPUs from [GPUs, message bytes, milliseconds] measurements."""
    by_group: dict[int, list[tuple[float, float]]] = {}
    for group, size, milliseconds in measured:
        by_group.setdefault(int(group), []).append((size, milliseconds / 1000))
    return {group: fit(points) for group, points in sorted(by_group.items())}


def fit_at(
    fits: Mapping[int, Fit], link_bytes_per_s: float, group: int, own_link_bytes_per_s: float
) -> Fit:
    """The all-reduce at `group` GPUs on a link of `own_link_bytes_per_s`, from fits made on a
    link of `link_bytes_per_s` (the same link for a measured GPU): latency and bus share
    interpolated on log2(n) between the nearest fitted sizes, then applied to the own link."""
    sizes = sorted(fits)
    below = max([n for n in sizes if n <= group], default=sizes[0])
    above = min([n for n in sizes if n >= group], default=sizes[-1])
    weight = 0.0 if below == above else (
        (math.log2(group) - math.log2(below)) / (math.log2(above) - math.log2(below)))
    latency = fits[below].latency_s + weight * (fits[above].latency_s - fits[below].latency_s)
    low, high = (bus_share(n, fits[n], link_bytes_per_s) for n in (below, above))
    share = low + weight * (high - low)
    return Fit(latency, share * own_link_bytes_per_s * group / (2 * (group - 1)))


class Collectives(NamedTuple):
    """One GPU's collectives: an all-reduce fit for every group size of its domain."""

    fits: dict[int, Fit]  # by number of GPUs, 2 .. scale-up domain
    link_bytes_per_s: float  # one direction
    note: str  # how they were obtained, for pages and tables

    def share(self, group: int) -> float:
        return bus_share(group, self.fits[group], self.link_bytes_per_s)


def collectives_for(
    domain: int, link_bytes_per_s: float, measured: Iterable[Iterable[float]],
    reference: tuple[Mapping[int, Fit], float, str] | None,
) -> Collectives:
    """Fits for 2..`domain` GPUs: from this GPU's own measurements, or, when it has none, from
    `reference` (a measured GPU's fits, its link's one-way rate, its name)."""
    own = measured_fits(measured)
    if own:
        fits, link, note = own, link_bytes_per_s, "fitted to its measured all-reduce times"
    elif reference is not None:
        fits, link, name = reference
        note = f"assumed from the {name}'s measured all-reduce (latency, share of the link)"
    else:
        return Collectives({}, link_bytes_per_s, "a single GPU: no collectives")
    return Collectives(
        {n: fit_at(fits, link, n, link_bytes_per_s) for n in range(2, domain + 1)},
        link_bytes_per_s, note,
    )


def allreduce_time(collectives: Collectives, message_bytes: float, group: int) -> float:
    """One all-reduce of `message_bytes` over `group` GPUs; nothing to agree on alone."""
    if group == 1:
        return 0.0
    return collectives.fits[group].time(message_bytes)


def all_to_all_time(collectives: Collectives, bytes_per_gpu: float, group: int) -> float:
    """One all-to-all in which each of `group` GPUs sends `bytes_per_gpu`, (n-1)/n of it to
    the others: the all-reduce's latency plus that traffic at its share of the link."""
    if group == 1:
        return 0.0
    rate = collectives.share(group) * collectives.link_bytes_per_s
    return collectives.fits[group].latency_s + (group - 1) / group * bytes_per_gpu / rate


def p2p_time(collectives: Collectives, message_bytes: float) -> float:
    """A send from one GPU to another of its domain (between pipeline stages)."""
    rate = collectives.share(2) * collectives.link_bytes_per_s
    return collectives.fits[2].latency_s + message_bytes / rate
