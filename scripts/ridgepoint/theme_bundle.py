"""Material's script bundle, staged with a hint that V8 should compile all of it eagerly.

V8 compiles a script's functions lazily: each one on the main thread, the first time it
runs. Material's bundle runs most of its functions while the page loads (its set-up at
DOMContentLoaded), so compiling them lengthened the page's longest task. A first line
`//# allFunctionsCalledOnLoad` (V8's explicit compile hint, Chromium 136 and later; other
browsers read a comment) makes V8 compile the whole script on a background thread while it
downloads. In a traced cold load of an explainer on this machine the main thread's CPU time
fell from 314 to 262 ms and the longest task's CPU from 35 to 19 ms (medians of 3).

The staged copy has the theme's own file name, so it replaces the theme's file in the built
site (MkDocs lets docs_dir files override theme files) and the theme's pages need no change.
Its source map is staged too, with one empty line prepended to its mappings, so that the
map still points at the right lines.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

HINT = "//# allFunctionsCalledOnLoad\n"
MAPPINGS = re.compile(r'("mappings"\s*:\s*")')
TARGET = Path("assets") / "javascripts"


def _theme_scripts() -> Path:
    """Material's script folder, found without importing the theme (the pipeline imports
    nothing of MkDocs' or its theme's: tests/pipeline/test_no_mkdocs.py)."""
    spec = importlib.util.find_spec("material")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("mkdocs-material is not installed: run `make setup`")
    return Path(spec.submodule_search_locations[0]) / "templates" / "assets" / "javascripts"


def theme_bundle() -> Path:
    """The theme's bundle (its name carries a content hash that changes with Material)."""
    scripts = _theme_scripts()
    found = sorted(scripts.glob("bundle.*.min.js"))
    if len(found) != 1:
        raise RuntimeError(f"expected one bundle.*.min.js in {scripts}, found {found}")
    return found[0]


def hinted_bundle(source: str) -> str:
    """The bundle's text with the compile hint as its first line."""
    return HINT + source


def shifted_map(source_map: str) -> str:
    """The bundle's source map for the hinted bundle: a leading ";" in `mappings` is an
    empty first line of generated code. Edited as text (the map is 1 MB; parsing and
    writing it again cost more than the rest of this step, on every build)."""
    shifted, found = MAPPINGS.subn(r"\1;", source_map)
    if found != 1:
        raise RuntimeError(f"expected one mappings field in the theme's source map, found {found}")
    return shifted


def theme_bundle_files() -> dict[Path, str]:
    """The hinted bundle and its map, by their paths in the site (assets/javascripts/, where
    the theme's own files are served from)."""
    bundle = theme_bundle()
    source_map = bundle.with_name(bundle.name + ".map")
    return {
        TARGET / bundle.name: hinted_bundle(bundle.read_text(encoding="utf-8")),
        TARGET / source_map.name: shifted_map(source_map.read_text(encoding="utf-8")),
    }
