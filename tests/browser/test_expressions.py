"""The page's Vega expression evaluator (content/assets/sim/expressions.js) does what
vega-interpreter does: for every sim's charts, new views and kept views draw exactly the SVG
that vega-interpreter draws; and case by case, for the semantics that are easy to get wrong.

Runs under Node with the pinned Vega, Vega-Lite and vega-interpreter (no browser needed),
with the evaluator staged as the site stages it: beside vega-interpreter's module as
ridgepoint.browser.runtime writes it (reading the vega global, exporting its tables).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import sims
from ridgepoint.browser import runtime
from tests.browser.test_live_charts import chart_pairs
from tests.repo import LAYOUT

SCRIPT = Path(__file__).with_name("expressions.mjs")
EVALUATOR = LAYOUT.content / "assets" / "sim" / "expressions.js"
pytestmark = pytest.mark.node

CASES = [
    "identifiers: parameters, constants, datum, event and item",
    "identifiers are names after a dot and as object keys",
    "members that are dangerous functions are refused",
    "object keys and values that are dangerous are refused",
    "calls: _names, a lazy if, this, and functions added later",
    "event functions go to event.vega, called by name or from a function",
    "global and sticky regular expressions are fresh each time",
    "operators, lazy && || and ?:",
    "arrays and objects are new each time",
    "encode: what changed, and positions from x2, xc, y2 and yc",
    "encode: a tooltip is vega-interpreter's value, evaluated when shown",
    "nodes it cannot evaluate fail when evaluated, not when prepared",
]


def run_driver(folder: Path, mode: str, stdin: str = "") -> Any:
    """The driver's answer, with the evaluator staged in `folder` as the site stages it."""
    if shutil.which("node") is None:
        pytest.fail("node is not installed: this test runs the page's module under Node.js")
    (folder / "vendor").mkdir(exist_ok=True)
    interpreter = runtime.interpreter_module(LAYOUT.node_modules)
    (folder / "vendor" / "vega-interpreter.js").write_text(interpreter)
    (folder / "sim").mkdir(exist_ok=True)
    shutil.copy(EVALUATOR, folder / "sim" / EVALUATOR.name)
    done = subprocess.run(
        ["node", "--no-warnings", str(SCRIPT), str(folder / "sim" / EVALUATOR.name), mode],
        input=stdin, capture_output=True, text=True, cwd=LAYOUT.code, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def units(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str | None]:
    return run_driver(tmp_path_factory.mktemp("units"), "units")


def test_the_cases_are_the_drivers(units: dict[str, str | None]) -> None:
    assert list(units) == CASES


@pytest.mark.parametrize("case", CASES)
def test_a_case_agrees_with_vega_interpreter(units: dict[str, str | None], case: str) -> None:
    assert units[case] is None, units[case]


def test_every_chart_draws_what_vega_interpreter_draws(tmp_path: Path) -> None:
    labels, pairs = chart_pairs()
    answers = run_driver(tmp_path, "charts", json.dumps(pairs))
    failures = [(label, answer) for label, answer in zip(labels, answers, strict=True)
                if answer.get("error") or not answer["fresh"] or answer["kept"] is False]
    assert failures == []
    # The comparison is not empty: every sim is drawn, and most pairs keep their view.
    assert {label[0] for label in labels} == set(sims.sim_names())
    assert all(answer["drawn"] > 1000 for answer in answers)
    assert sum(answer["kept"] is True for answer in answers) >= len(answers) / 2
