"""Links between pages, checked at the source: a relative link to a page or file the site
does not have.

`mkdocs build --strict` stops on a link whose target is not among the site's files, naming
the staged page without a line; an editor needs it at the file and line, in `make check` and
on every save under `make serve`. This checks the Markdown links (inline, images, reference
definitions; code left out, as ridgepoint.prose.sourcepolicy does) of each content page against
every file staging produces: content, generated pages and feeds. Links to other hosts, to
the site root and to an anchor of the page itself are not this check's business; an anchor
on another page is left to MkDocs (the target's headings are known only once rendered).
"""

from __future__ import annotations

import bisect
import functools
import posixpath
import re
from collections.abc import Collection

from ridgepoint.base.errors import ContentError, ContentErrors
from ridgepoint.content.load import body_of
from ridgepoint.prose.sourcepolicy import DEFINITION, LINK, without_code

_ELSEWHERE = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//|/|#)")
EXPECTED = "a path relative to this page to a file under content/ or a generated page, e.g. " \
    "../articles/prompt-caching.md"


def broken_links(text: str, page: str, source: str, files: Collection[str]
                 ) -> list[ContentError]:
    """The links of a page (its file's `text`; `page`: its path in the staging tree;
    `source`: as errors name it) whose target is none of `files` (staging-tree paths)."""
    return [
        ContentError(source, line, "link", f"{url}: {why}", EXPECTED)
        for line, url in links_in(text)
        if (why := _problem(url, page, files))
    ]


@functools.lru_cache(maxsize=4096)
def links_in(text: str) -> tuple[tuple[int, str], ...]:
    """(file line, URL) of every Markdown link of a page file, front matter and code left
    out. Remembered by text: under `make serve` every page's links are checked on every
    save, and only the saved page's text is new."""
    try:
        body, body_line = body_of(text)
    except ContentErrors:  # reported by the page's own staging
        return ()
    body = without_code("\n" * (body_line - 1) + body)
    starts = [0, *(match.end() for match in re.finditer("\n", body))]
    found = [(match.start(), match.group(2)) for match in LINK.finditer(body)]
    found += [(match.start(1), match.group(1)) for match in DEFINITION.finditer(body)]
    return tuple((bisect.bisect_right(starts, offset), url) for offset, url in sorted(found))


def _problem(url: str, page: str, files: Collection[str]) -> str:
    """Why `url`, linked from `page`, does not resolve ("" when it does)."""
    if _ELSEWHERE.match(url):
        return ""
    path = url.split("#", 1)[0].split("?", 1)[0]
    target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
    if target.startswith("../"):
        return "points outside the site"
    if target in files:
        return ""
    if path.endswith("/") or f"{target}/index.md" in files:
        return "links a folder (MkDocs wants the page's file: its index.md)"
    return "no such page or file in the site"
