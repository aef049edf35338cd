"""The interaction bench: the changes that set its p95, named slowest first; the key each
control is moved by; an interaction's Event Timing latency."""

from __future__ import annotations

import sims
from bench.interaction import _event_ms, other_value, slowest
from sims.kit.contract import Choice, Number


def test_the_slowest_changes_are_named_slowest_first_with_their_values() -> None:
    changes = [("seed", 2), ("seed", 1), ("model", "deepseek-v3"), ("model", "llama-3.1-8b")]
    durations = [31.0, 4.5, 12.3, 3.0]
    assert slowest(changes, durations, 2) == "seed=2 31.0 ms, model=deepseek-v3 12.3 ms"


def test_fewer_changes_than_asked_for_are_all_named() -> None:
    assert slowest([("tp", "2")], [9.0], 3) == "tp=2 9.0 ms"


def test_an_interactions_latency_is_its_longest_entry_before_the_next_key() -> None:
    events = [
        {"name": "keydown", "start": 100.0, "duration": 24, "interaction": 7},
        {"name": "keyup", "start": 104.0, "duration": 40, "interaction": 7},
        {"name": "pointermove", "start": 110.0, "duration": 200, "interaction": 0},  # not one
        {"name": "keydown", "start": 300.0, "duration": 64, "interaction": 8},  # the next key's
    ]
    assert _event_ms(events, 100.0, 300.0) == 40
    assert _event_ms(events, 300.0, float("inf")) == 64
    assert _event_ms(events, 500.0, float("inf")) is None  # under the threshold: no entry


def test_a_control_is_moved_by_the_keys_a_reader_would_press() -> None:
    for module in ("batching", "tensor_parallel"):
        for spec in sims.load(module).INPUTS:
            found = other_value(module, spec.name)
            if found is None:
                continue
            value, there, back = found
            if isinstance(spec, Choice):
                at, to = spec.choices.index(spec.default), spec.choices.index(value)
                assert abs(at - to) == 1  # a neighbour: one arrow press away
                assert (there, back) == (("ArrowDown", "ArrowUp") if to > at
                                         else ("ArrowUp", "ArrowDown"))
            else:
                assert isinstance(spec, Number)
                assert abs(value - spec.default) == spec.step
                assert there == ("ArrowRight" if value > spec.default else "ArrowLeft")
