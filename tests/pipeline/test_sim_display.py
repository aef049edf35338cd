"""Numbers as the page shows them: the build's text and format.js's text are the same."""

from __future__ import annotations

import json
import random
import subprocess

import pytest

from ridgepoint.sims.display import display, exact
from tests.repo import LAYOUT

FORMAT_JS = LAYOUT.content / "assets" / "sim" / "format.js"


NUMBERS = [0, 1, -1, 12, 12.5, 0.1, 1 / 3, 6.326, 1e-7, 1.5e-6, 1e-6, 123456.0, 1e21, 1.5e21,
           2.5e-12, 100.0, 0.000123, -0.5, 9007199254740993.0, 3.14159e15, 6.02214e23]


def test_control_values_are_exactly_what_javascript_writes() -> None:
    done = subprocess.run(
        ["node", "-e", "const v = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
                       "process.stdout.write(JSON.stringify(v.map(String)))"],
        input=json.dumps(NUMBERS), capture_output=True, text=True, check=True,
    )
    assert [exact(n) for n in NUMBERS] == json.loads(done.stdout)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.00641628, "0.006416"), (3388.08, "3,388"), (1388314624, "1,388,314,624"),
        (49600.5, "49,601"), (2.74758, "2.748"), (1.0625, "1.063"), (0.5, "0.5"), (72.0, "72"),
        (0.99996, "1"), (9999.5, "10,000"), (0.000123, "0.000123"), (1.76311e-5, "1.763e-5"),
        (1e-7, "1e-7"), (1.5e21, "1.5e+21"), (-0.00123456, "-0.001235"), (0, "0"),
        (True, "yes"), (False, "no"), (None, ""), ("h100", "h100"),
    ],
)
def test_results_are_shown_readably(value: object, shown: str) -> None:
    assert display(value) == shown


def _cases() -> list[object]:
    """Numbers of every size and shape a sim returns: rounded to 6 significant digits as the
    contract does, raw doubles, integers, exact ties (1.0625), carries (0.99996) and edges."""
    rng = random.Random(8)
    numbers: list[object] = [*NUMBERS, 1.0625, 0.99995, 9999.5, 999999999999999.9, 1e15,
                             1e-4, 9.99995e-5, 0.00999951, 5e-324, 1.7976931348623157e308]
    for _ in range(1500):
        raw = rng.choice([-1, 1]) * 10 ** rng.uniform(-9, 18)
        numbers += [raw, float(f"{raw:.6g}"), float(f"{raw:.3g}"), round(raw)]
    return numbers + [True, False, None, "memory", ""]


def test_python_and_javascript_display_every_value_identically() -> None:
    """format.js (what the live widget writes) against display() (what the build wrote)."""
    script = (
        f"import {{ display }} from {json.dumps(FORMAT_JS.as_uri())};"
        "const values = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(values.map(display)));"
    )
    cases = _cases()
    done = subprocess.run(
        ["node", "--no-warnings", "--input-type=module", "-e",
         script.replace("require('fs')", "(await import('node:fs')).default")],
        input=json.dumps(cases), capture_output=True, text=True, check=True,
    )
    mismatches = [
        (value, python, javascript)
        for value, python, javascript in zip(cases, map(display, cases), json.loads(done.stdout),
                                             strict=True)
        if python != javascript
    ]
    assert mismatches == []
