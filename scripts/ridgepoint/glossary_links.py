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
import sys
from collections.abc import Iterable, Iterator
from functools import cache

from ridgepoint.markup import md_inline
from ridgepoint.model import Term
from ridgepoint.prose import prose_spans


def _normal(name: str) -> str:
    return " ".join(name.casefold().split())


# A word and, looked ahead at, the run of non-space it starts.
_WORD_START = re.compile(r"(?<![\w-])(?=(\S+))\w+")
_NEXT_RUN = re.compile(r"\s+(\S+)")
# Where a term may end in a run of non-space: then comes an optional plural "s", then
# neither a word character nor a hyphen (the end of `_bounded`, tried at every position).
_MAY_END = re.compile(r"(?=s?(?![\w-]))")

# What reading one run of non-space tells (see `TermLinker._step`).
Found = tuple[tuple[int, str], ...]
Step = tuple[Found, str | None]


def _bounded(body: str) -> re.Pattern[str]:
    """Terms as whole words: not inside a word or a hyphenated compound, maybe plural."""
    return re.compile(rf"(?<![\w-])(?:{body})s?(?![\w-])")


@cache
def _every_character() -> str:
    return "".join(map(chr, range(sys.maxunicode + 1)))


@cache
def _fold_character(char: str) -> str:
    """The smallest character the regex engine's IGNORECASE takes `char` for. Asked of the
    engine itself because it is not `lower` or `casefold`: it matches "ſ" to "s" and "İ"
    to "i", and never "ß" to "ss". A character that `str` leaves as it is in both cases
    the engine matches only to itself (true of every code point in Python 3.11's tables,
    checked when this was written), so it costs nothing; a cased one costs one scan of all
    characters, the first time it is seen."""
    if char.lower() == char == char.upper():
        return char
    return min(re.findall("(?i)" + re.escape(char), _every_character()))


def _fold(text: str) -> str:
    """`text`, character for character, as IGNORECASE sees it: two texts fold alike exactly
    when `(?i:one)` matches the other. (For ASCII that is upper case: "ſ" and "K", the
    Kelvin sign, fold to "S" and "K" too.)"""
    return text.upper() if text.isascii() else "".join(map(_fold_character, text))


class TermLinker:
    """Compiled once per build from the glossary; applied to every page.

    One alternation of every term, tried at every word, makes a page cost its length times
    the glossary's size; one alternation per first word still costs the number of terms
    that share it, hundreds in a large glossary. A match is delimited by non-word
    characters, so it starts where a word of the page starts. There the page's next runs
    of non-space are read, folded as `(?i)` compares them, and at each place a term could
    end the text so far (words joined by single spaces) is looked up in one dict of every
    name and abbreviation: a lookup per place, whatever the glossary's size. The terms
    found are tried with their own patterns, only those filed under the page's word (their
    first word, lower-cased, or its plural) and in the one alternation's order (longest
    first), so the matches are that alternation's. What a run tells is remembered, as pages
    repeat their words. Should a term start with a non-word character, every page falls
    back to the plain alternation.
    """

    def __init__(self, terms: Iterable[Term]) -> None:
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
        self._patterns = [pattern for _, pattern, _ in alternatives]  # by order
        self._compiled: dict[int, re.Pattern[str]] = {}
        # Each alternative (its order, and the first word it is filed under) under its
        # words folded and joined by single spaces: a name matches only text that reads so,
        # and so does an abbreviation (its own pattern then decides case and spacing).
        self._filed: dict[str, list[tuple[int, str]]] = {}
        self._heads: set[str] = set()  # the folded first words of longer alternatives
        self._longest_word = 0
        self._read: dict[str, dict[str, Step]] = {"": {}}  # head -> run -> step
        self._everything: re.Pattern[str] | None = None
        for order, (_, _, name) in enumerate(alternatives):
            first = re.match(r"\w+", name.strip().lower())
            if first is None:
                self._everything = _bounded("|".join(self._patterns))
                break
            words = [_fold(word) for word in name.split()]
            self._filed.setdefault(" ".join(words), []).append((order, first.group()))
            self._heads.update(" ".join(words[:count]) for count in range(1, len(words)))
            self._longest_word = max(self._longest_word, *map(len, words))

    def _step(self, head: str, run: str) -> Step:
        """Reading a page's next run of non-space, `run`, after the words `head` (folded,
        each followed by a space; "" at a word start): the alternatives that could end in
        it, as (order, first word), and the head to read the next run with (None if no
        name goes on). At each place a term could end in `run` the text so far, folded, is
        looked up: a superset, since the alternative's own pattern decides. Remembered per
        head and run, as pages repeat their words (callers look in `_read` first)."""
        longest = self._longest_word
        text = run[: longest + 2]  # enough for the look-ahead at `longest`
        folded = _fold(text)
        places = [cut.start() for cut in _MAY_END.finditer(text, 1)]
        found = tuple(alternative for place in places if place <= longest
                      for alternative in self._filed.get(head + folded[:place], ()))
        read = head + folded
        after = read + " " if len(run) <= longest and read in self._heads else None
        if after is not None:
            self._read.setdefault(after, {})
        self._read[head][run] = (found, after)
        return found, after

    def _first(
        self, markdown: str, word: re.Match[str], end: int, found: Found
    ) -> re.Match[str] | None:
        """Where `word` starts, the match of the first of the alternatives `found` (in the
        alternation's order) filed under the word (lower-cased; or its singular, if it
        ends in "s") whose own pattern matches: what their alternation would match."""
        key = word.group().lower()
        keys = (key, key[:-1]) if key.endswith("s") else (key,)
        for order, first in sorted(found):
            if first not in keys:
                continue
            if order not in self._compiled:
                self._compiled[order] = re.compile(rf"(?:{self._patterns[order]})s?(?![\w-])")
            matched = self._compiled[order].match(markdown, word.start(), end)
            if matched:
                return matched
        return None

    def _matches(self, markdown: str, start: int, end: int) -> Iterator[re.Match[str]]:
        """Term mentions in markdown[start:end], left to right, not overlapping."""
        if self._everything is not None:
            yield from self._everything.finditer(markdown, start, end)
            return
        cursor, read, starts = start, self._read, self._read[""]
        for word in _WORD_START.finditer(markdown, start, end):
            if word.start() < cursor:
                continue
            run = word.group(1)
            found, head = starts.get(run) or self._step("", run)
            if head is not None:
                after = word.end(1)
                while head is not None and (following := _NEXT_RUN.match(markdown, after, end)):
                    run = following.group(1)
                    more, head = read[head].get(run) or self._step(head, run)
                    found += more
                    after = following.end()
            if found and (match := self._first(markdown, word, end, found)):
                cursor = match.end()
                yield match

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
                title = md_inline(self._terms[slug].definition)
                link = f'[{match.group()}]({glossary}#{slug} "{title}")'
                edits.append((match.start(), match.end(), link))
        pieces, cursor = [], 0
        for start, end, replacement in edits:
            pieces += [markdown[cursor:start], replacement]
            cursor = end
        return "".join([*pieces, markdown[cursor:]])
