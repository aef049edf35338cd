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

import re
from collections.abc import Iterable

from ridgepoint.markup import md_inline
from ridgepoint.model import Term
from ridgepoint.prose import prose_spans


def _normal(name: str) -> str:
    return " ".join(name.casefold().split())


class TermLinker:
    """Compiled once per build from the glossary; applied to every page."""

    def __init__(self, terms: Iterable[Term]) -> None:
        self._terms: dict[str, Term] = {}
        self._by_name: dict[str, str] = {}
        self._by_abbreviation: dict[str, str] = {}
        alternatives: list[tuple[int, str]] = []
        for term in terms:
            self._terms[term.slug] = term
            self._by_name[_normal(term.term)] = term.slug
            words = r"\s+".join(re.escape(word) for word in term.term.split())
            alternatives.append((len(term.term), f"(?i:{words})"))
            if term.abbreviation:
                self._by_abbreviation[term.abbreviation] = term.slug
                alternatives.append((len(term.abbreviation), re.escape(term.abbreviation)))
        alternatives.sort(key=lambda item: -item[0])
        body = "|".join(pattern for _, pattern in alternatives)
        self._pattern = re.compile(rf"(?<![\w-])(?:{body})s?(?![\w-])") if body else None

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
        if self._pattern is None:
            return markdown
        linked: set[str] = set()
        edits: list[tuple[int, int, str]] = []
        for start, end in prose_spans(markdown):
            for match in self._pattern.finditer(markdown, start, end):
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
