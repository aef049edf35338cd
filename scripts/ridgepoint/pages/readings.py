"""The reading feed page `feed/`: every reading, newest first, each with its own anchor.

Feed entries for readings point at these anchors, so a reading has a stable address on
the site even when it has no URL of its own.
"""

from __future__ import annotations

from ridgepoint.base import urls
from ridgepoint.base.markup import count, esc, link
from ridgepoint.content.model import Site
from ridgepoint.pages.common import page, paragraph
from ridgepoint.pages.items import reading_list
from ridgepoint.pages.order import newest_readings


def readings_page(site: Site) -> str:
    """All readings, newest `added` first, ties by title."""
    here = urls.READINGS
    follow = " · ".join(
        (
            link(urls.relative(here, urls.ATOM_FEED), "Atom feed"),
            link(urls.relative(here, urls.JSON_FEED), "JSON Feed"),
            link(urls.relative(here, urls.TAGS), "Browse by tag"),
        )
    )
    lede = (
        f"{count(len(site.readings), 'outside piece', 'outside pieces')} worth your time, "
        "newest first, each with a line on why."
    )
    return page(
        "Readings",
        paragraph(esc(lede), "rp-lede"),
        paragraph(follow, "rp-follow"),
        reading_list(site, newest_readings(site.readings.values()), here, anchored=True),
        description="Every reading Ridgepoint recommends, newest first.",
    )
