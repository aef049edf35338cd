"""The same answer everywhere: every sim under Pyodide (in Node) gives CPython's JSON, byte
for byte, at its defaults and at inputs taken from its declared ranges.

The browser receives exactly the string `sims.kit.runner.run` returns, so that is what is
compared. Pyodide starts once for all cases; each module sees only the files the site would
ship for it (`ridgepoint.sims.simsource.SimSource.files_of`), which also checks that import
closure, and only the trimmed standard library the site ships (`ridgepoint.browser.stdlib`), which
checks that the trimming left nothing out the sims need on any of these inputs.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import sims
from ridgepoint.browser import snapshot
from ridgepoint.sims.simsource import SimSource
from sims.kit import runner
from sims.kit.contract import Choice, Number, Text
from sims.physics import model_choice
from tests.repo import LAYOUT

SCRIPT = Path(__file__).with_name("pyodide_cases.mjs")
pytestmark = pytest.mark.node


def _middle(spec: Number) -> int | float:
    steps = round((spec.max - spec.min) / spec.step / 2)
    value = spec.min + steps * spec.step
    return int(value) if spec.integer else round(value, 12)


# A text input holds its sim's own format: a value of it each (issue 41: a GuideLLM sweep
# read by the planner, compared with serve under both runtimes).
TEXT_EXAMPLES = {("plan", "measured"): [
    "guidellm p50 llama-3.1-8b; c1 1000/200 37.9 12.1; c32 1000/200 118.3 15.5; r6 63.2 14.1"]}


# A pasted config.json, as the page sends it (the compact text): a mixture of experts, so
# that the MoE sim takes it too.
PASTE = model_choice.read((Path(__file__).parents[1] / "pipeline" / "fixtures" / "configs"
                           / "qwen3-30b-a3b.json").read_text(encoding="utf-8"))[0]


def cases_for(module: str) -> list[dict[str, Any]]:
    """Defaults, then one input at a time at min, middle and max, or at each choice.

    Some combinations are refused (a minimum raised above the default maximum): the refusal
    must be the same text in both runtimes too.
    """
    found: list[dict[str, Any]] = [{}]
    for spec in sims.load(module).INPUTS:
        if isinstance(spec, Choice):
            values = [c for c in spec.choices if c != spec.default]
        elif isinstance(spec, Text):
            values = TEXT_EXAMPLES.get((module, spec.name), [])
        else:
            assert isinstance(spec, Number)
            values = [v for v in (spec.min, _middle(spec), spec.max) if v != spec.default]
        found.extend({spec.name: value} for value in dict.fromkeys(values))
    if any(spec.name == model_choice.INPUT for spec in sims.load(module).INPUTS):
        found.append({"model": model_choice.CUSTOM, model_choice.INPUT: PASTE})
    return found

SOURCE = SimSource.read(LAYOUT.sims)  # what the site ships

CASES = [
    (module, json.dumps(inputs)) for module in sims.sim_names() for inputs in cases_for(module)
]


@cache
def trimmed_stdlib() -> Path:
    """The standard library the site ships (made with the snapshot, cached by the build)."""
    return snapshot.make(LAYOUT, SOURCE).stdlib_zip


@cache
def pyodide_answers() -> tuple[str, int, tuple[str, ...]]:
    if shutil.which("node") is None:
        pytest.fail("node is not installed: the cross-runtime test needs Node.js 20+")
    if not (LAYOUT.node_modules / "pyodide").is_dir():
        pytest.fail("node_modules/pyodide is missing: run `make setup` (npm ci)")
    request = {
        "sims_dir": str(LAYOUT.sims),
        "stdlib": str(trimmed_stdlib()),
        "files": {module: list(SOURCE.files_of(module)) for module in sims.sim_names()},
        "cases": CASES,
    }
    done = subprocess.run(
        ["node", str(SCRIPT)], input=json.dumps(request), capture_output=True, text=True,
        cwd=LAYOUT.code, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    return answer["python"], answer["stdlib_bytes"], tuple(answer["answers"])


def test_pyodide_runs_python_3_14_on_the_trimmed_standard_library() -> None:
    version, stdlib_bytes, answers = pyodide_answers()
    assert version.startswith("3.14.")
    assert len(answers) == len(CASES)
    assert stdlib_bytes == trimmed_stdlib().stat().st_size  # the very zip the site ships
    with zipfile.ZipFile(trimmed_stdlib()) as trimmed, \
            zipfile.ZipFile(LAYOUT.node_modules / "pyodide" / "python_stdlib.zip") as full:
        assert len(trimmed.namelist()) < len(full.namelist()) / 2


@pytest.mark.parametrize(("index", "case"), list(enumerate(CASES)), ids=[
    f"{module}-{inputs}" for module, inputs in CASES
])
def test_same_json_as_cpython(index: int, case: tuple[str, str]) -> None:
    module, inputs = case
    expected = runner.run(module, inputs)
    answer = json.loads(expected)
    assert answer["ok"] or answer["kind"] == "input", answer  # a sim fault is a bug anywhere
    assert pyodide_answers()[2][index] == expected
