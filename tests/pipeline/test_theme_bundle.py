"""The built site serves its theme's bundle with V8's compile hint, its map kept in step,
whichever builder wrote it; nothing of the theme is staged."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ridgepoint.finishing.theme_bundle import (
    HINT,
    BundleError,
    hint_theme_bundle,
    hinted_bundle,
    shifted_map,
    the_bundle,
)

SCRIPTS = Path("assets") / "javascripts"


def test_the_hint_is_a_first_line_of_its_own() -> None:
    assert hinted_bundle('"use strict";x()') == '//# allFunctionsCalledOnLoad\n"use strict";x()'


def test_the_map_gains_one_empty_generated_line() -> None:
    original = {"version": 3, "sources": ["a.ts"], "mappings": "AAAA;AACA", "names": []}
    shifted = json.loads(shifted_map(json.dumps(original)))
    assert shifted == {**original, "mappings": ";AAAA;AACA"}


def test_a_bundle_and_its_map_are_hinted_in_place(tmp_path: Path) -> None:
    (tmp_path / SCRIPTS).mkdir(parents=True)
    bundle = tmp_path / SCRIPTS / "bundle.abc123.min.js"
    bundle.write_text("x()", encoding="utf-8")
    bundle.with_name(bundle.name + ".map").write_text('{"mappings":"AAAA"}', encoding="utf-8")
    assert hint_theme_bundle(tmp_path) == bundle
    assert bundle.read_text(encoding="utf-8") == HINT + "x()"
    assert bundle.with_name(bundle.name + ".map").read_text(encoding="utf-8") == \
        '{"mappings":";AAAA"}'


def test_a_bundle_without_a_map_is_hinted_alone(tmp_path: Path) -> None:
    (tmp_path / SCRIPTS).mkdir(parents=True)
    (tmp_path / SCRIPTS / "bundle.abc123.min.js").write_text("x()", encoding="utf-8")
    assert hint_theme_bundle(tmp_path).read_text(encoding="utf-8") == HINT + "x()"


@pytest.mark.parametrize("names", [[], ["bundle.a.min.js", "bundle.b.min.js"]])
def test_no_bundle_or_two_bundles_stop_the_finishing_pass(tmp_path: Path, names: list[str]
                                                         ) -> None:
    (tmp_path / SCRIPTS).mkdir(parents=True)
    for name in names:
        (tmp_path / SCRIPTS / name).write_text("x()", encoding="utf-8")
    with pytest.raises(BundleError, match="expected one"):
        the_bundle(tmp_path)


def test_the_built_pages_load_the_hinted_bundle_and_no_other(built_sample: Path) -> None:
    bundle = the_bundle(built_sample)  # exactly one: the theme's, no staged copy beside it
    served = bundle.read_text(encoding="utf-8")
    assert served.startswith(HINT) and served.count(HINT) == 1
    page = (built_sample / "index.html").read_text(encoding="utf-8")
    assert re.search(rf'<script src="assets/javascripts/{re.escape(bundle.name)}"', page)
    source_map = json.loads(bundle.with_name(bundle.name + ".map").read_text(encoding="utf-8"))
    assert source_map["mappings"].startswith(";")
