"""Staging writes only what changed, prunes what is gone, escapes front matter, and writes
nothing at all when content has errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from ridgepoint.base.errors import ContentErrors
from ridgepoint.staging.stage import _front_matter, stage_site
from ridgepoint.staging.sync import sync
from tests.pipeline.conftest import sample_tree
from tests.repo import LAYOUT

OLD = 1_000_000_000_000_000_000  # a marker mtime (ns): a rewritten file gets a new one


def mtimes(folder: Path) -> dict[str, int]:
    return {
        p.relative_to(folder).as_posix(): p.stat().st_mtime_ns
        for p in folder.rglob("*")
        if p.is_file()
    }


def test_sync_touches_only_changed_files_and_prunes(tmp_path: Path) -> None:
    source = tmp_path / "source.bin"
    source.write_bytes(b"copied")
    stage = tmp_path / "stage"
    report = sync(stage, {"a.md": b"a", "sub/b.md": b"b", "c.bin": source, "gone/d.md": b"d"})
    assert sorted(report.written) == ["a.md", "c.bin", "gone/d.md", "sub/b.md"]
    # A copy keeps its source's time: that (with the size) is how sync knows it is current.
    assert (stage / "c.bin").stat().st_mtime_ns == source.stat().st_mtime_ns
    for path in stage.rglob("*.md"):
        os.utime(path, ns=(OLD, OLD))

    report = sync(stage, {"a.md": b"a", "sub/b.md": b"B", "c.bin": source})
    assert report.written == ["sub/b.md"] and report.removed == ["gone/d.md"]
    times = mtimes(stage)
    assert times["a.md"] == OLD and times["sub/b.md"] != OLD
    assert times["c.bin"] == source.stat().st_mtime_ns
    assert not (stage / "gone").exists()
    assert (stage / "c.bin").read_bytes() == b"copied"


def test_sync_copies_a_source_again_when_it_changes(tmp_path: Path) -> None:
    source = tmp_path / "source.bin"
    source.write_bytes(b"copied")
    stage = tmp_path / "stage"
    sync(stage, {"c.bin": source})
    source.write_bytes(b"edited")  # same size: the new modification time tells
    os.utime(source, ns=(OLD, OLD))
    assert sync(stage, {"c.bin": source}).written == ["c.bin"]
    assert (stage / "c.bin").read_bytes() == b"edited"
    (stage / "c.bin").write_bytes(b"damaged")  # changed in the staging tree: put back
    assert sync(stage, {"c.bin": source}).written == ["c.bin"]
    assert (stage / "c.bin").read_bytes() == b"edited"


def test_front_matter_is_escaped_and_described() -> None:
    meta = {"title": "A & <em>B</em>", "summary": "S <b>", "published": "2026-01-01"}
    staged = yaml.safe_load(_front_matter(meta).strip("-\n"))
    assert staged == {
        "title": "A &amp; &lt;em&gt;B&lt;/em&gt;",
        "summary": "S <b>",
        "published": "2026-01-01",
        "description": "S &lt;b&gt;",
    }
    assert _front_matter({}) == ""


def test_content_errors_write_nothing(tmp_path: Path) -> None:
    root = sample_tree(tmp_path / "root")
    stage = tmp_path / "docs"
    stage.mkdir()
    (stage / "index.md").write_text("last good staging")
    (root / "feed" / "talk.yaml").write_text("kind: talk\n")
    with pytest.raises(ContentErrors) as raised:
        stage_site(LAYOUT.with_content(root), LAYOUT.mkdocs_yml, stage)
    assert "feed/talk.yaml:1: title:" in str(raised.value)
    assert [p.name for p in stage.iterdir()] == ["index.md"]
    assert (stage / "index.md").read_text() == "last good staging"


def test_content_may_not_shadow_a_generated_page(tmp_path: Path) -> None:
    root = sample_tree(tmp_path / "root")
    (root / "content" / "glossary").mkdir()
    (root / "content" / "glossary" / "index.md").write_text("# Mine\n")
    with pytest.raises(ContentErrors) as raised:
        stage_site(LAYOUT.with_content(root), LAYOUT.mkdocs_yml, tmp_path / "docs")
    assert "content/glossary/index.md:1: file: would replace a page" in str(raised.value)
