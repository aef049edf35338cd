"""Where every page and feed lives, as site-root-relative URLs (the README's URL contract).

Pages, feeds and glossary links all derive their addresses from these functions, so a URL
is spelled once. Page URLs end in "/" (MkDocs' use_directory_urls); `source_path` maps one
back to the Markdown file that produces it in the staging tree.
"""

from __future__ import annotations

import functools
import posixpath

HOME = ""
GLOSSARY = "glossary/"
READINGS = "feed/"
EXPLAINERS = "explainers/"
ARTICLES = "articles/"
TAGS = "tags/"
CATALOGUE = "catalogue/"
CALIBRATION = "calibration/"
ATOM_FEED = "feed.xml"
JSON_FEED = "feed.json"
ROBOTS = "robots.txt"
SITEMAP = "sitemap.xml"  # written by MkDocs from site_url


def hub(tag: str) -> str:
    """The tag hub: explainers, terms and the reading path of one tag."""
    return f"feed/tags/{tag}/"


def tag_articles(tag: str) -> str:
    """The listing of articles carrying one tag."""
    return f"tags/{tag}/"


def tag_feed(tag: str) -> str:
    """The Atom feed of one tag."""
    return f"feed/tags/{tag}.xml"


def explainer(slug: str) -> str:
    return f"{EXPLAINERS}{slug}/"


def article(slug: str) -> str:
    return f"{ARTICLES}{slug}/"


def term(slug: str) -> str:
    """A term's anchor on the glossary page."""
    return f"{GLOSSARY}#{slug}"


def reading(slug: str) -> str:
    """A reading's anchor on the reading feed page (readings have no page of their own)."""
    return f"{READINGS}#{slug}"


def catalogue_entry(kind: str, key: str) -> str:
    """A GPU's or a model's anchor on the catalogue page (`kind` is "gpu" or "model"); a key
    may hold dots (llama-3.1-8b), an anchor does not."""
    return f"{CATALOGUE}#{kind}-{key.replace('.', '-')}"


def catalogue_links(here: str) -> dict[str, str]:
    """From the page at `here`, the catalogue sections a sim's GPU and model controls link to
    (input name -> page-relative URL)."""
    return {"gpu": relative(here, f"{CATALOGUE}#gpus"),
            "model": relative(here, f"{CATALOGUE}#models")}


def source_path(url: str) -> str:
    """The staged Markdown file that MkDocs turns into the page at `url`."""
    return f"{url}index.md"


def page_url(source: str) -> str:
    """The URL of the page MkDocs makes from the Markdown file `source` (relative to the
    docs folder; use_directory_urls): `a/b.md` -> `a/b/`, `a/index.md` -> `a/`."""
    stem = source.removesuffix(".md")
    if stem == "index" or stem.endswith("/index"):
        return stem.removesuffix("index")
    return f"{stem}/"


def relative(here: str, target: str) -> str:
    """`target` as a link from the page at `here`; both are site-root-relative URLs.

    Raw HTML is not rewritten by MkDocs, so generated markup carries page-relative links
    that work under any site_url path and when site/ is opened from disk.
    """
    path, hash_, fragment = target.partition("#")
    link = _relpath(path or ".", here or ".")
    if path.endswith("/") or not path:
        link += "/"
    if link == "./" and hash_:
        return f"#{fragment}"
    return f"{link}{hash_}{fragment}"


@functools.cache
def _relpath(path: str, start: str) -> str:
    """posixpath.relpath, remembered: a listing links each of its many items to one of a few
    folders (the glossary, the reading feed, a hub), and relpath is slow (it asks the OS for
    the working directory every time)."""
    return posixpath.relpath(path, start)
