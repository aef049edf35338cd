"""Escaping, wording and link helpers shared by every generated page."""

from __future__ import annotations

import html

import markdown
import pytest

from ridgepoint.base import urls
from ridgepoint.base.markup import count, md_inline, short_authors
from ridgepoint.pages.hub import counts_line

EXTENSIONS = ["toc", "attr_list", "md_in_html", "abbr", "pymdownx.tilde", "pymdownx.mark"]


@pytest.mark.parametrize(
    ("authors", "shown"),
    [
        (("A",), "A"),
        (("A", "B", "C"), "A, B, C"),
        (("A", "B", "C", "D"), "A, B, C and others"),
    ],
)
def test_short_authors_keeps_three_names(authors: tuple[str, ...], shown: str) -> None:
    assert short_authors(authors) == shown


def test_counts_line_singular_and_plural() -> None:
    assert counts_line(1, 1, 1) == (
        "1 explainer you can run, 1 glossary term, and 1 reading ordered as a path"
    )
    assert counts_line(8, 10, 6) == (
        "8 explainers you can run, 10 glossary terms, and 6 readings ordered as a path"
    )
    assert count(0, "term", "terms") == "0 terms"


@pytest.mark.parametrize(
    "text",
    ["<script>alert(1)</script>", "*stars* _under_ `tick` [l](u) {#id} ~~del~~ ==mark==", "a & b"],
)
def test_md_inline_text_survives_markdown_literally(text: str) -> None:
    """Headings and link titles carry YAML text; Markdown must read none of it as markup."""
    rendered = markdown.markdown(f"## {md_inline(text)}", extensions=EXTENSIONS)
    assert "<script" not in rendered and "<em>" not in rendered and "<code>" not in rendered
    inner = rendered.split(">", 1)[1].removesuffix("</h2>")
    assert html.unescape(inner) == text


@pytest.mark.parametrize(
    ("here", "target", "link"),
    [
        ("feed/tags/latency/", "glossary/#ttft", "../../../glossary/#ttft"),
        ("glossary/", "glossary/#ttft", "#ttft"),
        ("feed/", "feed.xml", "../feed.xml"),
        ("", "glossary/", "glossary/"),
        ("tags/latency/", "", "../../"),
    ],
)
def test_relative_links(here: str, target: str, link: str) -> None:
    assert urls.relative(here, target) == link
