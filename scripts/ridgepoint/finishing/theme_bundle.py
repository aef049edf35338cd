"""The theme's script bundle in the built site, given a hint that V8 should compile all of it
eagerly.

V8 compiles a script's functions lazily: each one on the main thread, the first time it
runs. Material's bundle (and Zensical's, its successor's) runs most of its functions while
the page loads (its set-up at DOMContentLoaded), so compiling them lengthened the page's
longest task. A first line `//# allFunctionsCalledOnLoad` (V8's explicit compile hint,
Chromium 136 and later; other browsers read a comment) makes V8 compile the whole script on
a background thread while it downloads. In a traced cold load of an explainer on this
machine the main thread's CPU time fell from 314 to 262 ms and the longest task's CPU from
35 to 19 ms (medians of 3).

It is a finishing step on the built site: whichever builder ran, its theme's bundle is the
one `assets/javascripts/bundle.*.min.js` there, and nothing of the theme is looked for on
disk or staged. Its source map, where the theme ships one, gets one empty line prepended to
its mappings, so that the map still points at the right lines. (`make serve` serves the
bundle unhinted: the dev server does not finish the site.)
"""

from __future__ import annotations

import re
from pathlib import Path

HINT = "//# allFunctionsCalledOnLoad\n"
MAPPINGS = re.compile(r'("mappings"\s*:\s*")')
BUNDLES = "assets/javascripts/bundle.*.min.js"  # the name carries a hash of its content


class BundleError(Exception):
    """The built site's theme bundle is not where, or not what, it was."""


def the_bundle(site_dir: Path) -> Path:
    """The theme's bundle in the built site."""
    found = sorted(Path(site_dir).glob(BUNDLES))
    if len(found) != 1:
        names = [path.name for path in found]
        raise BundleError(f"expected one {BUNDLES} in {site_dir}, found {names}")
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
        raise BundleError(f"expected one mappings field in the theme's source map, found {found}")
    return shifted


def hint_theme_bundle(site_dir: Path) -> Path:
    """Give the built site's bundle its hint, and its map (if any) the matching shift; the
    bundle's path."""
    bundle = the_bundle(site_dir)
    bundle.write_text(hinted_bundle(bundle.read_text(encoding="utf-8")), encoding="utf-8")
    source_map = bundle.with_name(bundle.name + ".map")
    if source_map.is_file():
        source_map.write_text(shifted_map(source_map.read_text(encoding="utf-8")),
                              encoding="utf-8")
    return bundle
