"""Glossary links: first prose mention only, never inside code, headings, links or HTML."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import markdown

from ridgepoint.content.model import Term
from ridgepoint.prose.glossary_links import TermLinker

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


def linked(terms: list[Term], text: str) -> list[tuple[str, str]]:
    """(slug, linked text) of each link a linker for `terms` makes in `text`."""
    found = re.findall(r'\[([^\]]*)\]\([^)#]*#([\w-]+) "', TermLinker(terms).link(text, GLOSSARY))
    return [(slug, words) for words, slug in found]


def term(slug: str, name: str, abbreviation: str | None = None) -> Term:
    return Term(slug, name, f"About {name}.", ("latency",), abbreviation)


KV = [
    term("kv-cache", "KV cache"),
    term("kv-cache-hit-rate", "KV cache hit rate"),
    term("kv", "Key value", "KV"),
]


def test_any_spacing_between_a_names_words_and_a_plural_of_the_whole_name() -> None:
    text = "Time  to\tfirst\n   token matters, as do service\nlevel  objectives."
    assert linked(TERMS, text) == [
        ("ttft", "Time  to\tfirst\n   token"),
        ("slo", "service\nlevel  objectives"),
    ]


def test_the_plural_is_a_lower_case_s_and_abbreviations_keep_their_case() -> None:
    text = "GOODPUTS, TTFTS, Ttft and ttft; then Goodputs and TTFTs."
    assert linked(TERMS, text) == [("goodput", "Goodputs"), ("ttft", "TTFTs")]


def test_a_name_that_starts_a_longer_one_is_linked_where_the_longer_stops() -> None:
    text = "A KV cache hit is not a KV cache hit rate, nor are KV stores."
    assert linked(KV, text) == [
        ("kv-cache", "KV cache"),
        ("kv-cache-hit-rate", "KV cache hit rate"),
        ("kv", "KV"),
    ]
    text = "KV cache hit rates fall as the KV cache grows."
    assert linked(KV, text) == [
        ("kv-cache-hit-rate", "KV cache hit rates"),
        ("kv-cache", "KV cache"),
    ]


def test_names_with_punctuation_and_hyphens_are_whole_words() -> None:
    terms = [term("cpp", "C++ kernel"), term("prefill", "Pre-fill"), term("us", "U.S. region")]
    text = "A non-pre-fill, pre-fill-heavy C++ kernel in two U.S. regions pre-fills."
    assert linked(terms, text) == [
        ("cpp", "C++ kernel"),
        ("us", "U.S. regions"),
        ("prefill", "pre-fills"),
    ]


def test_case_is_ignored_as_the_regex_engine_ignores_it() -> None:
    """Capital sharp s matches "ß" and long s matches "s", but "ss" does not match "ß"."""
    terms = [term("strasse", "Straße"), TERMS[0]]
    text = "The STRAẞE is long, as is the Time to firſt token."
    assert linked(terms, text) == [("strasse", "STRAẞE"), ("ttft", "Time to firſt token")]
    assert linked(terms, "A Strasse; the TIME TO FIRST TOKEN.") == [
        ("ttft", "TIME TO FIRST TOKEN")
    ]


def test_a_linker_links_each_page_as_a_fresh_one_would() -> None:
    """It remembers what the words it has read told it; a later page is unaffected."""
    pages = [
        "cache hit rates and a KV cache hit rate.",
        "KV cache hit rates, a KV cache.",
        "KV stores; the KV cache hit.",
    ] * 2
    linker = TermLinker(KV)
    assert [linker.link(page, GLOSSARY) for page in pages] == [
        TermLinker(KV).link(page, GLOSSARY) for page in pages
    ]
