"""No module of the pipeline is over 300 lines: past that, a module has more than one job.

Data tables (a module that is mostly a literal table) may be longer; list one in TABLES
with the reason. There is none today.
"""

from __future__ import annotations

from tests.repo import LAYOUT

LIMIT = 300
PIPELINE = LAYOUT.scripts / "ridgepoint"
TABLES: dict[str, str] = {}  # path under scripts/ridgepoint/ -> why it may be longer


def test_no_pipeline_module_is_over_300_lines() -> None:
    sources = sorted([*PIPELINE.rglob("*.py"), *PIPELINE.rglob("*.mjs")])
    assert len(sources) > 20  # the walk found the pipeline
    long = {
        relative: lines
        for path in sources
        if (relative := path.relative_to(PIPELINE).as_posix()) not in TABLES
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > LIMIT
    }
    assert long == {}, f"split these into modules of one job each: {long}"
