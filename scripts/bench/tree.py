"""A working copy of the repository tree, for a bench or a test to edit and build freely.

Editing a sim or a page of the real repository under `make serve` would change the
repository; a copy lets the serve bench and the stale-code tests edit everything a build
reads (content, sims, the pipeline itself) and build or serve it with the copy's own code:
`python <copy>/scripts/build.py` imports the copy's pipeline, which runs the copy's sims.
The npm packages are linked, not copied (hundreds of MB, never edited), and the caches start
empty, under the copy's own build/.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ridgepoint.base.layout import Layout

COPIED = ("mkdocs.yml", "overrides", "content", "glossary", "feed", "sims", "scripts")
CACHES = shutil.ignore_patterns("__pycache__", ".pytest_cache")


def copy_tree(layout: Layout, target: Path) -> Layout:
    """Copy what a build of `layout` reads into `target`; the copy's Layout."""
    target.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        origin = layout.root / name if (layout.root / name).exists() else layout.code / name
        if origin.is_dir():
            shutil.copytree(origin, target / name, ignore=_ignored, dirs_exist_ok=True)
        elif origin.is_file():
            shutil.copy2(origin, target / name)
    (target / "node_modules").symlink_to(layout.node_modules, target_is_directory=True)
    return Layout.of(target)


def _ignored(folder: str, names: list[str]) -> set[str]:
    """Caches, and the experiments' scripts (a build never runs them; their results under
    content/data/ are copied)."""
    skipped = set(CACHES(folder, names))
    if Path(folder).name == "scripts":
        skipped |= {"experiments"} & set(names)
    return skipped
