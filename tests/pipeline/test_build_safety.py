"""A failed build leaves the previous site/ exactly as it was; a good one replaces it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ridgepoint.build.builder import build
from tests.pipeline.conftest import sample_tree
from tests.repo import LAYOUT


@pytest.fixture
def old_site(tmp_path: Path) -> Path:
    """A site/ from an earlier build: one page and a marker."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("previous build")
    return site


def leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("site."))


def assert_untouched(site: Path) -> None:
    assert [p.name for p in site.iterdir()] == ["index.html"]
    assert (site / "index.html").read_text() == "previous build"
    assert leftovers(site.parent) == []


def test_content_error_leaves_site_untouched(
    tmp_path: Path, old_site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = sample_tree(tmp_path / "root")
    (root / "glossary" / "goodput.yaml").write_text("term: Goodput\ntags: [batching]\n")
    status = build(LAYOUT.with_content(root), old_site, config_file=LAYOUT.mkdocs_yml,
                   stage_dir=tmp_path / "docs")
    assert status == 1
    assert "glossary/goodput.yaml:1: definition:" in capsys.readouterr().err
    assert_untouched(old_site)


def test_failed_mkdocs_build_leaves_site_untouched(tmp_path: Path, old_site: Path) -> None:
    root = sample_tree(tmp_path / "root")
    article = root / "content" / "articles" / "newer.md"
    article.write_text(article.read_text() + "\nA [broken link](no-such-page.md).\n")
    status = build(LAYOUT.with_content(root), old_site, config_file=LAYOUT.mkdocs_yml,
                   stage_dir=tmp_path / "docs")
    assert status == 1  # --strict turns the unresolved link into a failure
    assert_untouched(old_site)


def test_a_runtime_that_cannot_be_staged_is_one_clear_message(
    tmp_path: Path, old_site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A StagingError (here: npm packages never installed) says what to do, not a traceback."""
    root = sample_tree(tmp_path / "root")
    layout = dataclasses.replace(LAYOUT.with_content(root), node_modules=tmp_path / "missing")
    status = build(layout, old_site, config_file=LAYOUT.mkdocs_yml, stage_dir=tmp_path / "docs")
    assert status == 1
    err = capsys.readouterr().err
    assert err.startswith("cannot stage the browser runtime: ")
    assert "run `npm ci` (or `make setup`) first" in err and "left as it was" in err
    assert "Traceback" not in err
    assert_untouched(old_site)
