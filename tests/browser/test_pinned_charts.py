"""Every sim's charts with a pinned run's marks (content/assets/sim/compare.js) compile and
draw, with more marks than without them, and while a run is pinned each run's charts are
drawn by new views (a kept view would leave the pinned marks where the last run's ranges
put them: their rows never change, and Vega does not move them).

Under Node with the pinned Vega and Vega-Lite: for each sim, its charts after a one-step
move of each input, with the charts after the first input's move pinned.
"""

from __future__ import annotations

import json
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import sims
from tests.browser.test_live_charts import moves
from tests.repo import LAYOUT

SCRIPT = Path(__file__).with_name("pinned_charts.mjs")
pytestmark = pytest.mark.node


@cache
def answers() -> list[tuple[tuple[str, str, int], dict[str, Any]]]:
    labels, pairs = [], []
    for module in sims.sim_names():
        sim = sims.load(module)
        first = sim.INPUTS[0]
        pinned = sim.simulate(**{first.name: moves(first)[0][1]})["charts"]
        for spec in sim.INPUTS:
            if not moves(spec):
                continue  # a text input: its values are its sim's own format
            try:
                charts = sim.simulate(**{spec.name: moves(spec)[0][1]})["charts"]
            except ValueError:
                continue  # refused with the other defaults
            for index, (chart, theirs) in enumerate(zip(charts, pinned, strict=False)):
                labels.append((module, spec.name, index))
                pairs.append([chart, theirs])
    done = subprocess.run(["node", "--no-warnings", str(SCRIPT)], input=json.dumps(pairs),
                          capture_output=True, text=True, cwd=LAYOUT.code, check=False)
    assert done.returncode == 0, done.stderr
    return list(zip(labels, json.loads(done.stdout), strict=True))


def test_every_chart_with_a_pinned_run_draws_the_pinned_marks_too() -> None:
    assert [(label, answer.get("error")) for label, answer in answers()
            if answer.get("error") or answer["marks"][0] <= answer["marks"][1]] == []


def test_while_a_run_is_pinned_every_run_is_drawn_by_a_new_view() -> None:
    assert [label for label, answer in answers() if not answer["fresh"]] == []
