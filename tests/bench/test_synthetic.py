"""The synthetic content generator writes valid content, N times the real site's."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from bench import synthetic
from ridgepoint.staging.stage import stage_site
from tests.repo import LAYOUT, REPO


def test_twice_the_content_loads_and_stages(tmp_path: Path) -> None:
    unit = synthetic.real_counts(REPO)
    counts = synthetic.generate(REPO, tmp_path / "root", 2)
    assert counts == synthetic.Counts(2 * unit.terms, 2 * unit.readings, 2 * unit.articles)
    assert synthetic.check(tmp_path / "root") == counts  # every file passes validation

    report = stage_site(LAYOUT.with_content(tmp_path / "root"),
                        stage_dir=tmp_path / "stage" / "docs")
    staged = tmp_path / "stage" / "docs"
    article = (staged / "articles" / "syn-article-0.md").read_text(encoding="utf-8")
    assert 'data-sim="' in article  # the sim block became a widget
    assert "{{" not in article  # the figure placeholder was filled in
    assert "](../../glossary/index.md#" in article or "glossary/index.md#" in article
    assert any(path.startswith("articles/syn-article-") for path in report.written)
    assert not (REPO / "glossary" / "syn-term-0.yaml").exists()  # nothing in the real tree


def test_the_generator_is_deterministic(tmp_path: Path) -> None:
    synthetic.generate(REPO, tmp_path / "a", 2)
    synthetic.generate(REPO, tmp_path / "b", 2)
    for name in ("glossary/syn-term-3.yaml", "feed/syn-reading-1.yaml",
                 "content/articles/syn-article-2.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_an_article_is_the_same_shape_at_every_scale(tmp_path: Path) -> None:
    # Staging links each term's first mention: if an article drew its mentions from the
    # whole glossary, the same article would carry more links (and bytes) at a larger
    # scale, and the bench would measure richer articles rather than more of them.
    mentioned = {}
    for factor in (3, 6):
        root = tmp_path / f"{factor}x"
        synthetic.generate(REPO, root, factor)
        names = {yaml.safe_load(path.read_text(encoding="utf-8"))["term"].lower()
                 for path in (root / "glossary").glob("syn-term-*.yaml")}
        text = (root / "content" / "articles" / "syn-article-0.md").read_text(encoding="utf-8")
        mentioned[factor] = {name for name in names if re.search(rf"\b{name}\b", text)}
    assert len(mentioned[3]) == len(mentioned[6]) == synthetic.TERMS_PER_ARTICLE
