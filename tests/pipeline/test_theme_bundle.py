"""The built site serves Material's bundle with V8's compile hint, its map kept in step."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ridgepoint.theme_bundle import HINT, hinted_bundle, shifted_map, theme_bundle


def test_the_hint_is_a_first_line_of_its_own() -> None:
    assert hinted_bundle('"use strict";x()') == '//# allFunctionsCalledOnLoad\n"use strict";x()'


def test_the_map_gains_one_empty_generated_line() -> None:
    original = {"version": 3, "sources": ["a.ts"], "mappings": "AAAA;AACA", "names": []}
    shifted = json.loads(shifted_map(json.dumps(original)))
    assert shifted == {**original, "mappings": ";AAAA;AACA"}


def test_the_built_pages_load_the_hinted_bundle(built_sample: Path) -> None:
    bundle = theme_bundle()
    served = built_sample / "assets" / "javascripts" / bundle.name
    assert served.read_text(encoding="utf-8") == HINT + bundle.read_text(encoding="utf-8")
    page = (built_sample / "index.html").read_text(encoding="utf-8")
    assert re.search(rf'<script src="assets/javascripts/{re.escape(bundle.name)}"', page)
    source_map = json.loads(served.with_name(bundle.name + ".map").read_text(encoding="utf-8"))
    theirs = json.loads(bundle.with_name(bundle.name + ".map").read_text(encoding="utf-8"))
    assert source_map["mappings"] == ";" + theirs["mappings"]
    assert source_map["sources"] == theirs["sources"]
