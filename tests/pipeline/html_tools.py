"""Reading built HTML in tests: listed items, ids, links and what a page asks for."""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

VOID = frozenset({"area", "br", "hr", "img", "input", "link", "meta", "source", "wbr"})
# <link rel> values that make the browser fetch something (canonical, alternate do not).
FETCHING_RELS = frozenset(
    {"stylesheet", "icon", "preload", "modulepreload", "prefetch", "preconnect", "manifest"}
)


@dataclass
class Item:
    """An element carrying `data-kind`, with its id and its text as a reader sees it."""

    kind: str
    id: str | None
    text: str = ""


class Page(HTMLParser):
    """Everything the tests look for in one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.items: list[Item] = []
        self.ids: set[str] = set()
        self.anchors: list[tuple[str, str | None, str]] = []  # href, title, text
        self.requests: list[str] = []  # what the browser fetches by itself
        self.meta: dict[str, str] = {}  # <meta name|property=...> -> content
        self.links: list[dict[str, str]] = []  # every <link>'s attributes
        self.title = ""
        self.text = ""
        self._stack: list[tuple[str, Item | None]] = []
        self._anchor: list[tuple[str, str | None, list[str]]] = []
        self._raw = 0  # inside <script>/<style>: not text a reader sees

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {key: value or "" for key, value in attrs}
        if "id" in values:
            self.ids.add(values["id"])
        if tag == "a" and "href" in values:
            self._anchor.append((values["href"], dict(attrs).get("title"), []))
        if tag in ("script", "img", "iframe", "source") and values.get("src"):
            self.requests.append(values["src"])
        if tag == "link" and FETCHING_RELS & set(values.get("rel", "").split()):
            self.requests.append(values["href"])
        if tag == "link":
            self.links.append(values)
        if tag == "meta" and ("name" in values or "property" in values):
            self.meta[values.get("name") or values["property"]] = values.get("content", "")
        if tag in ("script", "style", "title"):
            self._raw += 1
        if tag in VOID:
            return
        item = Item(values["data-kind"], values.get("id")) if "data-kind" in values else None
        if item:
            self.items.append(item)
        self._stack.append((tag, item))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "title"):
            self._raw -= 1
        if tag == "a" and self._anchor:
            href, title, text = self._anchor.pop()
            self.anchors.append((href, title, "".join(text)))
        while self._stack and self._stack.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        if self.lasttag == "title" and self._raw and not self._in("svg"):  # not a chart's
            self.title += data
        if self._raw:
            return
        self.text += data
        for _, item in self._stack:
            if item is not None:
                item.text += data
        for _, _, text in self._anchor:
            text.append(data)

    def _in(self, tag: str) -> bool:
        return any(open_tag == tag for open_tag, _ in self._stack)

    def kinds(self, kind: str) -> list[Item]:
        return [item for item in self.items if item.kind == kind]

    def order(self, kind: str, names: list[str]) -> list[str]:
        """Which of `names` each `kind` item shows, in page order (a check of listing order
        that does not depend on how the item's parts are laid out)."""
        return [next((n for n in names if n in item.text), item.text) for item in self.kinds(kind)]


def read_page(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def page_file(site: Path, url: str) -> Path:
    """The file serving `url` (site-root-relative; directory URLs end in "/")."""
    return site / (url + "index.html" if url.endswith("/") or not url else url)
