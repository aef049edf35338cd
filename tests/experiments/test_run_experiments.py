"""The experiment registry behind ``make experiments``."""

from __future__ import annotations

import importlib.util

import pytest

import run_experiments


@pytest.mark.parametrize("package", run_experiments.EXPERIMENTS)
def test_every_registered_experiment_runs_as_a_module(package: str) -> None:
    assert importlib.util.find_spec(f"{package}.__main__") is not None


def test_unknown_names_are_refused() -> None:
    with pytest.raises(SystemExit) as exit_info:
        run_experiments.main(["no-such-experiment"])
    assert exit_info.value.code == 2
