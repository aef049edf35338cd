"""A crawl of the real built site: every HTML page opened in Chromium, every link followed
on disk, every feed checked.

Each page must load without a console error or a request to another origin, and every
internal link (anchors, stylesheets, scripts, images, the SVG charts' own references) must
name a file of the site and, with a #fragment, an element id in it. Pages with sims wait
until each sim is live, so the runtime's requests and errors are part of the check. The
feeds must carry unique ids, absolute links that resolve, and RFC 3339 dates; feed.json must
validate against JSON Feed 1.1 (the schema beside this file, written from the spec).
"""

from __future__ import annotations

import json
import re
import urllib.parse
import xml.etree.ElementTree as ET
from datetime import datetime
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from playwright.sync_api import Page

from tests.browser.conftest import READY_MS, Recorder
from tests.browser.sim_pages import wake_every_sim

pytestmark = pytest.mark.browser
EVERY_BUILDER = True  # each test that uses the built site runs on each builder's (conftest)

ATOM = "{http://www.w3.org/2005/Atom}"
JSON_FEED_SCHEMA = Path(__file__).with_name("jsonfeed-1.1.schema.json")
RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")
SIMS_SETTLED = '[data-sim]:not([data-state="ready"]):not([data-state="error"])'

# Every URL an element of the live page refers to, resolved by the browser. SVG elements
# keep theirs in an SVGAnimatedString; CSS url(#id) references count too (clip paths).
LINKS_JS = """() => {
  const found = [];
  for (const element of document.querySelectorAll("[href], [src], [clip-path], [fill]")) {
    for (const name of ["href", "src"]) {
      const value = element.getAttribute(name);
      if (value !== null) found.push(new URL(value, document.baseURI).href);
    }
    for (const name of ["clip-path", "fill"]) {
      const match = /^url\\((['"]?)(#[^'")]+)\\1\\)$/.exec(element.getAttribute(name) || "");
      if (match) found.push(new URL(match[2], document.baseURI).href);
    }
  }
  return found;
}"""


class _Ids(HTMLParser):
    """Every id in a page, and every <a name>: what a #fragment can land on."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and (name == "id" or (tag == "a" and name == "name")):
                self.ids.add(value)


@cache
def ids_in(file: Path) -> frozenset[str]:
    parser = _Ids()
    parser.feed(file.read_text(encoding="utf-8"))
    return frozenset(parser.ids)


def pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def page_url(base_url: str, site: Path, file: Path) -> str:
    relative = file.relative_to(site).as_posix()
    return base_url + (relative.removesuffix("index.html") if file.name == "index.html"
                       else relative)


def site_url(site: Path) -> str:
    """The absolute address the build was told the site will have (feeds, canonical links)."""
    return json.loads((site / "feed.json").read_text(encoding="utf-8"))["home_page_url"]


def target(site: Path, roots: tuple[str, ...], url: str) -> tuple[Path | None, str] | None:
    """The file of the site a URL names (None when there is none) and its fragment; None for
    a URL of another origin. A URL of the site's origin outside its root names no file."""
    root = next((root for root in roots if url.startswith(root)), None)
    if root is None:
        origins = {"{0.scheme}://{0.netloc}/".format(urllib.parse.urlsplit(r)) for r in roots}
        return (None, "") if url.startswith(tuple(origins)) else None
    parts = urllib.parse.urlsplit(url)
    path = urllib.parse.unquote(parts.path)[len(urllib.parse.urlsplit(root).path):]
    file = site / path
    if path == "" or path.endswith("/") or file.is_dir():
        file = file / "index.html"
    return (file if file.is_file() else None), urllib.parse.unquote(parts.fragment)


def broken(site: Path, roots: tuple[str, ...], url: str) -> str | None:
    """Why a link into the site does not resolve, or None when it does (or is not ours)."""
    found = target(site, roots, url)
    if found is None:
        return None
    file, fragment = found
    if file is None:
        return f"{url}: no such file"
    if fragment and file.suffix == ".html" and fragment not in ids_in(file):
        return f"{url}: no element with id {fragment!r} in {file.relative_to(site)}"
    return None


def test_every_page_loads_cleanly_and_every_link_resolves(
    page: Page, base_url: str, built_site: Path, recorder: Recorder
) -> None:
    roots = (base_url, site_url(built_site))
    origin = "{0.scheme}://{0.netloc}/".format(urllib.parse.urlsplit(base_url))
    files = pages(built_site)
    assert len(files) > 40, "the crawl found too few pages: is the build complete?"
    problems: list[str] = []
    for file in files:
        url = page_url(base_url, built_site, file)
        requests, errors = len(recorder.requests), len(recorder.errors)
        page.goto(url)
        if page.locator("[data-sim]").count():  # Python starts once per page: wait for it
            wake_every_sim(page)
            page.wait_for_function(
                f"() => !document.querySelector({json.dumps(SIMS_SETTLED)})", timeout=READY_MS
            )
            states = page.eval_on_selector_all("[data-sim]", "s => s.map(e => e.dataset.state)")
            problems += [f"{url}: a sim ended in state {s!r}" for s in states if s != "ready"]
        links = page.evaluate(LINKS_JS)
        problems += [reason for link in set(links) if (reason := broken(built_site, roots, link))]
        problems += [
            f"{url}: requested {request}" for request in recorder.requests[requests:]
            if not request.startswith((origin, "data:", f"blob:{origin}"))
        ]
        problems += [f"{url}: {error}" for error in recorder.errors[errors:]]
    assert not problems, "\n".join(problems)


def _date(text: str | None, where: str) -> datetime:
    assert text and RFC3339.fullmatch(text), f"{where}: {text!r} is not an RFC 3339 date"
    return datetime.fromisoformat(text)


def _absolute(url: str | None, where: str) -> str:
    parts = urllib.parse.urlsplit(url or "")
    assert parts.scheme in ("http", "https") and parts.netloc, f"{where}: {url!r} is relative"
    return url


def atom_feeds(site: Path) -> list[Path]:
    return [site / "feed.xml", *sorted((site / "feed" / "tags").glob("*.xml"))]


def test_atom_feeds_have_unique_ids_absolute_links_and_dates(built_site: Path) -> None:
    roots = (site_url(built_site),)
    feeds = atom_feeds(built_site)
    assert len(feeds) > 10, "expected the site feed and one per tag"
    for feed_file in feeds:
        name = feed_file.relative_to(built_site).as_posix()
        feed = ET.parse(feed_file).getroot()
        assert feed.tag == f"{ATOM}feed", name
        _absolute(feed.findtext(f"{ATOM}id"), f"{name} id")
        _date(feed.findtext(f"{ATOM}updated"), f"{name} updated")
        rels = {link.get("rel"): link.get("href") for link in feed.findall(f"{ATOM}link")}
        assert rels.get("self") == roots[0] + name, f"{name}: its self link"
        entries = feed.findall(f"{ATOM}entry")
        assert entries, f"{name} has no entries"
        ids = [entry.findtext(f"{ATOM}id") for entry in entries]
        assert len(ids) == len(set(ids)), f"{name}: repeated entry ids"
        for entry, entry_id in zip(entries, ids, strict=True):
            where = f"{name} {entry_id}"
            _absolute(entry_id, where)
            assert entry.findtext(f"{ATOM}title"), f"{where}: no title"
            updated = _date(entry.findtext(f"{ATOM}updated"), f"{where} updated")
            if (published := entry.findtext(f"{ATOM}published")) is not None:
                assert _date(published, f"{where} published") <= updated, where
            links = [_absolute(link.get("href"), where) for link in entry.findall(f"{ATOM}link")]
            assert links, f"{where}: no link"
            assert [reason for link in links if (reason := broken(built_site, roots, link))] == []


def test_json_feed_validates_against_json_feed_1_1(built_site: Path) -> None:
    schema = json.loads(JSON_FEED_SCHEMA.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    feed = json.loads((built_site / "feed.json").read_text(encoding="utf-8"))
    problems = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
                for e in validator.iter_errors(feed)]
    assert not problems, "\n".join(problems)
    ids = [item["id"] for item in feed["items"]]
    assert feed["items"] and len(ids) == len(set(ids))
    roots = (site_url(built_site),)
    urls = [item["url"] for item in feed["items"]] + [feed["feed_url"], feed["home_page_url"]]
    assert [reason for url in urls if (reason := broken(built_site, roots, url))] == []


def test_the_json_feed_schema_refuses_what_the_spec_refuses() -> None:
    """The schema is ours, so it is tested: each of these breaks a rule of the spec."""
    validator = Draft202012Validator(json.loads(JSON_FEED_SCHEMA.read_text(encoding="utf-8")))
    good = {"version": "https://jsonfeed.org/version/1.1", "title": "T",
            "items": [{"id": "1", "content_text": "x", "date_published": "2026-11-30T00:00:00Z",
                       "authors": [{"name": "A"}], "_ours": {"any": "thing"}}]}
    assert validator.is_valid(good)
    item = good["items"][0]
    for broken_feed in (
        {**good, "version": "https://jsonfeed.org/version/1"},
        {key: value for key, value in good.items() if key != "title"},
        {**good, "items": [{key: v for key, v in item.items() if key != "content_text"}]},
        {**good, "items": [{**item, "id": 1}]},
        {**good, "items": [{**item, "date_published": "2026-11-30"}]},
        {**good, "items": [{**item, "authors": [{}]}]},
        {**good, "items": [{**item, "url": "/relative/"}]},
        {**good, "items": [{**item, "tittle": "misspelt"}]},
    ):
        assert not validator.is_valid(broken_feed), broken_feed
