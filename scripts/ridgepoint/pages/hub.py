"""The tag hub `feed/tags/<tag>/`: what there is to run, the words to know, what to read.

Every tag in use gets one, with or without a hub file: without one, the vocabulary's
description stands in for the intro and the readings on the tag are listed newest first.
"""

from __future__ import annotations

from ridgepoint.base import urls
from ridgepoint.base.markup import count, esc, link
from ridgepoint.content.model import Hub, Site
from ridgepoint.pages.common import anchor_slug, heading, page, paragraph
from ridgepoint.pages.items import explainer_grid, reading_list, term_row
from ridgepoint.pages.order import explainers_by_level, newest_readings, terms_alphabetical


def counts_line(explainers: int, terms: int, readings: int) -> str:
    """ "8 explainers you can run, 10 glossary terms, and 6 readings ordered as a path"."""
    return (
        f"{count(explainers, 'explainer', 'explainers')} you can run, "
        f"{count(terms, 'glossary term', 'glossary terms')}, and "
        f"{count(readings, 'reading', 'readings')} ordered as a path"
    )


def hub_page(site: Site, tag: str) -> str:
    """The hub of `tag` as a Markdown page."""
    here = urls.hub(tag)
    label = site.tags[tag].label
    hub = site.hubs.get(tag, Hub(tag))
    explainers = explainers_by_level(e for e in site.explainers.values() if tag in e.tags)
    terms = terms_alphabetical(t for t in site.terms.values() if tag in t.tags)
    on_path = [slug for section in hub.path for slug in section.readings]
    elsewhere = newest_readings(
        r for r in site.readings.values() if tag in r.tags and r.slug not in on_path
    )
    follow = " · ".join(
        (
            link(urls.relative(here, urls.tag_articles(tag)), f"Articles tagged {label}"),
            link(urls.relative(here, urls.tag_feed(tag)), "Atom feed"),
        )
    )
    blocks = [
        paragraph(esc(hub.intro or site.tags[tag].description), "rp-lede"),
        paragraph(esc(counts_line(len(explainers), len(terms), len(on_path))), "rp-counts"),
        paragraph(follow, "rp-follow"),
    ]
    if explainers:
        blocks += [heading(2, "Explainers"), explainer_grid(explainers, here)]
    if terms:
        rows = "\n".join(term_row(t, here) for t in terms)
        blocks += [heading(2, "Glossary terms"), f'<dl class="rp-terms">\n{rows}\n</dl>']
    if hub.path:
        blocks.append(heading(2, "Reading path"))
        number = 1
        for section in hub.path:
            blocks += [
                heading(3, section.heading, f"path-{anchor_slug(section.heading)}"),
                paragraph(esc(section.purpose), "rp-purpose"),
                reading_list(
                    site, (site.readings[s] for s in section.readings), here, start=number
                ),
            ]
            number += len(section.readings)
    if elsewhere:
        blocks += [
            heading(2, "More readings on this tag" if hub.path else "Readings"),
            reading_list(site, elsewhere, here),
        ]
    return page(label, *blocks, description=site.tags[tag].description,
                own_feed=(urls.tag_feed(tag), label))
