"""Glossary links: first prose mention only, never inside code, headings, links or HTML."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import markdown

from ridgepoint.glossary_links import TermLinker
from ridgepoint.model import Term

GLOSSARY = "../glossary/index.md"
TERMS = [
    Term(
        "ttft",
        "Time to first token",
        'The wait, "queue" & (prefill) included.',
        ("latency",),
        "TTFT",
    ),
    Term("itl", "Inter-token latency", "The gap between tokens.", ("latency",), "ITL"),
    Term("goodput", "Goodput", "Throughput that met its targets.", ("latency",)),
    Term("slo", "Service level objective", "A latency promise.", ("latency",), "SLO"),
    Term("spec", "Speculative decoding", "Draft, then verify.", ("latency",)),
    Term("decoding", "Decoding", "Making tokens.", ("latency",)),
]
EXTENSIONS = [
    "toc",
    "attr_list",
    "md_in_html",
    "abbr",
    "admonition",
    "tables",
    "pymdownx.superfences",
]


def link(text: str) -> str:
    return TermLinker(TERMS).link(text, GLOSSARY)


class Links(HTMLParser):
    """(href, title, text) of every link in rendered HTML."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str | None, str]] = []
        self._open: tuple[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            values = dict(attrs)
            self._open, self._text = (values.get("href") or "", values.get("title")), []

    def handle_data(self, data: str) -> None:
        if self._open:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._open:
            self.found.append((*self._open, "".join(self._text)))
            self._open = None


def rendered_links(text: str) -> list[tuple[str, str | None, str]]:
    parser = Links()
    parser.feed(markdown.markdown(link(text), extensions=EXTENSIONS))
    return parser.found


def test_first_mention_is_linked_with_the_definition_as_title() -> None:
    found = rendered_links("Time to first token (TTFT) matters. Later, TTFT again.")
    assert found == [
        (f"{GLOSSARY}#ttft", 'The wait, "queue" & (prefill) included.', "Time to first token")
    ]


def test_abbreviations_are_case_sensitive_and_names_are_not() -> None:
    assert [t for _, _, t in rendered_links("an slo, then an SLO.")] == ["SLO"]
    assert [t for _, _, t in rendered_links("GOODPUT counts.")] == ["GOODPUT"]


def test_plurals_whole_words_and_line_breaks() -> None:
    found = rendered_links("Two SLOs. Non-goodput stays. Inter-token\nlatency spans lines.")
    assert [t for _, _, t in found] == ["SLOs", "Inter-token\nlatency"]


def test_longer_name_wins_over_a_shorter_one_inside_it() -> None:
    found = rendered_links("Speculative decoding first; decoding later.")
    assert [(h.rsplit("#", 1)[1], t) for h, _, t in found] == [
        ("spec", "Speculative decoding"),
        ("decoding", "decoding"),
    ]


def test_nothing_outside_prose_is_touched() -> None:
    text = "\n".join(
        [
            "# Goodput in a heading",
            "",
            "Setext heading with TTFT",
            "------------------------",
            "",
            "Inline `ITL` code, [a link about goodput](x.md), <https://x.org/SLO>, "
            "<span>SLO</span>, https://x.org/goodput and ![ITL](i.png).",
            "",
            "```sim",
            "module: batching  # goodput",
            "```",
            "",
            "    indented code: goodput",
            "",
            '!!! note "Goodput title"',
            "",
            "<div>",
            "goodput in html",
            "",
            "still html: goodput",
            "</div>",
            "",
            "| ITL | goodput |",
            "|-----|---------|",
            "| 1   | 2       |",
            "",
            "[ref]: https://x.org/goodput",
        ]
    )
    assert link(text) == text


def test_admonition_bodies_and_list_items_are_prose() -> None:
    text = '!!! note "A note"\n\n    Inside, goodput counts.\n\n- a list item with ITL\n'
    assert [t for _, _, t in rendered_links(text)] == ["goodput", "ITL"]


def test_links_survive_markdown_rendering_in_emphasis() -> None:
    html = markdown.markdown(link("**Goodput** matters."), extensions=EXTENSIONS)
    assert re.search(r'<strong><a href="[^"]+#goodput" title="[^"]+">Goodput</a></strong>', html)
