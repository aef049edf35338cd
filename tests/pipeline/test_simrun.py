"""Staging's sim runs are cached, a cached result is the result, and a run's cache entry is
keyed by the code that ran: editing a sim runs it afresh and leaves other sims' runs alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import sims
from ridgepoint.sims.simrun import SimRuns
from ridgepoint.sims.simsource import SimSource
from tests.pipeline.test_simcode import toy_sims
from tests.repo import LAYOUT


def test_a_cached_run_equals_a_fresh_one_and_is_read_from_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = sims.load("batching").simulate(batch_size="6")
    runs = SimRuns(SimSource.read(LAYOUT.sims), tmp_path)
    assert runs.run("batching", {"batch_size": "6"}) == fresh
    assert runs.run("batching", {"batch_size": 6}) == fresh  # the same inputs
    stored = list(tmp_path.rglob("*.json"))
    assert len(stored) == 1
    assert stored[0].parent.parent.name == "batching"

    again = SimRuns(SimSource.read(LAYOUT.sims), tmp_path)  # a new process, as it were
    calls: list[dict] = []
    monkeypatch.setattr(again.code.load("batching"), "simulate",
                        lambda **inputs: calls.append(inputs) or {})
    assert again.run("batching", {"batch_size": 6}) == fresh
    assert calls == []  # from disk, not run again


def test_refused_inputs_raise_and_are_not_cached(tmp_path: Path) -> None:
    runs = SimRuns(SimSource.read(LAYOUT.sims), tmp_path)
    with pytest.raises(ValueError, match="batch_size"):
        runs.run("batching", {"batch_size": 0})
    with pytest.raises(LookupError):
        runs.run("no_such_sim", {})
    assert list(tmp_path.rglob("*.json")) == []


def test_an_edited_sim_is_run_again_and_its_old_results_dropped(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    before = SimRuns(toy_sims(tmp_path / "tree", factor=2), cache)
    assert before.run("toy", {"n": 5})["summary"] == {"twice": 10}
    after = SimRuns(toy_sims(tmp_path / "tree", factor=3), cache)
    assert after.digest("toy") != before.digest("toy")
    assert after.run("toy", {"n": 5})["summary"] == {"twice": 15}
    entries = list(cache.rglob("*.json"))
    assert [json.loads(p.read_text())["summary"] for p in entries] == [{"twice": 15}]
    assert entries[0].parent.name == after.digest("toy")


def test_the_sims_a_run_used_are_recorded(tmp_path: Path) -> None:
    runs = SimRuns(SimSource.read(LAYOUT.sims), tmp_path)
    runs.run("batching", {})
    runs.load("roofline")
    assert runs.used == {"batching", "roofline"}
