"""No module of the code is over 300 lines: past that, a module has more than one job.

The code is the pipeline (scripts/), the sims (sims/) and the browser's JavaScript
(content/assets/, and the service worker). Tests and the experiments' one-off measurement
scripts (scripts/experiments/) are not held to it. A data table (a module that is mostly a
literal) may be longer; TABLES lists each with the reason.
"""

from __future__ import annotations

from pathlib import Path

from tests.repo import LAYOUT

LIMIT = 300
ROOT = LAYOUT.code
TABLES = {  # path -> why it may be longer
    "sims/physics/catalogue_data.py": "generated from the catalogue's YAML: data, not code",
}


def _code() -> list[Path]:
    python = [*(ROOT / "scripts").rglob("*.py"), *(ROOT / "sims").rglob("*.py")]
    script = [*(ROOT / "scripts").rglob("*.mjs"), *(ROOT / "content").rglob("*.js")]
    return sorted(path for path in python + script
                  if "experiments" not in path.relative_to(ROOT).parts
                  and "__pycache__" not in path.parts)


def test_no_module_of_the_code_is_over_300_lines() -> None:
    sources = _code()
    assert {"sims", "scripts", "content"} <= {p.relative_to(ROOT).parts[0] for p in sources}
    long = {
        relative: lines
        for path in sources
        if (relative := path.relative_to(ROOT).as_posix()) not in TABLES
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > LIMIT
    }
    assert long == {}, f"split these where a second job lives: {long}"


def test_every_table_allowed_to_be_long_still_exists() -> None:
    assert all((ROOT / path).is_file() for path in TABLES)
