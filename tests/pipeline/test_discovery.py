"""Found and followed: the site as `make publish` builds it for a real address carries, on
every page, its own title and description, Open Graph and Twitter card tags with absolute
addresses and the site's own image, and feed autodiscovery (plus the tag's feed on a tag's
hub and listing); robots.txt names the sitemap; the 404 page alone is noindex. And
`make publish` refuses an address feed readers could never use.
"""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
from collections import Counter
from pathlib import Path
from urllib.parse import urljoin

import pytest

from ridgepoint.base.config import SiteConfig
from ridgepoint.build.publish import PublishError, publication_url
from tests.pipeline.html_tools import Page, read_page

REPO = Path(__file__).resolve().parents[2]
SITE_URL = "https://example.org/ridgepoint/"
SITE = SiteConfig.read(REPO / "mkdocs.yml")
IMAGE = "images/social.png"


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site as `make publish SITE_URL=https://example.org/ridgepoint/` builds it."""
    base = tmp_path_factory.mktemp("published")
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "publish.py"), "--site-url", SITE_URL,
         "--site-dir", str(base / "site"), "--stage-dir", str(base / "stage" / "docs")],
        capture_output=True, text=True, cwd=REPO, check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, f"publish failed:\n{done.stdout}\n{done.stderr}"
    return base / "site"


def page_url(site: Path, path: Path) -> str:
    """The page's address under SITE_URL (index.html files serve their folder)."""
    relative = path.relative_to(site).as_posix()
    return SITE_URL + relative.removesuffix("index.html")


@pytest.fixture(scope="module")
def pages(published: Path) -> dict[str, Page]:
    """Every built page by its address."""
    return {page_url(published, path): read_page(path)
            for path in sorted(published.rglob("*.html"))}


def alternates(page: Page, kind: str) -> list[tuple[str, str]]:
    """(href, title) of each feed the page announces with this media type."""
    return [(link["href"], link.get("title", "")) for link in page.links
            if "alternate" in link.get("rel", "").split() and link.get("type") == kind]


def tags(site: Path) -> list[str]:
    return sorted(path.parent.name for path in (site / "feed" / "tags").glob("*/index.html"))


def test_every_page_has_link_preview_tags_with_absolute_addresses(
    pages: dict[str, Page], published: Path
) -> None:
    assert len(pages) > 40
    for url, page in pages.items():
        meta = page.meta
        name = page.title.removesuffix(f" - {SITE.site_name}")
        assert meta["og:title"] == meta["twitter:title"] == name, url
        assert meta["og:description"] == meta["twitter:description"] == meta["description"], url
        assert meta["og:image"] == meta["twitter:image"] == SITE_URL + IMAGE, url
        assert meta["og:image:alt"] and meta["twitter:image:alt"], url
        assert meta["twitter:card"] == "summary_large_image", url
        assert meta["og:site_name"] == SITE.site_name
        canonical = [link["href"] for link in page.links if link.get("rel") == "canonical"]
        if url.endswith("404.html"):  # served at any address: it names the site instead
            assert canonical == [] and meta["og:url"] == SITE_URL
        else:
            assert canonical == [url] and meta["og:url"] == url, url
    assert (published / IMAGE).is_file()


def test_articles_are_previewed_as_articles_with_their_dates(pages: dict[str, Page]) -> None:
    articles = {url: page for url, page in pages.items()
                if url.startswith(SITE_URL + "articles/") and url != SITE_URL + "articles/"}
    assert articles
    for url, page in articles.items():
        assert page.meta["og:type"] == "article", url
        assert page.meta["article:published_time"] <= page.meta["article:modified_time"], url
    assert pages[SITE_URL].meta["og:type"] == "website"


def test_the_site_image_is_the_committed_drawing_at_the_size_previews_expect() -> None:
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "social_image.py"), "--check"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    png = (REPO / "content" / IMAGE).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (1200, 630)
    assert len(png) < 100_000


def test_every_page_has_its_own_title_and_description(pages: dict[str, Page]) -> None:
    titles = Counter(page.title for page in pages.values())
    descriptions = Counter(page.meta["description"] for page in pages.values())
    assert [t for t, n in titles.items() if n > 1] == []
    assert [d for d, n in descriptions.items() if n > 1] == []
    assert all(descriptions), "a page has an empty description"
    # The site's description is the home page's alone; the home page is not "X - X".
    home = pages[SITE_URL]
    assert home.meta["description"] == SITE.site_description
    assert home.title == SITE.site_name
    assert pages[SITE_URL + "404.html"].title == f"Page not found - {SITE.site_name}"


def test_every_page_announces_the_site_feeds(pages: dict[str, Page], published: Path) -> None:
    for url, page in pages.items():
        # Material fetches sitemap.xml beside every link whose rel is exactly "alternate".
        assert [link for link in page.links if link.get("rel") == "alternate"] == [], url
        atom = [urljoin(url, href) for href, _ in alternates(page, "application/atom+xml")]
        json_feed = [urljoin(url, href) for href, _ in alternates(page, "application/feed+json")]
        if url.endswith("404.html"):  # served at any depth: its links are root-absolute
            atom = [urljoin(SITE_URL, href) for href, _ in alternates(page, "application/atom+xml")]
            json_feed = [urljoin(SITE_URL, h) for h, _ in alternates(page, "application/feed+json")]
        assert atom[0] == SITE_URL + "feed.xml", url
        assert json_feed == [SITE_URL + "feed.json"], url
    assert (published / "feed.xml").is_file() and (published / "feed.json").is_file()


def test_a_tags_hub_and_listing_announce_its_own_feed_and_no_other_page_does(
    pages: dict[str, Page], published: Path
) -> None:
    in_use = tags(published)
    assert "latency" in in_use
    expected = {}
    for tag in in_use:
        for url in (f"{SITE_URL}feed/tags/{tag}/", f"{SITE_URL}tags/{tag}/"):
            expected[url] = f"{SITE_URL}feed/tags/{tag}.xml"
        assert (published / "feed" / "tags" / f"{tag}.xml").is_file()
    for url, page in pages.items():
        atom = alternates(page, "application/atom+xml")
        if url in expected:
            assert len(atom) == 2, url
            href, title = atom[1]
            assert urljoin(url, href) == expected[url]
            assert title.startswith(f"{SITE.site_name}: ")
        else:
            assert len(atom) == 1, url


def test_robots_txt_names_the_absolute_sitemap(published: Path) -> None:
    lines = (published / "robots.txt").read_text(encoding="utf-8").splitlines()
    assert "User-agent: *" in lines
    assert f"Sitemap: {SITE_URL}sitemap.xml" in lines
    assert [line for line in lines if line.startswith("Disallow:")] == []
    assert SITE_URL in (published / "sitemap.xml").read_text(encoding="utf-8")


def test_only_the_404_page_is_kept_out_of_search_results(pages: dict[str, Page]) -> None:
    noindex = [url for url, page in pages.items() if "noindex" in page.meta.get("robots", "")]
    assert noindex == [SITE_URL + "404.html"]


def test_the_published_feeds_are_made_from_the_publication_address(published: Path) -> None:
    atom = (published / "feed.xml").read_text(encoding="utf-8")
    assert f"<id>{SITE_URL}</id>" in atom
    assert "127.0.0.1" not in atom and "127.0.0.1" not in (published / "feed.json").read_text()


@pytest.mark.parametrize("value, why", [
    (None, "is not set"),
    ("", "is not set"),
    ("  ", "is not set"),
    ("http://127.0.0.1:8000/", "local to this machine (127.0.0.1)"),
    ("http://127.1.2.3/", "local to this machine"),
    ("http://localhost:8000/", "local to this machine (localhost)"),
    ("https://docs.localhost/", "local to this machine"),
    ("http://[::1]:8000/", "local to this machine (::1)"),
    ("http://0.0.0.0/", "local to this machine (0.0.0.0)"),
    ("ftp://example.org/", "is not an http(s) address"),
    ("example.org/ridgepoint/", "is not an http(s) address"),
    ("https:///ridgepoint/", "is not an http(s) address"),
    ("https://example.org/?q=1", "has a query or fragment"),
])
def test_publishing_refuses_an_address_readers_could_not_use(value: str | None, why: str) -> None:
    with pytest.raises(PublishError, match=r"^SITE_URL") as raised:
        publication_url(value)
    message = str(raised.value)
    assert why in message and "\n" not in message
    assert "make publish SITE_URL=https://" in message


def test_publishing_accepts_a_real_address_and_ends_it_with_a_slash() -> None:
    assert publication_url("https://example.org/ridgepoint") == "https://example.org/ridgepoint/"
    assert publication_url("http://192.168.1.20/") == "http://192.168.1.20/"


def own_make() -> dict[str, str]:
    """The environment without an enclosing make's variables (`make test` runs these)."""
    return {name: value for name, value in os.environ.items()
            if name not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}


def test_make_publish_refuses_a_loopback_address_in_one_line_before_building() -> None:
    site = REPO / "site"
    before = site.stat().st_mtime_ns if site.exists() else None
    done = subprocess.run(["make", "--no-print-directory", "-C", str(REPO), "publish",
                           "SITE_URL=http://127.0.0.1:8000/"],
                          capture_output=True, text=True, check=False, env=own_make())
    assert done.returncode != 0
    ours = [line for line in done.stderr.splitlines()
            if not re.match(r"make(\[\d+\])?: \*\*\*", line)]
    assert ours == ["make publish: SITE_URL=http://127.0.0.1:8000/ is local to this machine "
                    "(127.0.0.1): publish with the address readers will use, e.g. make publish "
                    "SITE_URL=https://example.org/ridgepoint/ (feed ids are made from it and "
                    "are permanent)"]
    assert (site.stat().st_mtime_ns if site.exists() else None) == before


def test_make_build_builds_for_this_machine_whatever_site_url_says() -> None:
    """`make build` drops SITE_URL from its environment (a dry run shows the recipe)."""
    done = subprocess.run(["make", "-n", "--no-print-directory", "-C", str(REPO), "build"],
                          capture_output=True, text=True, check=True,
                          env={**own_make(), "SITE_URL": SITE_URL})
    assert "env -u SITE_URL" in done.stdout and "scripts/build.py" in done.stdout
