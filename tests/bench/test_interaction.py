"""The interaction bench names the changes that set its p95, slowest first."""

from __future__ import annotations

from bench.interaction import slowest


def test_the_slowest_changes_are_named_slowest_first_with_their_values() -> None:
    changes = [("seed", 2), ("seed", 1), ("model", "deepseek-v3"), ("model", "llama-3.1-8b")]
    durations = [31.0, 4.5, 12.3, 3.0]
    assert slowest(changes, durations, 2) == "seed=2 31.0 ms, model=deepseek-v3 12.3 ms"


def test_fewer_changes_than_asked_for_are_all_named() -> None:
    assert slowest([("tp", "2")], [9.0], 3) == "tp=2 9.0 ms"
