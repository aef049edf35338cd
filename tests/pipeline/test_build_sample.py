"""A build of the sample site (tests/pipeline/golden/site/input): pages, links, hooks,
order, escaping, glossary links, embedded sims and feeds, in the HTML MkDocs wrote."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import feedparser
import pytest

from tests.pipeline.html_tools import Page, page_file, read_page

EVERY_BUILDER = True  # each test runs on the sample as each builder builds it (conftest)
TAGS = ("latency", "decode", "batching")
PAGES = [
    "", "feed/", "glossary/", "tags/", "explainers/", "articles/",
    "explainers/batching/", "explainers/roofline/", "articles/older/", "articles/newer/",
    *(f"feed/tags/{tag}/" for tag in TAGS), *(f"tags/{tag}/" for tag in TAGS),
]  # fmt: skip
TERM_NAMES = ["Goodput", "Inter-token latency", "Time to first token"]
READING_TITLES = ["A Talk", "A Paper *With* Stars", "Off the Path", "<script>alert(1)</script>"]
EXPLAINER_TITLES = ["A batch is as slow as its slowest", "Two phases, two bottlenecks"]
FEEDS = ["feed.xml", "feed.json", *(f"feed/tags/{tag}.xml" for tag in TAGS)]


@pytest.fixture(scope="module")
def pages(built_sample: Path) -> dict[str, Page]:
    """Every HTML page of the built sample site, by URL."""
    found = {}
    for path in built_sample.rglob("*.html"):
        url = path.relative_to(built_sample).as_posix().removesuffix("index.html")
        found[url] = read_page(path)
    return found


def test_pages_and_feeds_exist(built_sample: Path, pages: dict[str, Page]) -> None:
    assert set(PAGES) <= set(pages)
    for feed in FEEDS:
        assert (built_sample / feed).is_file(), feed


def test_internal_links_and_requests_resolve(built_sample: Path, pages: dict[str, Page]) -> None:
    base = "http://site.invalid/"
    broken, checked = [], 0
    for url, page in pages.items():
        for target in [href for href, _, _ in page.anchors] + page.requests:
            if urlsplit(target).scheme:
                continue
            checked += 1
            resolved = urlsplit(urljoin(base + url, target))
            path = unquote(resolved.path).removeprefix("/")
            file = page_file(built_sample, path)
            if file.is_dir():
                file = file / "index.html"
            if not file.is_file():
                broken.append(f"{url}: {target}")
            elif resolved.fragment and resolved.fragment not in read_page(file).ids:
                broken.append(f"{url}: {target} (no id {resolved.fragment!r})")
    assert broken == [] and checked > 200


def test_the_site_asks_no_other_host(pages: dict[str, Page]) -> None:
    external = {r for page in pages.values() for r in page.requests if urlsplit(r).scheme}
    assert external == set()


def test_hub_lists_explainers_terms_and_the_path_in_order(pages: dict[str, Page]) -> None:
    hub = pages["feed/tags/latency/"]
    counts = "2 explainers you can run, 2 glossary terms, and 3 readings ordered as a path"
    assert counts in hub.text
    assert hub.order("explainer", EXPLAINER_TITLES) == EXPLAINER_TITLES  # beginner first
    assert "Beginner" in hub.kinds("explainer")[0].text
    assert hub.order("term", TERM_NAMES) == ["Inter-token latency", "Time to first token"]
    assert hub.order("reading", READING_TITLES) == [  # the path in order, then the rest
        "A Talk", "A Paper *With* Stars", "<script>alert(1)</script>", "Off the Path"
    ]
    assert "Ann A, Bob B, Cat C and others" in hub.kinds("reading")[1].text


def test_tag_without_hub_file_gets_a_hub(pages: dict[str, Page]) -> None:
    hub = pages["feed/tags/decode/"]
    assert "0 explainers you can run, 1 glossary term, and 0 readings ordered as a path" in hub.text
    assert len(hub.kinds("reading")) == 2 and len(hub.kinds("term")) == 1


def test_reading_feed_page_newest_first_ties_by_title(pages: dict[str, Page]) -> None:
    readings = pages["feed/"].kinds("reading")
    assert [r.id for r in readings] == ["extra", "paper", "talk", "probe"]


def test_glossary_has_an_anchor_per_term(pages: dict[str, Page]) -> None:
    terms = pages["glossary/"].kinds("term")
    assert [t.id for t in terms] == ["goodput", "inter-token-latency", "time-to-first-token"]
    assert "Related: Inter-token latency" in terms[2].text


def test_tag_listing_newest_update_first(pages: dict[str, Page]) -> None:
    titles = ["Older & <em>wiser</em>", "Newer"]
    assert pages["tags/latency/"].order("article", titles) == titles
    assert "Updated 1 May 2026" in pages["tags/latency/"].kinds("article")[0].text


def test_yaml_strings_show_as_text(built_sample: Path, pages: dict[str, Page]) -> None:
    for url in ("feed/", "feed/tags/decode/"):
        html = page_file(built_sample, url).read_text(encoding="utf-8")
        assert "<script>alert(1)" not in html and "<b>F" not in html
        probe = next(i for i in pages[url].kinds("reading") if "alert" in i.text)
        assert "<script>alert(1)</script> & *stars*" in probe.text
        assert "Fay <b>F</b>" in probe.text
    article = pages["articles/older/"]
    assert article.title.startswith("Older & <em>wiser</em>")
    assert "Older & <em>wiser</em>" in article.text


def glossary_links(page: Page) -> dict[str, tuple[str | None, str]]:
    """Glossary slug -> (title, link text) of each glossary link in the page's content."""
    return {
        href.rsplit("#", 1)[1]: (title, text)
        for href, title, text in page.anchors
        if "glossary/#" in href and title
    }


def test_first_mentions_link_to_the_glossary(pages: dict[str, Page]) -> None:
    explainer = glossary_links(pages["explainers/batching/"])
    assert explainer == {
        "goodput": ("Throughput that met its targets.", "Goodput"),
        "time-to-first-token": (
            'The wait until the first token, "queue" & prefill included.',
            "Time to first token",
        ),
    }
    article = glossary_links(pages["articles/older/"])
    assert {slug: text for slug, (_, text) in article.items()} == {
        "inter-token-latency": "ITL",
        "time-to-first-token": "time to first token",
    }


def test_sim_is_embedded_prerendered(built_sample: Path) -> None:
    html = page_file(built_sample, "explainers/batching/").read_text(encoding="utf-8")
    assert 'data-sim="batching"' in html and 'data-state="prerendered"' in html
    assert (built_sample / "assets" / "sims" / "batching.py").is_file()


def test_atom_feeds_parse_with_required_elements(built_sample: Path) -> None:
    for feed in FEEDS[:1] + FEEDS[2:]:
        parsed = feedparser.parse((built_sample / feed).read_bytes())
        assert not parsed.bozo, feed
        assert parsed.feed.id and parsed.feed.title and parsed.feed.updated
        ids = [e.id for e in parsed.entries]
        assert len(ids) == len(set(ids))
        assert all(e.link and e.updated and e.title for e in parsed.entries)
    whole = feedparser.parse((built_sample / "feed.xml").read_bytes())
    assert len(whole.entries) == 4 + 2 + 2  # readings, articles, explainers


def test_json_feed(built_sample: Path) -> None:
    document = json.loads((built_sample / "feed.json").read_text(encoding="utf-8"))
    assert document["version"] == "https://jsonfeed.org/version/1.1"
    assert len(document["items"]) == 8
    assert all(item["id"].startswith("http") for item in document["items"])


def test_table_alignment_is_a_class_not_a_style_or_align_attribute(built_sample: Path) -> None:
    """`|:--|:--:|--:|` in Markdown: each cell's class says its alignment; the build's
    policy pass refuses any style attribute, and `align` is obsolete HTML."""
    html = (built_sample / "articles" / "newer" / "index.html").read_text(encoding="utf-8")
    table = html[html.index("<table>"):html.index("</table>")]
    assert re.findall(r"<t[hd] ([^>]*)>", table) == [
        'class="rp-align-left"', 'class="rp-align-center"', 'class="rp-align-right"',
    ] * 3
    stylesheet = (built_sample / "assets" / "site.css").read_text(encoding="utf-8")
    for alignment in ("left", "center", "right"):
        assert f"(th, td).rp-align-{alignment} {{ text-align: {alignment}; }}" in stylesheet
