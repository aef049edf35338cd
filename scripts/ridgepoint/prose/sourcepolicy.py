"""What the site's Content Security Policy refuses, found in a page's Markdown at its line.

The build's finishing pass (ridgepoint.finishing.csp) refuses a built page holding an inline event
handler, a `style` attribute or a `javascript:` URL, naming the built HTML. An editor needs
the same rules earlier and at their own file and line, in `make check` and on every save
under `make serve`, so this module applies them to the Markdown source: to raw HTML tags
(with csp's own tag scan) and to what Markdown turns into attributes (`{: style=... }`
attribute lists, `[text](javascript:...)` links). Two more rules keep a page within the
policy it would otherwise silently widen or break: no `<script>` of a page's own (the build
would hash and allow it), and nothing fetched from another host (the page asks no other host
for anything; `default-src 'self'` would block it in the reader's browser).

Code is not HTML: fenced and indented code blocks (ridgepoint.prose.spans decides which lines those
are), inline code spans and `{{ sim:... }}` figures are left out before scanning.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from ridgepoint.base.errors import ContentError
from ridgepoint.base.starttags import REFUSED, TOKEN, parse_attributes, refused_in_tag
from ridgepoint.prose.figures import PLACEHOLDER
from ridgepoint.prose.spans import CODE, line_kinds

_CODE_SPAN = re.compile(r"(?<!\\)(`+)(?!`).+?(?<!`)\1(?!`)")
# `[text](url)` and `![alt](url)`, and a reference definition `[id]: url`.
LINK = re.compile(r"(!?)\[[^\]\n]*\]\(\s*<?([^)\s>]+)")
DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
# An attribute list as attr_list reads one: `{: #id .class key=value }`.
_ATTR_LIST = re.compile(r"\{:?[ ]*([^}\n ][^}\n]*)[ ]*\}")
_OTHER_HOST = re.compile(r"^\s*(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)")
_FETCHED = {"src", "srcset", "poster", "data"}  # attributes whose URL the browser fetches

EXPECTED = {
    **{kind: instead for kind, (_, instead) in REFUSED.items()},
    "script": "a script file under content/assets/, listed in mkdocs.yml's extra_javascript",
    "host": "a file under content/: the page asks no other host for anything",
}
WHY = {
    **{kind: f"{name}: the Content Security Policy refuses it"
       for kind, (name, _) in REFUSED.items()},
    "script": "a script of the page's own: the site runs only its own script files",
    "host": "fetched from another host",
}


def refusals(body: str, path: str, first_line: int = 1) -> list[ContentError]:
    """Every construct in a page's Markdown body (its front matter aside: staging escapes
    that) that the built page's policy would refuse; `first_line` is the body's line in
    the file at `path`."""
    text = without_code(body)
    starts = [0, *(match.end() for match in re.finditer("\n", text))]
    return [
        ContentError(path, first_line - 1 + bisect.bisect_right(starts, offset), "html",
                     f"{construct}: {WHY[kind]}", EXPECTED[kind])
        for offset, construct, kind in sorted(_found(text))
    ]


def _found(text: str) -> Iterator[tuple[int, str, str]]:
    """(offset, construct, kind) for each refused construct in code-free text."""
    for match in TOKEN.finditer(text):
        tag, attribute_text = match.group(1), match.group(2)
        if tag is None:  # a comment
            continue
        tag = tag.lower()
        for construct, kind in refused_in_tag(tag, attribute_text):
            yield match.start(), construct, kind
        if tag == "script":
            yield match.start(), "<script>", "script"
        for name, value in _urls(tag, attribute_text):
            if _OTHER_HOST.match(value) and not value.strip().lower().startswith("data:"):
                yield match.start(), f'<{tag} {name}="{value.strip()}">', "host"
    for match in LINK.finditer(text):
        image, url = match.group(1), match.group(2)
        if url.lower().startswith("javascript:"):
            yield match.start(), f"{image}[...](javascript:...)", "javascript"
        elif image and _OTHER_HOST.match(url) and not url.lower().startswith("data:"):
            yield match.start(), f"![...]({url})", "host"
    for match in DEFINITION.finditer(text):
        if match.group(1).lower().startswith("javascript:"):
            yield match.start(1), "[...]: javascript:...", "javascript"
    for match in _ATTR_LIST.finditer(text):
        for name, _ in parse_attributes(match.group(1)) if "=" in match.group(1) else ():
            if name.startswith("on") or name == "style":
                kind = "style" if name == "style" else "handler"
                yield match.start(), f"{{: {name}=... }}", kind


def _urls(tag: str, attribute_text: str) -> Iterator[tuple[str, str]]:
    """(attribute, URL) for each URL in a tag that the browser fetches by itself."""
    if "=" not in attribute_text:
        return
    for name, value in parse_attributes(attribute_text):
        if value is None:
            continue
        if name in _FETCHED or (tag == "link" and name == "href"):
            candidates = value.split(",") if name == "srcset" else [value]
            for candidate in candidates:
                if candidate.strip():
                    yield name, candidate.strip().split()[0]


def without_code(markdown: str) -> str:
    """The page with code blocks, code spans and figure placeholders blanked out (same
    length, same lines), so that offsets still give the editor's lines."""
    lines = markdown.splitlines(keepends=True)
    kept = []
    for line, kind in zip(lines, line_kinds(lines), strict=True):
        if kind == CODE:
            kept.append(re.sub(r"[^\n]", " ", line))
        else:
            kept.append(_CODE_SPAN.sub(_blank, line))
    return PLACEHOLDER.sub(_blank, "".join(kept))


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group(0))
