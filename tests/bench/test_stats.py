"""The bench's statistics: medians, percentiles, ratios, growth exponents."""

from __future__ import annotations

import math

import numpy
import pytest

from bench.stats import growth_exponent, median, percentile, ratio


def test_median_of_odd_and_even_counts() -> None:
    assert median([3, 1, 2]) == 2
    assert median([4, 1, 3, 2]) == 2.5
    with pytest.raises(ValueError):
        median([])


def test_percentile_interpolates_between_order_statistics() -> None:
    values = list(range(1, 101))  # 1..100
    assert percentile(values, 0.5) == median(values) == 50.5
    assert percentile(values, 0.95) == pytest.approx(95.05)
    assert percentile(values, 0) == 1
    assert percentile(values, 1) == 100
    assert percentile([7], 0.95) == 7
    with pytest.raises(ValueError):
        percentile(values, 1.5)


def test_percentile_matches_numpy_linear() -> None:
    values = [13.0, 2.5, 8.0, 21.0, 5.5, 3.0, 34.0, 1.0]
    for fraction in (0.1, 0.5, 0.9, 0.95):
        assert percentile(values, fraction) == pytest.approx(
            float(numpy.percentile(values, fraction * 100, method="linear")))


def test_ratio_against_zero() -> None:
    assert ratio(1, 4) == 0.25
    assert ratio(0, 0) == 0
    assert ratio(1, 0) == math.inf


def test_growth_exponent_recovers_the_power() -> None:
    sizes = [10, 100, 1000]
    assert growth_exponent(sizes, [3 * s for s in sizes]) == pytest.approx(1)
    assert growth_exponent(sizes, [0.5 * s * s for s in sizes]) == pytest.approx(2)
    assert growth_exponent([9, 99], [2.0, 22.0]) == pytest.approx(1)
    with pytest.raises(ValueError):
        growth_exponent([10], [1])
