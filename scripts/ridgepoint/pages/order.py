"""The orders listings and feeds use, defined once so a page and its feed never disagree."""

from __future__ import annotations

from collections.abc import Iterable

from ridgepoint.content.model import Article, Explainer, Reading, Term
from ridgepoint.content.schemafiles import schemas

# Beginner first: the order the explainer schema lists its levels in.
LEVELS = tuple(schemas()["explainer.schema.json"]["properties"]["level"]["enum"])


def newest_readings(readings: Iterable[Reading]) -> list[Reading]:
    """Newest `added` first; same day by title, so the order never depends on file order."""
    by_title = sorted(readings, key=lambda r: (r.title.casefold(), r.slug))
    return sorted(by_title, key=lambda r: r.added, reverse=True)


def newest_articles(articles: Iterable[Article]) -> list[Article]:
    """Newest `updated` first, ties by title."""
    by_title = sorted(articles, key=lambda a: (a.title.casefold(), a.slug))
    return sorted(by_title, key=lambda a: a.updated, reverse=True)


def explainers_by_level(explainers: Iterable[Explainer]) -> list[Explainer]:
    """Beginner first, so a hub reads as a path into the topic; then by title."""
    return sorted(explainers, key=lambda e: (LEVELS.index(e.level), e.title.casefold(), e.slug))


def terms_alphabetical(terms: Iterable[Term]) -> list[Term]:
    """As a glossary is read: by the term's name, ignoring case."""
    return sorted(terms, key=lambda t: (t.term.casefold(), t.slug))
