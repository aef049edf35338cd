"""The finishing pass drops `autocomplete` from checkboxes and radio buttons only."""

from __future__ import annotations

from pathlib import Path

from ridgepoint.finishing.html_fixes import fix_pages, without_toggle_autocomplete


def test_the_themes_toggles_lose_autocomplete_and_text_inputs_keep_it() -> None:
    page = (b'<input class="md-toggle" data-md-toggle="drawer" type="checkbox" id="__drawer" '
            b'autocomplete="off"><input type=radio autocomplete=off name="p">'
            b'<input type="text" name="query" autocomplete="off">')
    assert without_toggle_autocomplete(page) == (
        b'<input class="md-toggle" data-md-toggle="drawer" type="checkbox" id="__drawer">'
        b'<input type=radio name="p"><input type="text" name="query" autocomplete="off">')


def test_pages_are_rewritten_only_when_something_changes(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_bytes(b'<input type="checkbox" autocomplete="off">')
    (tmp_path / "b.html").write_bytes(b"<p>nothing to fix</p>")
    assert fix_pages(tmp_path) == 1
    assert (tmp_path / "a" / "index.html").read_bytes() == b'<input type="checkbox">'
    assert (tmp_path / "b.html").read_bytes() == b"<p>nothing to fix</p>"
