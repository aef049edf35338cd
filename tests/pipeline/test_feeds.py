"""Feeds parse, carry the required Atom elements, order and date entries from content, and
come out byte-identical every time."""

from __future__ import annotations

import json

import feedparser

from ridgepoint.content.model import Site
from ridgepoint.pages.feeds import generate_feeds, newest_content_date
from tests.pipeline.conftest import SITE_URL


def feeds(site: Site, site_url: str = SITE_URL) -> dict[str, bytes]:
    return generate_feeds(site, site_url, "Ridgepoint", "A test feed.")


def test_atom_feed_has_required_elements(sample_site: Site) -> None:
    parsed = feedparser.parse(feeds(sample_site)["feed.xml"])
    assert not parsed.bozo
    assert parsed.feed.id == SITE_URL and parsed.feed.updated and parsed.feed.title
    assert {link.rel for link in parsed.feed.links} == {"alternate", "self"}
    count = len(sample_site.readings) + len(sample_site.articles) + len(sample_site.explainers)
    assert len(parsed.entries) == count
    for entry in parsed.entries:
        assert entry.id.startswith(SITE_URL) and entry.link.startswith(SITE_URL)
        assert entry.updated and entry.published and entry.title and entry.summary


def test_entries_newest_first_and_dated_from_content(sample_site: Site) -> None:
    entries = {e.id: e for e in feedparser.parse(feeds(sample_site)["feed.xml"]).entries}
    paper = entries[f"{SITE_URL}feed/#paper"]
    assert paper.updated.startswith("2026-03-01")
    assert [link.href for link in paper.links if link.rel == "related"] == [
        "https://example.org/paper"
    ]
    older = entries[f"{SITE_URL}articles/older/"]
    assert older.published.startswith("2026-01-01") and older.updated.startswith("2026-05-01")
    explainer = entries[f"{SITE_URL}explainers/batching/"]
    assert explainer.updated.startswith(newest_content_date(sample_site).isoformat())
    updated = [e.updated for e in feedparser.parse(feeds(sample_site)["feed.xml"]).entries]
    assert updated == sorted(updated, reverse=True)


def test_escaped_text_reads_back_as_the_original(sample_site: Site) -> None:
    entry = feedparser.parse(feeds(sample_site)["feed.xml"]).entries
    probe = next(e for e in entry if e.id.endswith("#probe"))
    assert probe.title == "<script>alert(1)</script>"


def test_tag_feeds_hold_only_their_tag(sample_site: Site) -> None:
    generated = feeds(sample_site)
    assert {p for p in generated if p.startswith("feed/tags/")} == {
        f"feed/tags/{tag}.xml" for tag in sample_site.tags_in_use()
    }
    parsed = feedparser.parse(generated["feed/tags/decode.xml"])
    assert parsed.feed.id == f"{SITE_URL}feed/tags/decode/"
    assert {e.id.removeprefix(SITE_URL) for e in parsed.entries} == {
        "feed/#paper",
        "feed/#probe",
        "articles/older/",
    }


def test_json_feed(sample_site: Site) -> None:
    document = json.loads(feeds(sample_site)["feed.json"])
    assert document["version"] == "https://jsonfeed.org/version/1.1"
    assert document["feed_url"] == f"{SITE_URL}feed.json"
    items = {item["id"]: item for item in document["items"]}
    assert len(items) == len(document["items"]) == 8
    paper = items[f"{SITE_URL}feed/#paper"]
    assert paper["external_url"] == "https://example.org/paper"
    assert paper["date_published"] == "2026-03-01T00:00:00+00:00"
    assert [a["name"] for a in paper["authors"]] == ["Ann A", "Bob B", "Cat C", "Dan D"]
    assert all(item["content_text"] and item["url"] for item in document["items"])


def test_feeds_are_byte_stable_and_follow_site_url(sample_site: Site) -> None:
    assert feeds(sample_site) == feeds(sample_site)
    moved = feeds(sample_site, "https://elsewhere.test/sub/")["feed.xml"]
    assert b"https://elsewhere.test/sub/feed/#paper" in moved and SITE_URL.encode() not in moved
