"""One renderer per kind of listed item: explainer card, term, reading, article.

Hubs, the reading feed, the glossary and the listings all show the same items, so each is
rendered in one place. Every item carries `data-kind` (a markup hook: README, Contracts) and is
plain HTML with every YAML string escaped. `here` is the URL of the page the item is
rendered on; links are made relative to it.
"""

from __future__ import annotations

from collections.abc import Iterable

from ridgepoint.base import urls
from ridgepoint.base.markup import badge, chips, esc, link, short_authors, time_tag
from ridgepoint.content.model import Article, Explainer, Reading, Site, Term


def tag_chips(site: Site, tags: Iterable[str], here: str) -> str:
    """Chips for `tags`, each linking to its hub."""
    return chips((urls.relative(here, urls.hub(t)), site.tags[t].label) for t in tags)


def explainer_card(explainer: Explainer, here: str) -> str:
    """A Material card (`.grid.cards > ul > li`): level badge, linked title, one-line hook."""
    href = urls.relative(here, urls.explainer(explainer.slug))
    return (
        f'<li data-kind="explainer">'
        f"<p>{badge(explainer.level.capitalize(), 'level', explainer.level)}</p>"
        f'<p class="rp-title">{link(href, explainer.title)}</p>'
        f'<p class="rp-hook">{esc(explainer.hook)}</p>'
        f"</li>"
    )


def explainer_grid(explainers: Iterable[Explainer], here: str) -> str:
    """Explainers as Material's grid of cards."""
    cards = "\n".join(explainer_card(e, here) for e in explainers)
    return f'<div class="grid cards rp-explainers">\n<ul>\n{cards}\n</ul>\n</div>'


def abbreviation(term: Term) -> str:
    """The abbreviation as an <abbr> titled with the full term (a tooltip under Material)."""
    if not term.abbreviation:
        return ""
    return f' <abbr title="{esc(term.term)}">{esc(term.abbreviation)}</abbr>'


def term_row(term: Term, here: str) -> str:
    """A term in a hub's definition list, linked to its glossary entry."""
    href = urls.relative(here, urls.term(term.slug))
    return (
        f'<div class="rp-term" data-kind="term">'
        f"<dt>{link(href, term.term)}{abbreviation(term)}</dt>"
        f"<dd>{esc(term.definition)}</dd>"
        f"</div>"
    )


def term_entry(site: Site, term: Term, here: str) -> str:
    """A term on the glossary page: its own anchor, definition, related terms, tags. Its
    heading is an <h2>, one level below the page's title (headings must not skip a level)."""
    related = ", ".join(
        link(urls.relative(here, urls.term(slug)), site.terms[slug].term) for slug in term.related
    )
    related_line = f'<p class="rp-related">Related: {related}</p>' if related else ""
    return (
        f'<section class="rp-term" data-kind="term" id="{esc(term.slug)}">'
        f"<h2>{esc(term.term)}{abbreviation(term)}</h2>"
        f"<p>{esc(term.definition)}</p>"
        f"{related_line}{tag_chips(site, term.tags, here)}"
        f"</section>"
    )


def reading_entry(site: Site, reading: Reading, here: str, *, anchored: bool = False) -> str:
    """A reading: kind badge, title (linked when it has a URL), why, byline, tag chips.

    `anchored` gives it an id and shows the date it was added: the reading feed page is
    where feeds point to and where a reader scans for what is new.
    """
    title = link(reading.url, reading.title) if reading.url else esc(reading.title)
    byline = [f'<span class="rp-authors">{esc(short_authors(reading.authors))}</span>']
    if reading.where:
        byline.append(f'<span class="rp-where">{esc(reading.where)}</span>')
    if anchored:
        byline.append(f'<span class="rp-added">Added {time_tag(reading.added)}</span>')
    anchor = f' id="{esc(reading.slug)}"' if anchored else ""
    kind = badge(reading.kind.capitalize(), "reading-kind", reading.kind)
    return (
        f'<li class="rp-reading" data-kind="reading"{anchor}>'
        f'<p class="rp-title">{kind} {title}</p>'
        f'<p class="rp-why">{esc(reading.why)}</p>'
        f'<p class="rp-byline">{"".join(byline)}</p>'
        f"{tag_chips(site, reading.tags, here)}"
        f"</li>"
    )


def reading_list(
    site: Site,
    readings: Iterable[Reading],
    here: str,
    *,
    start: int | None = None,
    anchored: bool = False,
) -> str:
    """Readings one per row; numbered (continuing from `start`) when they form a path."""
    rows = "\n".join(reading_entry(site, r, here, anchored=anchored) for r in readings)
    if start is None:
        return f'<ul class="rp-readings">\n{rows}\n</ul>'
    return f'<ol class="rp-readings rp-path" start="{start}">\n{rows}\n</ol>'


def article_entry(site: Site, article: Article, here: str) -> str:
    """An article in a listing: linked title, updated date, summary, tag chips."""
    href = urls.relative(here, urls.article(article.slug))
    return (
        f'<li class="rp-article" data-kind="article">'
        f'<p class="rp-title">{link(href, article.title)}</p>'
        f'<p class="rp-byline"><span class="rp-updated">Updated {time_tag(article.updated)}'
        f"</span></p>"
        f'<p class="rp-summary">{esc(article.summary)}</p>'
        f"{tag_chips(site, article.tags, here)}"
        f"</li>"
    )


def article_list(site: Site, articles: Iterable[Article], here: str) -> str:
    """Articles one per row, in the order given."""
    rows = "\n".join(article_entry(site, a, here) for a in articles)
    return f'<ul class="rp-articles">\n{rows}\n</ul>'
