"""The build group's figures from fixed costs, and the build process's own-CPU split."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from bench.buildcost import Cost, Scale
from bench.run import GROWTH_EXPONENT, build_figures


def _scale(factor: int, build: float, plain: float, own: float, runs: list[float]) -> Scale:
    return Scale(factor, 20 * factor, 50 + factor, len(runs), Cost(build, 2 * build),
                 Cost(plain, 2 * plain), Cost(0.1 * factor, 0.2 * factor), own, runs,
                 Path("/nowhere"))


def _by_name(figures: list) -> dict:
    return {figure.name: figure for figure in figures}


def test_linear_costs_give_exponent_one_and_the_spread_moves_it() -> None:
    # Marginal costs above 1x: 10x adds 9 units of content for 3 s, 100x 99 units for 33 s.
    scales = [_scale(1, 2.0, 1.5, 0.5, [1.9, 2.0, 2.2]),
              _scale(10, 5.0, 4.0, 0.8, [4.7, 5.0, 5.6]),
              _scale(100, 35.0, 30.0, 3.8, [35.0])]
    figures = _by_name(build_figures(scales))
    growth = figures["full build: growth exponent of cost in content"]
    assert growth.value == pytest.approx(1.0)
    assert growth.limit == GROWTH_EXPONENT and growth.met
    # With 10x's slowest run (5.6 s: 3.6 s above 1x) growth looks slower, with its fastest
    # (4.7 s: 2.7 s above 1x) faster; the note gives both.
    low = 1.0 - math.log(3.6 / 3.0) / math.log(11)
    high = 1.0 - math.log(2.7 / 3.0) / math.log(11)
    assert f"{low:.2f} to {high:.2f} with 10x's slowest or fastest run" in growth.note
    assert figures["the build process's own CPU: growth exponent"].value == pytest.approx(1.0)
    assert figures["the build process's own CPU: growth exponent"].limit is None
    assert figures["plain mkdocs build: growth exponent"].value == pytest.approx(
        math.log(28.5 / 2.5) / math.log(11))
    assert figures["the build process's own CPU, 100x"].value == 3.8
    assert "13% of plain" in figures["the build process's own CPU, 100x"].note  # 3.8 / 30
    assert "runs 4.70 to 5.60 s" in figures["full build, 10x (200 items, 60 pages, 3 run(s))"].note


def test_a_single_run_has_no_spread_and_two_scales_no_growth() -> None:
    figures = build_figures([_scale(1, 2.0, 1.5, 0.5, [2.0]), _scale(10, 5.0, 4.0, 0.8, [5.0])])
    assert not any("growth" in figure.name for figure in figures)
    assert "runs" not in _by_name(figures)["full build, 1x (20 items, 51 pages, 1 run(s))"].note


def test_selftime_splits_a_script_from_its_children_and_keeps_its_exit_status(
        tmp_path: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text(
        "import subprocess, sys\n"
        "subprocess.run([sys.executable, '-c', 'sum(range(3_000_000))'], check=True)\n"
        "sys.exit(3)\n", encoding="utf-8")
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, "-m", "bench.selftime", str(report), str(script)],
                          check=False)
    assert done.returncode == 3
    times = json.loads(report.read_text(encoding="utf-8"))
    assert times["self_cpu_s"] > 0
    assert times["children_cpu_s"] > 0  # the child interpreter ran and was waited for
