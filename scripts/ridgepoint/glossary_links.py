"""Link the first mention of each glossary term in a page's prose to its glossary entry.

The link's title is the definition, so Material's `content.tooltips` shows it on hover and
focus, and following it lands on `glossary/#<slug>`. Generated from the glossary YAML at
staging time, so a new term is linked everywhere on the next build.

Matching: a term's name in any case (it may open a sentence), an abbreviation exactly as
written (so "SLO" is linked and "slo" is not), either optionally followed by a plural "s",
whole words only. Longer names win over shorter ones they contain. Only prose is touched
(see `ridgepoint.prose`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from ridgepoint.markup import md_inline
from ridgepoint.model import Term
from ridgepoint.prose import prose_spans


def _normal(name: str) -> str:
    return " ".join(name.casefold().split())


def _first_word(name: str) -> str | None:
    """The first run of word characters of a term, lower-cased; None if it has none."""
    found = re.search(r"\w+", name.lower())
    return found.group() if found else None


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


class TermLinker:
    """Compiled once per build from the glossary; applied to every page."""

    def __init__(self, terms: Iterable[Term]) -> None:
        self._terms: dict[str, Term] = {}
        self._by_name: dict[str, str] = {}
        self._by_abbreviation: dict[str, str] = {}
        alternatives: list[tuple[int, str, str | None]] = []
        for term in terms:
            self._terms[term.slug] = term
            self._by_name[_normal(term.term)] = term.slug
            words = r"\s+".join(re.escape(word) for word in term.term.split())
            alternatives.append((len(term.term), f"(?i:{words})", _first_word(term.term)))
            if term.abbreviation:
                self._by_abbreviation[term.abbreviation] = term.slug
                alternatives.append((len(term.abbreviation), re.escape(term.abbreviation),
                                     _first_word(term.abbreviation)))
        alternatives.sort(key=lambda item: -item[0])
        self._alternatives = [(pattern, word) for _, pattern, word in alternatives]

    def _pattern(self, markdown: str) -> re.Pattern[str] | None:
        """One alternation of the terms that can occur in this page, longest first.

        A term can only match where its first word stands as a whole word (the match is
        delimited by non-word characters), in any case and maybe plural, so terms whose
        first word the page lacks are left out. The matches are the same as with every
        term in the pattern, but the regex engine no longer tries each term at each
        character: a page costs time in its own length, not its length times the glossary.
        """
        words = {word for word in re.findall(r"\w+", markdown.lower())}
        words |= {word[:-1] for word in words if word.endswith("s")}
        body = "|".join(pattern for pattern, first in self._alternatives
                        if first is None or first in words)
        return _compiled(rf"(?<![\w-])(?:{body})s?(?![\w-])") if body else None

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
        pattern = self._pattern(markdown)
        if pattern is None:
            return markdown
        linked: set[str] = set()
        edits: list[tuple[int, int, str]] = []
        for start, end in prose_spans(markdown):
            for match in pattern.finditer(markdown, start, end):
                slug = self._slug(match.group())
                if slug is None or slug in linked:
                    continue
                linked.add(slug)
                title = md_inline(self._terms[slug].definition)
                link = f'[{match.group()}]({glossary}#{slug} "{title}")'
                edits.append((match.start(), match.end(), link))
        for start, end, replacement in reversed(edits):
            markdown = markdown[:start] + replacement + markdown[end:]
        return markdown
