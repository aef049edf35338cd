"""Link the first mention of each glossary term in a page's prose to its glossary entry.

The link's title is the definition, so Material's `content.tooltips` shows it on hover and
focus, and following it lands on `glossary/#<slug>`. Generated from the glossary YAML at
staging time, so a new term is linked everywhere on the next build.

Matching: a term's name in any case (it may open a sentence), an abbreviation exactly as
written (so "SLO" is linked and "slo" is not), either optionally followed by a plural "s",
whole words only. Longer names win over shorter ones they contain. Only prose is touched
(see `ridgepoint.prose.spans`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ridgepoint.base.markup import md_inline
from ridgepoint.content.model import Term
from ridgepoint.prose.spans import prose_spans


def _normal(name: str) -> str:
    return " ".join(name.casefold().split())


_WORD_START = re.compile(r"(?<![\w-])\w+")


def _bounded(body: str) -> re.Pattern[str]:
    """Terms as whole words: not inside a word or a hyphenated compound, maybe plural."""
    return re.compile(rf"(?<![\w-])(?:{body})s?(?![\w-])")


class TermLinker:
    """Compiled once per build from the glossary; applied to every page.

    One alternation of every term, tried at every character, would make a page cost its
    length times the glossary's size. A match is delimited by non-word characters, so it
    starts where a word of the page starts and that word is the term's first (or, for a
    one-word term, its plural). So each term is filed under its first word, and at each
    word of the page only the terms filed under it are tried, in the alternation's order
    (longest first): the matches are the same, at a cost linear in the page. Should a term
    start with a non-word character, every page falls back to the plain alternation.
    """

    def __init__(self, terms: Iterable[Term]) -> None:
        self.used: set[str] = set()  # every term linked so far (by slug), for staging's cache
        self._terms: dict[str, Term] = {}
        self._by_name: dict[str, str] = {}
        self._by_abbreviation: dict[str, str] = {}
        alternatives: list[tuple[int, str, str]] = []  # (length, pattern, name)
        for term in terms:
            self._terms[term.slug] = term
            self._by_name[_normal(term.term)] = term.slug
            words = r"\s+".join(re.escape(word) for word in term.term.split())
            alternatives.append((len(term.term), f"(?i:{words})", term.term))
            if term.abbreviation:
                self._by_abbreviation[term.abbreviation] = term.slug
                alternatives.append((len(term.abbreviation), re.escape(term.abbreviation),
                                     term.abbreviation))
        alternatives.sort(key=lambda item: -item[0])
        self._filed: dict[str, list[tuple[int, str]]] = {}  # first word -> (order, pattern)
        self._everything: re.Pattern[str] | None = None
        for order, (_, pattern, name) in enumerate(alternatives):
            first = re.match(r"\w+", name.strip().lower())
            if first is None:
                self._everything = _bounded("|".join(p for _, p, _ in alternatives))
                break
            self._filed.setdefault(first.group(), []).append((order, pattern))
        self._compiled: dict[str, re.Pattern[str] | None] = {}

    def _at_word(self, key: str) -> re.Pattern[str] | None:
        """The alternation of the terms that may start at a word `key` (lower-cased), in
        the global order; compiled once per distinct word."""
        if key not in self._compiled:
            filed = self._filed.get(key, [])
            if key.endswith("s"):
                filed = sorted(filed + self._filed.get(key[:-1], []))
            body = "|".join(pattern for _, pattern in filed)
            self._compiled[key] = _bounded(body) if body else None
        return self._compiled[key]

    def _matches(self, markdown: str, start: int, end: int) -> Iterator[re.Match[str]]:
        """Term mentions in markdown[start:end], left to right, not overlapping."""
        if self._everything is not None:
            yield from self._everything.finditer(markdown, start, end)
            return
        cursor = start
        for word in _WORD_START.finditer(markdown, start, end):
            if word.start() < cursor:
                continue
            pattern = self._at_word(word.group().lower())
            found = pattern.match(markdown, word.start(), end) if pattern else None
            if found:
                cursor = found.end()
                yield found

    def _lookup(self, text: str) -> str | None:
        return self._by_abbreviation.get(text) or self._by_name.get(_normal(text))

    def _slug(self, matched: str) -> str | None:
        """The slug a match names; a trailing "s" is a plural unless the name has it."""
        return self._lookup(matched) or self._lookup(matched[:-1])

    def link(self, markdown: str, glossary: str) -> str:
        """`markdown` with each term's first prose mention linked to `glossary#<slug>`.

        `glossary` is the path from the page to the glossary's Markdown file, so MkDocs
        checks the link and rewrites it to the page's URL.
        """
        if not self._terms:
            return markdown
        linked: set[str] = set()
        edits: list[tuple[int, int, str]] = []
        for start, end in prose_spans(markdown):
            for match in self._matches(markdown, start, end):
                slug = self._slug(match.group())
                if slug is None or slug in linked:
                    continue
                linked.add(slug)
                self.used.add(slug)
                title = md_inline(self._terms[slug].definition)
                link = f'[{match.group()}]({glossary}#{slug} "{title}")'
                edits.append((match.start(), match.end(), link))
        pieces, cursor = [], 0
        for start, end, replacement in edits:
            pieces += [markdown[cursor:start], replacement]
            cursor = end
        return "".join([*pieces, markdown[cursor:]])
