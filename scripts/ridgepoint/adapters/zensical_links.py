"""A Markdown extension for Zensical only: raw HTML links, written relative to the page's URL
as MkDocs leaves them, made relative to the page's source file as Zensical reads them.

Zensical resolves every relative URL of a page against its Markdown file and rewrites it
for the page's URL; MkDocs does that for links to Markdown files only and leaves raw HTML as
it is. The pipeline writes raw HTML (a sim's widget script, its catalogue links) for the
page's URL, as docs/architecture.md's URL contract says. On an index page the two readings agree; on
`explainers/batching.md`, served at `explainers/batching/`, Zensical would put every such
link one folder too high. This preprocessor runs before Python-Markdown stashes raw HTML and
rewrites each relative `href`/`src` in an HTML tag from the page's folder to the source's,
so that Zensical's own rewriting gives back exactly the URL the pipeline wrote. Markdown
links (`[text](target.md)`) are source-relative for both builders and are left alone.

Named in the derived config only (ridgepoint.adapters.zensical); MkDocs never loads it.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

# A relative URL in a tag's href or src: not absolute (scheme, //, /), not only a fragment
# or a query, which name the page itself.
_ATTRIBUTE = re.compile(r"""(<[a-zA-Z][^>]*?\s(?:href|src)=)(["'])(?![a-zA-Z][\w+.-]*:|[/#?])"""
                        r"""([^"'#?]*)""")
PRIORITY = 25  # above html_block (20), which stashes raw HTML away from later steps


def page_folder(url: str) -> str:
    """The folder a page at site-relative `url` resolves its relative links against."""
    return url.strip("/") if url.endswith("/") or not url else posixpath.dirname(url)


def rebased(target: str, url: str, source: str) -> str:
    """`target` (relative to the page at site-relative `url`) relative to the folder of the
    page's source file `source` instead."""
    resolved = posixpath.normpath(posixpath.join(page_folder(url) or ".", target or "."))
    moved = posixpath.relpath(resolved, posixpath.dirname(source) or ".")
    return moved + "/" if target.endswith("/") and not moved.endswith("/") else moved


class RebaseRawLinks(Preprocessor):
    def __init__(self, md: Markdown, page: Any) -> None:
        super().__init__(md)
        self.page = page

    def run(self, lines: list[str]) -> list[str]:
        url, source = str(self.page.url or "").lstrip("/"), str(self.page.path)
        if page_folder(url) == posixpath.dirname(source):
            return lines  # an index page: its URL's folder is its source's
        return [_ATTRIBUTE.sub(lambda m: m[1] + m[2] + rebased(m[3], url, source), line)
                for line in lines]


class RebaseRawLinksExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Python-Markdown's name
        from zensical.extensions.context import ContextPreprocessor

        context = ContextPreprocessor.from_markdown(md)
        if context is not None:
            md.preprocessors.register(RebaseRawLinks(md, context.page), "rp_raw_links", PRIORITY)


def makeExtension(**kwargs: Any) -> RebaseRawLinksExtension:  # noqa: N802 - the entry point
    return RebaseRawLinksExtension(**kwargs)
