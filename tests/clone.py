"""A fresh clone of the repository in a temporary folder, for tests that run the repository's
own commands (`make check`, `make new`) on a tree they may change.

It holds what `git clone` would give (every file git tracks or would track: the working tree
less what .gitignore leaves out), so nothing a developer generated (build/, site/) leaks in;
the installed npm packages are linked, not copied (the language server, Pyodide). Commands
run with the clone's own scripts/ and sims/ first on the import path, not the repository's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.repo import LAYOUT, REPO


def clone(destination: Path) -> Path:
    """Copy the repository's files into `destination` (created) and return it."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO, capture_output=True, check=True,
    ).stdout.decode().split("\0")
    for relative in filter(None, listed):
        source = REPO / relative
        if source.is_file():  # a tracked file deleted in the working tree is not cloned
            target = destination / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    (destination / "node_modules").symlink_to(LAYOUT.node_modules, target_is_directory=True)
    return destination


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python <args>` in the clone `root`, importing the clone's code."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(root / "scripts")])}
    return subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True,
                          text=True)
