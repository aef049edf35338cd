"""The search for a sim's most expensive inputs tries what it should."""

from __future__ import annotations

import itertools

import pytest

import sims
from bench import native
from sims.kit import memo
from sims.kit.contract import Choice, Number


def test_corners_cover_every_extreme_of_every_input() -> None:
    inputs = (Number("n", "N", default=2, min=1, max=8),
              Choice("gpu", "GPU", "h100", ("a100", "h100")),
              Number("fixed", "Fixed", default=1, min=1, max=1))
    corners = list(native.corners(inputs))
    assert native.corner_count(inputs) == len(corners) == 4
    assert {(c["n"], c["gpu"], c["fixed"]) for c in corners} == set(
        itertools.product((1, 8), ("a100", "h100"), (1,)))


def test_time_run_uses_the_clock_and_reports_a_refusal() -> None:
    ticks = iter(range(0, 100))

    def clock() -> float:
        return next(ticks) / 1000  # every call advances a millisecond

    assert native.time_run(lambda **_: None, {}, 3, clock) == [1.0, 1.0, 1.0]

    def refuse(**_: object) -> None:
        raise ValueError("no")

    assert native.time_run(refuse, {}, 3, clock) is None


def test_time_run_times_the_run_not_a_kept_result() -> None:
    """A sim that keeps its runs (sims.kit.memo) would otherwise answer the same inputs again
    from memory: every timed call runs the kept function afresh."""
    calls = []

    @memo.kept(maxsize=4)
    def served(rate: float) -> float:
        calls.append(rate)
        return rate

    native.time_run(lambda **_: served(1.0), {}, 3)
    assert calls == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("module", ["spec_sampling", "roofline"])
def test_the_worst_inputs_found_are_accepted_by_the_sim(module: str) -> None:
    """spec_sampling has few enough corners to try them all; roofline, whose GPU, model and
    formats come from the catalogue, too many: it is searched input by input."""
    finalists, tried = native.search_worst(module)
    corners = native.corner_count(sims.load(module).INPUTS)
    if corners <= native.CORNER_LIMIT:
        assert tried >= corners
    else:
        assert 0 < tried < corners
    for inputs in finalists:
        sims.load(module).simulate(**inputs)
