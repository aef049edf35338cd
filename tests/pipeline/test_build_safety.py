"""A failed build leaves the previous site/ exactly as it was; a good one replaces it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgepoint.builder import build
from tests.pipeline.conftest import REPO, fixture_tree


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
    root = fixture_tree(tmp_path / "root")
    (root / "glossary" / "goodput.yaml").write_text("term: Goodput\ntags: [batching]\n")
    status = build(root, old_site, config_file=REPO / "mkdocs.yml", stage_dir=tmp_path / "docs")
    assert status == 1
    assert "glossary/goodput.yaml:1: definition:" in capsys.readouterr().err
    assert_untouched(old_site)


def test_failed_mkdocs_build_leaves_site_untouched(tmp_path: Path, old_site: Path) -> None:
    root = fixture_tree(tmp_path / "root")
    article = root / "content" / "articles" / "newer-article.md"
    article.write_text(article.read_text() + "\nA [broken link](no-such-page.md).\n")
    status = build(root, old_site, config_file=REPO / "mkdocs.yml", stage_dir=tmp_path / "docs")
    assert status == 1  # --strict turns the unresolved link into a failure
    assert_untouched(old_site)
