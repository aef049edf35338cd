"""Every script the site ships from content/ is type-checked by `make test`: each is in one
of the two TypeScript projects (the page's, the workers'), and says so to an editor that
opens it alone (`// @ts-check` on its first line)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.repo import LAYOUT, REPO

TSC = LAYOUT.node_modules / ".bin" / "tsc"
PROJECTS = ("tsconfig.json", "tsconfig.workers.json")


def checked_by(project: str) -> set[Path]:
    done = subprocess.run([str(TSC), "-p", project, "--listFilesOnly"], cwd=REPO,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return {Path(line).resolve() for line in done.stdout.splitlines() if line.endswith(".js")}


def test_every_shipped_script_is_in_exactly_one_typescript_project() -> None:
    scripts = {path.resolve() for path in LAYOUT.content.rglob("*.js")}
    page, workers = (checked_by(project) for project in PROJECTS)
    assert page & workers == set()
    assert page | workers == scripts
    assert LAYOUT.content / "assets" / "sim" / "worker.js" in workers


def test_every_shipped_script_opts_in_to_checking_on_its_first_line() -> None:
    for path in sorted(LAYOUT.content.rglob("*.js")):
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        assert first == "// @ts-check", path.relative_to(REPO)
