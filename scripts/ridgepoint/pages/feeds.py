"""Feeds a reader can subscribe to: Atom for the site and per tag, and JSON Feed 1.1.

Built from the content model alone, so they are byte-identical across builds of the same
content: every date comes from the content (no git, no clock) and every id is an absolute
URL under `site_url`, which does not change from build to build.

Dates: a reading is dated by `added`, an article by `published` and `updated`. Explainers
carry no date (their front matter has none), so an explainer entry is dated by the newest
dated content on the site: it is as current as the material around it, and the date moves
only when content does. With no dated content at all, explainers are left out of feeds.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime

from feedgen.ext.base import BaseEntryExtension
from feedgen.feed import FeedGenerator
from feedgen.util import xml_elem

from ridgepoint.base import urls
from ridgepoint.content.model import Site
from ridgepoint.pages.order import explainers_by_level, newest_articles, newest_readings

JSON_FEED_VERSION = "https://jsonfeed.org/version/1.1"
LANGUAGE = "en"


@dataclass(frozen=True)
class Entry:
    """One feed item, whatever it is about. `page` is site-root-relative; `external` is
    the outside URL of a reading, when it has one."""

    page: str
    title: str
    summary: str
    published: date
    updated: date
    tags: tuple[str, ...]
    authors: tuple[str, ...] = ()
    external: str | None = None


@dataclass(frozen=True)
class FeedInfo:
    """What a feed says about itself: title, description, its page and its own URL."""

    title: str
    description: str
    page: str
    self_url: str


class RelatedLink(BaseEntryExtension):
    """An entry's `<link rel="related">`: feedgen 1.0 drops `rel` from entry links (it
    reads it back from the new XML element), so a second link would read as alternate."""

    href: str | None = None

    def extend_atom(self, entry: object) -> object:
        if self.href:
            xml_elem("link", entry, href=self.href, rel="related")
        return entry


def newest_content_date(site: Site) -> date | None:
    """The latest date any reading or article carries (see the module docstring)."""
    dates = [r.added for r in site.readings.values()]
    dates += [a.updated for a in site.articles.values()]
    return max(dates, default=None)


def site_entries(site: Site) -> list[Entry]:
    """Every reading, article and explainer, newest first; ties keep a fixed kind order."""
    entries = [
        Entry(urls.reading(r.slug), r.title, r.why, r.added, r.added, r.tags, r.authors, r.url)
        for r in newest_readings(site.readings.values())
    ]
    entries += [
        Entry(urls.article(a.slug), a.title, a.summary, a.published, a.updated, a.tags)
        for a in newest_articles(site.articles.values())
    ]
    explainer_date = newest_content_date(site)
    if explainer_date is not None:
        entries += [
            Entry(urls.explainer(e.slug), e.title, e.hook, explainer_date, explainer_date, e.tags)
            for e in explainers_by_level(site.explainers.values())
        ]
    return sorted(entries, key=lambda entry: entry.updated, reverse=True)


def _moment(day: date) -> datetime:
    """A content date as the instant feeds need: midnight UTC."""
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def feed_updated(entries: Iterable[Entry]) -> datetime:
    """The newest entry's date; the Unix epoch for an empty feed (still deterministic)."""
    return _moment(max((e.updated for e in entries), default=date(1970, 1, 1)))


def atom_feed(
    site: Site, site_url: str, site_name: str, info: FeedInfo, entries: list[Entry]
) -> bytes:
    """An Atom document via feedgen: ids and links absolute, entries in the order given."""
    generator = FeedGenerator()
    generator.id(site_url + info.page)
    generator.title(info.title)
    generator.subtitle(info.description)
    generator.link(href=site_url + info.page, rel="alternate", type="text/html")
    generator.link(href=site_url + info.self_url, rel="self", type="application/atom+xml")
    generator.author(name=site_name)
    generator.language(LANGUAGE)
    generator.generator(site_name)
    generator.updated(feed_updated(entries))
    for entry in entries:
        item = generator.add_entry(order="append")
        item.id(site_url + entry.page)
        item.title(entry.title)
        item.summary(entry.summary)
        item.link(href=site_url + entry.page)  # rel="alternate" is Atom's default
        if entry.external:
            item.register_extension("related", RelatedLink, atom=True, rss=False)
            item.related.href = entry.external
        item.published(_moment(entry.published))
        item.updated(_moment(entry.updated))
        for name in entry.authors:
            item.author(name=name)
        for tag in entry.tags:
            item.category(term=tag, label=site.tags[tag].label)
    return generator.atom_str(pretty=True)


def json_feed(site_url: str, site_name: str, info: FeedInfo, entries: list[Entry]) -> bytes:
    """A JSON Feed 1.1 document; `url` is the entry's page here, `external_url` the outside
    piece a reading points to."""
    items = []
    for entry in entries:
        item: dict[str, object] = {
            "id": site_url + entry.page,
            "url": site_url + entry.page,
            "title": entry.title,
            "summary": entry.summary,
            "content_text": entry.summary,
            "date_published": _moment(entry.published).isoformat(),
            "date_modified": _moment(entry.updated).isoformat(),
            "tags": list(entry.tags),
        }
        if entry.external:
            item["external_url"] = entry.external
        if entry.authors:
            item["authors"] = [{"name": name} for name in entry.authors]
        items.append(item)
    document = {
        "version": JSON_FEED_VERSION,
        "title": info.title,
        "description": info.description,
        "home_page_url": site_url + info.page,
        "feed_url": site_url + info.self_url,
        "language": LANGUAGE,
        "authors": [{"name": site_name}],
        "items": items,
    }
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def generate_feeds(site: Site, site_url: str, site_name: str, description: str) -> dict[str, bytes]:
    """Staging path -> bytes for feed.xml, feed.json and feed/tags/<tag>.xml (every tag in use)."""
    entries = site_entries(site)
    whole = FeedInfo(site_name, description, urls.HOME, urls.ATOM_FEED)
    feeds = {
        urls.ATOM_FEED: atom_feed(site, site_url, site_name, whole, entries),
        urls.JSON_FEED: json_feed(
            site_url,
            site_name,
            FeedInfo(site_name, description, urls.HOME, urls.JSON_FEED),
            entries,
        ),
    }
    for tag in site.tags_in_use():
        info = site.tags[tag]
        tagged = [e for e in entries if tag in e.tags]
        about = FeedInfo(
            f"{site_name}: {info.label}", info.description, urls.hub(tag), urls.tag_feed(tag)
        )
        feeds[urls.tag_feed(tag)] = atom_feed(site, site_url, site_name, about, tagged)
    return feeds
