"""Find the prose in a Markdown body: the spans where words may be turned into links.

Glossary linking edits editors' Markdown before MkDocs sees it, so it must know what is
not prose: fenced code (```sim blocks included), indented code, headings, raw HTML blocks,
admonition and tab titles, tables, reference definitions, and inline code, links, images,
autolinks, bare URLs, inline HTML, entities and attribute lists inside a paragraph. This is
a conservative line scanner, not a Markdown parser: when unsure it calls a line not prose,
since a missed link costs less than a broken page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
_HTML_BLOCK = re.compile(r"^ {0,3}<(?:!--|/?([A-Za-z][A-Za-z0-9-]*))")
_CONTAINER_OPENER = re.compile(r"^[ \t]*(?:!!!|\?\?\?\+?|===[!+]?)[ \t]")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+")
_NOT_PROSE_LINE = re.compile(
    r"^ {0,3}(?:\[[^\]]+\]:"  # reference or footnote definition
    r"|\*\[[^\]]+\]:"  # abbreviation definition
    r"|\{:?[^}]*\}[ \t]*$"  # a line that is only an attribute list
    r"|(?:[-*_][ \t]*){3,}$)"  # thematic break
)
_TABLE_DELIMITER = re.compile(
    r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$"
)

# Inside a paragraph: what is not prose. Where two could start at the same place, the earlier
# alternative wins (a code span holding a tag is code).
_INLINE_SKIPS = re.compile(
    r"(?<!\\)(`+).*?(?<!`)\1(?!`)"  # code span
    r"|<(a|code|kbd|abbr|span|script|style)\b[^>]*>.*?</\2\s*>"  # inline element with content
    r"|<[^>\n]*>"  # any other tag, comment or autolink
    r"|!?\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])?"  # link, image, reference, footnote mark
    r"|https?://\S+"  # bare URL
    r"|&#?\w+;"  # character reference
    r"|\{[:#.][^}]*\}",  # attribute list
    re.DOTALL,
)


_VOID_TAGS = frozenset(
    {"area", "br", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
_INLINE_TAGS = frozenset(
    {"a", "abbr", "b", "code", "em", "i", "kbd", "span", "strong", "sub", "sup"}
)


def _indent(line: str) -> int:
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip(" "))


def _tag_balance(line: str, tag: str) -> int:
    """Opening minus closing tags of `tag` on a line."""
    opened = len(re.findall(rf"<{tag}\b", line, re.IGNORECASE))
    closed = len(re.findall(rf"</{tag}\s*>", line, re.IGNORECASE))
    return opened - closed


def _html_block_tag(line: str) -> str | None:
    """The tag of the raw HTML block `line` opens ("!--" for a comment), or None: a line
    starting with an inline tag such as <span> is a paragraph, as in Python-Markdown."""
    match = _HTML_BLOCK.match(line)
    if not match:
        return None
    tag = (match.group(1) or "!--").lower()
    return None if tag in _INLINE_TAGS else tag


def _html_depth(line: str, tag: str) -> int:
    """How many levels of `tag` the line opens (negative: closes); a comment is one level."""
    if tag == "!--":
        return line.count("<!--") - line.count("-->")
    return _tag_balance(line, tag)


PROSE, CODE, OTHER = "prose", "code", "other"  # what a line is (line_kinds)


def line_kinds(lines: list[str]) -> list[str]:
    """For each line, whether it is PROSE (a paragraph or list item line), CODE (a fence
    line, or inside fenced or indented code) or OTHER (headings, raw HTML blocks, blank
    lines, openers of containers ...)."""
    kinds: list[str] = []
    fence = ""  # the open fence's marker, e.g. "```"
    html_tag, html_depth = "", 0  # the open raw HTML block's tag ("!--" for a comment)
    indented_code = in_container = False
    previous_blank = True
    for line in lines:
        stripped = line.strip()
        kind = OTHER
        if fence:
            kind = CODE
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = ""
        elif html_tag:
            html_depth += _html_depth(line, html_tag)
            if html_depth <= 0 or (not stripped and html_tag in _VOID_TAGS):
                html_tag = ""
        elif indented_code and (not stripped or _indent(line) >= 4):
            kind = CODE
        elif match := _FENCE.match(line):
            fence, kind = match.group(1), CODE
        elif not stripped:
            pass
        elif tag := _html_block_tag(line):
            html_tag, html_depth = tag, _html_depth(line, tag)
            if html_depth <= 0 and html_tag not in _VOID_TAGS:
                html_tag = ""
        elif _SETEXT_UNDERLINE.match(line) and kinds and kinds[-1] == PROSE:
            kinds[-1] = OTHER  # the line above is a heading
        elif (
            _ATX_HEADING.match(line) or _NOT_PROSE_LINE.match(line) or _SETEXT_UNDERLINE.match(line)
        ):
            pass
        elif _CONTAINER_OPENER.match(line):
            in_container = True
        elif _indent(line) >= 4 and previous_blank and not in_container:
            indented_code, kind = True, CODE
        else:
            kind = PROSE
            if _LIST_ITEM.match(line):
                in_container = True
            elif _indent(line) == 0:
                in_container = False
        if stripped and not (indented_code and _indent(line) >= 4):
            indented_code = False
        kinds.append(kind)
        previous_blank = not stripped
    return kinds


def _paragraphs(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each run of consecutive prose lines, tables dropped."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    run: list[tuple[int, str]] = []
    is_prose = [kind == PROSE for kind in line_kinds(lines)]
    marked = zip(offsets, [*lines, ""], [*is_prose, False], strict=True)
    for offset, line, prose in marked:
        if prose:
            run.append((offset, line))
            continue
        if run and not any(_TABLE_DELIMITER.match(part) for _, part in run):
            yield run[0][0], run[-1][0] + len(run[-1][1])
        run = []


def prose_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) offsets into `text` of every stretch of plain prose, in order."""
    for start, end in _paragraphs(text):
        position = start
        for skip in _INLINE_SKIPS.finditer(text, start, end):
            if skip.start() > position:
                yield position, skip.start()
            position = max(position, skip.end())
        if position < end:
            yield position, end
