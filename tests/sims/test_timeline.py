"""sims.kit.timeline: a row's ticks closer together than a plot can show apart are sent once."""

from __future__ import annotations

from sims.kit.timeline import MARK_RESOLUTION, Mark, timeline_chart

STATES = {"token": "#b279a2"}


def ticks(marks: list[Mark], domain: tuple[float, float] = (0.0, 1.0)) -> list[tuple[str, float]]:
    spec = timeline_chart("t", "d", rows=["a", "b"], spans=[], marks=marks, states=STATES,
                          domain=domain, unit="s", scale=1.0)
    return [(row["row"], row["start"]) for row in spec["data"]["values"]]


def test_ticks_far_enough_apart_are_all_kept() -> None:
    step = 1.01 / MARK_RESOLUTION  # a hair over one resolution step apart
    marks = [Mark("a", i * step, "token") for i in range(int(1 / step) + 1)]
    assert ticks(marks) == [("a", mark.time) for mark in marks]


def test_a_dense_row_keeps_one_tick_per_resolution_step_and_drops_only_overlapping_ones() -> None:
    dense = [Mark("a", i / 10_000, "token") for i in range(10_001)]
    sparse = [Mark("b", 0.25, "token"), Mark("b", 0.75, "token")]
    kept = ticks(dense + sparse)
    kept_a = [time for row, time in kept if row == "a"]
    assert [(row, time) for row, time in kept if row == "b"] == [("b", 0.25), ("b", 0.75)]
    assert MARK_RESOLUTION * 0.9 <= len(kept_a) <= MARK_RESOLUTION + 1
    # Every tick left out is within one resolution step of a kept tick of its row.
    apart = 1 / MARK_RESOLUTION
    assert all(min(abs(mark.time - time) for time in kept_a) < apart for mark in dense)


def test_ticks_outside_the_clock_are_dropped() -> None:
    marks = [Mark("a", -0.1, "token"), Mark("a", 0.5, "token"), Mark("a", 1.1, "token")]
    assert ticks(marks) == [("a", 0.5)]
