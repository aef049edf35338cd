"""Staging's sim runs are cached, and a cached result is the result."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

import sims
from ridgepoint import simrun
from ridgepoint.layout import Layout
from tests.repo import LAYOUT


def _cached_in(folder: Path) -> Layout:
    return dataclasses.replace(LAYOUT, sim_runs=folder)


def test_a_cached_run_equals_a_fresh_one_and_is_read_from_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = _cached_in(tmp_path)
    fresh = sims.load("batching").simulate(batch_size="6")
    first = simrun.run(layout, "batching", {"batch_size": "6"})
    assert first == fresh
    assert simrun.run(layout, "batching", {"batch_size": 6}) == fresh  # the same inputs
    stored = list(tmp_path.rglob("*.json"))
    assert len(stored) == 1

    monkeypatch.setattr(simrun, "_memory", {})
    calls = []
    monkeypatch.setattr(sims.load("batching"), "simulate",
                        lambda **inputs: calls.append(inputs) or {})
    assert simrun.run(layout, "batching", {"batch_size": 6}) == fresh
    assert calls == []  # from disk, not run again


def test_refused_inputs_raise_and_are_not_cached(tmp_path: Path) -> None:
    layout = _cached_in(tmp_path)
    with pytest.raises(ValueError, match="batch_size"):
        simrun.run(layout, "batching", {"batch_size": 0})
    with pytest.raises(LookupError):
        simrun.run(layout, "no_such_sim", {})
    assert list(tmp_path.rglob("*.json")) == []


def test_the_fingerprint_follows_the_sims_bytes(tmp_path: Path) -> None:
    copy = tmp_path / "sims"
    shutil.copytree(LAYOUT.sims, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = simrun.fingerprint(copy)
    assert simrun.fingerprint(copy) == before
    (copy / "physics.py").write_text((copy / "physics.py").read_text() + "\n# edited\n")
    assert simrun.fingerprint(copy) != before
