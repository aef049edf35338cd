"""What every generated page shares: escaped front matter and literal Markdown headings."""

from __future__ import annotations

import re

import yaml

from ridgepoint.base.markup import esc, md_inline


def page(
    title: str, *blocks: str, description: str, own_feed: tuple[str, str] | None = None
) -> str:
    """A Markdown page: front matter, an H1 with the title, then `blocks` separated by blank
    lines (so each HTML block stands alone and Markdown leaves it raw).

    Every generated page has a description of its own (search results and link previews
    show it). `own_feed` is the page's own Atom feed, (site-root URL, its title after the
    site's name), which the page then names for feed readers (overrides/partials/
    discovery.html reads `atom_feed` and `atom_feed_title`). The front matter values are
    HTML-escaped because Material and our templates print them into the page unescaped.
    """
    meta = {"title": esc(title), "description": esc(description)}
    if own_feed:
        meta["atom_feed"], meta["atom_feed_title"] = own_feed[0], esc(own_feed[1])
    front = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=1_000_000)
    body = "\n\n".join(block for block in (heading(1, title), *blocks) if block)
    return f"---\n{front}---\n\n{body}\n"


def heading(level: int, text: str, anchor: str | None = None) -> str:
    """A Markdown heading (so it reaches the table of contents) whose text is literal."""
    attrs = f" {{#{anchor}}}" if anchor else ""
    return f"{'#' * level} {md_inline(text)}{attrs}"


def anchor_slug(text: str) -> str:
    """A readable, ASCII-only id for a heading written by an editor."""
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-") or "section"


def paragraph(html: str, css: str) -> str:
    """One line of prose as an HTML block with a class the stylesheet knows."""
    return f'<p class="{css}">{html}</p>'
