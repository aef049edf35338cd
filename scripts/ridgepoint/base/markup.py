"""Small, escaping-first helpers for the HTML and Markdown that generated pages emit.

Every string from YAML passes through `esc` (inside HTML) or `md_inline` (inside Markdown)
before it reaches a page: MkDocs' templates do not autoescape and Python-Markdown passes raw
HTML through, so escaping here is the only guard (the README's "The pipeline", Contracts).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from datetime import date

MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip

MAX_AUTHORS = 3


def esc(text: str) -> str:
    """Text for HTML content or a double-quoted attribute."""
    return html.escape(text, quote=True)


def md_inline(text: str) -> str:
    """Text for a Markdown inline context (heading, link text, link title) shown literally.

    Every ASCII character that is not a letter, digit or space becomes a numeric character
    reference, so neither Markdown nor any extension (emphasis, attr_list, tilde, ...) can
    read meaning into it, and HTML cannot either; browsers decode it back to the original.
    """
    return "".join(c if c.isalnum() or c == " " or ord(c) > 127 else f"&#{ord(c)};" for c in text)


def count(n: int, singular: str, plural: str) -> str:
    """ "1 glossary term", "2 glossary terms", "0 glossary terms"."""
    return f"{n} {singular if n == 1 else plural}"


def short_authors(authors: Sequence[str]) -> str:
    """Up to three names, then "and others": a path stays scannable with long author lists."""
    shown = ", ".join(authors[:MAX_AUTHORS])
    return f"{shown} and others" if len(authors) > MAX_AUTHORS else shown


def human_date(day: date) -> str:
    """A date as readers write it, independent of the machine's locale."""
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def time_tag(day: date) -> str:
    """A <time> element: readable text, machine-readable attribute."""
    return f'<time datetime="{day.isoformat()}">{human_date(day)}</time>'


def badge(text: str, attribute: str, value: str) -> str:
    """A small quiet label, e.g. a reading's kind or an explainer's level.

    `data-<attribute>` carries the raw value so the stylesheet can tint by it; it is never
    `data-kind`, which marks listed items only (the markup hooks in the README's Contracts).
    """
    return f'<span class="rp-badge" data-{attribute}="{esc(value)}">{esc(text)}</span>'


def link(href: str, text: str) -> str:
    """An anchor, text and href escaped. A YAML `url` reaches here only after the loader
    checked it is an http(s) URL; escaping cannot make a `javascript:` link safe."""
    return f'<a href="{esc(href)}">{esc(text)}</a>'


def chips(items: Iterable[tuple[str, str]]) -> str:
    """Tag chips in Material's own tag markup (`.md-tags` / `.md-tag`): (href, label) pairs."""
    inner = "".join(
        f'<a class="md-tag" href="{esc(href)}">{esc(label)}</a>' for href, label in items
    )
    return f'<nav class="md-tags rp-chips">{inner}</nav>' if inner else ""
