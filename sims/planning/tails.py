"""Quantiles the estimate reads its tails with: how many prompts arrive while a request
decodes (Poisson), at the target's percentile."""

from __future__ import annotations

import math
from functools import lru_cache


def poisson_quantile(mean: float, share: float) -> float:
    """The `share` quantile of a Poisson count with this mean (normal beyond 50)."""
    if mean <= 0:
        return 0.0
    if mean > 50:
        z = _normal_quantile(share)
        return max(0.0, mean + z * math.sqrt(mean))
    term = total = math.exp(-mean)
    k = 0
    while total < share:
        k += 1
        term *= mean / k
        total += term
    return float(k)


@lru_cache(maxsize=16)
def _normal_quantile(share: float) -> float:
    """The standard normal quantile, by bisection on erf (the standard library has no
    inverse; one share a plan, so it is worked out once)."""
    low, high = -8.0, 8.0
    for _ in range(60):
        mid = (low + high) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < share:
            low = mid
        else:
            high = mid
    return (low + high) / 2
