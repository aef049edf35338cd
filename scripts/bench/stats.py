"""Small statistics for the bench: medians, percentiles, ratios and growth rates.

Kept free of numpy (a bench of a stdlib project should run with the standard library) and
of any timing, so tests can check them on fixed numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def median(values: Sequence[float]) -> float:
    """The middle value (the mean of the two middle ones for an even count)."""
    if not values:
        raise ValueError("median of no values")
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[middle])
    return (ordered[middle - 1] + ordered[middle]) / 2


def percentile(values: Sequence[float], fraction: float) -> float:
    """The `fraction` quantile (0..1) by linear interpolation between order statistics
    (the method numpy calls 'linear'), so p50 equals the median."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= fraction <= 1:
        raise ValueError(f"fraction must be in [0, 1], got {fraction}")
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def ratio(value: float, reference: float) -> float:
    """value / reference; infinite when the reference is zero and the value is not."""
    if reference == 0:
        return 0.0 if value == 0 else math.inf
    return value / reference


def growth_exponent(sizes: Sequence[float], costs: Sequence[float]) -> float:
    """The exponent k of cost ~ size**k fitted by least squares on log-log axes.

    1 is linear growth, 2 quadratic; a fixed start-up cost pulls it below 1, which is why
    the bench fits the marginal cost (cost minus the smallest run's) when it judges growth.
    """
    if len(sizes) != len(costs) or len(sizes) < 2:
        raise ValueError("need at least two (size, cost) pairs")
    if min(sizes) <= 0 or min(costs) <= 0:
        raise ValueError("sizes and costs must be positive")
    xs = [math.log(size) for size in sizes]
    ys = [math.log(cost) for cost in costs]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    if spread == 0:
        raise ValueError("sizes must differ")
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread
