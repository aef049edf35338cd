"""A kept chart view, given a new run's values (content/assets/sim/livechart.js), draws
exactly what a new view of the new spec draws, for every sim, and again when given the first
run's values back; and every one-step change keeps it.

Runs the page's own module under Node with the pinned Vega and Vega-Lite (no browser
needed): for each sim, its charts at the defaults against its charts after each input is
moved one step, and to each end of its range (or to each choice).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import sims
from sims.kit.contract import Choice, Number, Text
from tests.repo import LAYOUT

SCRIPT = Path(__file__).with_name("live_charts.mjs")
pytestmark = pytest.mark.node


def moves(spec: Number | Choice | Text) -> list[tuple[str, Any]]:
    """(kind, value): a reader's one-step move, then the range's ends or every choice (a
    text: none, its values are the sim's own format)."""
    if isinstance(spec, Text):
        return []
    if isinstance(spec, Choice):
        return [("step", choice) for choice in spec.choices if choice != spec.default]
    step = spec.default + spec.step if spec.default + spec.step <= spec.max \
        else spec.default - spec.step
    return [("step", step), ("end", spec.min), ("end", spec.max)]


@cache
def chart_pairs() -> tuple[list[tuple[str, str, str, int]], list[list[dict[str, Any]]]]:
    """Labels (sim, input, kind, chart) and [base, next] Vega-Lite specs: every sim's charts
    at its defaults against its charts after each input is moved (`moves`)."""
    labels, pairs = [], []
    for module in sims.sim_names():
        sim = sims.load(module)
        base = sim.simulate()["charts"]
        for spec in sim.INPUTS:
            for kind, value in moves(spec):
                try:
                    charts = sim.simulate(**{spec.name: value})["charts"]
                except ValueError:
                    continue  # refused with the other defaults
                for index, (before, after) in enumerate(zip(base, charts, strict=False)):
                    labels.append((module, spec.name, kind, index))
                    pairs.append([before, after])
    return labels, pairs


@cache
def compared() -> tuple[list[tuple[str, str, str, int]], list[dict[str, Any]]]:
    """Labels (sim, input, kind, chart) and Node's answers for every pair."""
    if shutil.which("node") is None:
        pytest.fail("node is not installed: this test runs the page's module under Node.js")
    labels, pairs = chart_pairs()
    done = subprocess.run(["node", "--no-warnings", str(SCRIPT)], input=json.dumps(pairs),
                          capture_output=True, text=True, cwd=LAYOUT.code, check=False)
    assert done.returncode == 0, done.stderr
    return labels, json.loads(done.stdout)


def test_a_kept_view_draws_what_a_new_view_draws() -> None:
    labels, answers = compared()
    failures = [(label, answer) for label, answer in zip(labels, answers, strict=True)
                if answer.get("error")
                or (answer["kept"] and not (answer["same"] and answer["back"]))]
    assert failures == []


def test_every_one_step_change_keeps_the_view() -> None:
    """A reader's one-step move (or a switch to another choice) updates the charts' kept
    views: a new view costs a frame or more. What varies with an input goes where `lift`
    makes it a parameter (a chart's title, a datum, a domain), not into an axis title."""
    labels, answers = compared()
    rebuilt = [label for label, answer in zip(labels, answers, strict=True)
               if label[2] == "step" and not answer["kept"]]
    assert rebuilt == []


def test_a_one_step_move_keeps_the_plot_in_place() -> None:
    """When a kept view's plot moves (a mark or label that sticks out above it pushes the
    title and legend, a wider label pushes it right), Vega redraws every mark: a reader's
    small move must not do that, nor a switch to another model or GPU, whose numbers are
    longer or shorter (the y axis keeps room for the widest: charts.Y_AXIS_EXTENT_PX)."""
    labels, answers = compared()
    moved = [label for label, answer in zip(labels, answers, strict=True)
             if label[2] == "step" and answer["kept"] and answer["moved"]]
    assert moved == []
