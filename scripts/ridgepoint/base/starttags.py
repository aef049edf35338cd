"""Start tags as a browser tokenizes them, and what the site's security policy refuses in one.

Two stages ask the same question of HTML: staging, of each page's Markdown at its source
lines (ridgepoint.prose.sourcepolicy), and the finishing pass, of every built page
(ridgepoint.finishing.csp). The rules live here, once, below both.
"""

from __future__ import annotations

import html
import re

URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href"}

# The page is scanned with regular expressions rather than html.parser: the policy depends
# only on start tags (and their attributes) and on the text of script and style elements,
# and a full parse of every built page cost more than the rest of the pipeline together.
# Comments are skipped whole; a tag's quoted attribute values may hold '>'.
TOKEN = re.compile(
    r"""<!--.*?(?:-->|\Z)|<([a-zA-Z][^\s/>]*)([^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*)>""",
    re.DOTALL,
)
# An attribute as browsers split them: a name, then optionally '=' and a value.
_ATTRIBUTE = re.compile(r"""([^\s/>"'=][^\s/>=]*)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]*))?""")
# In lowercased attribute text: a name starting with "on" or "style" (names follow
# whitespace, a quote or '/'), and a URL value starting with a character reference or a "j"
# (only such a value with a character reference in it can spell javascript: in disguise).
_REFUSABLE_NAME = re.compile(r"""[\s"'/](?:on|style)""")
_ENCODED_URL = re.compile(r"""(?:href|src|action)\s*=\s*["']?\s*[&j]""")


def suspect(lowered: str) -> bool:
    """Whether lowercased attribute text may hold something refused. Most tags hold none of
    it, and their attributes are not parsed. (Plain `in` tests first: they are much faster
    than a regular expression.)"""
    return (
        "javascript:" in lowered
        or (("on" in lowered or "style" in lowered) and bool(_REFUSABLE_NAME.search(lowered)))
        or ("&" in lowered and bool(_ENCODED_URL.search(lowered)))
    )


def parse_attributes(text: str) -> list[tuple[str, str | None]]:
    """A start tag's attributes: lowercase names, values unquoted and unescaped."""
    found = []
    for match in _ATTRIBUTE.finditer(text):
        value = match.group(2)
        if value is not None:
            if value[:1] in ("'", '"'):
                value = value[1:-1]
            value = html.unescape(value)
        found.append((match.group(1).lower(), value))
    return found


# What the policy refuses in a start tag, by kind: how the build names it, and what to use
# instead (ridgepoint.finishing.csp refuses them in built pages, ridgepoint.prose.sourcepolicy
# reports them at the content's own lines).
REFUSED = {
    "handler": ("inline event handler", "a script file under content/assets/ that adds the "
                "listener"),
    "style": ("style attribute", "a class, styled in content/assets/site.css"),
    "javascript": ("javascript: URL", "a link to a page or file"),
}


def refused_in_tag(tag: str, attribute_text: str) -> list[tuple[str, str]]:
    """(construct, kind of REFUSED) for what in one start tag no policy here allows; most
    tags hold none of it, and their attributes are not parsed."""
    if not suspect(attribute_text.lower()):
        return []
    return refused(tag.lower(), parse_attributes(attribute_text))


def refused(tag: str, attributes: list[tuple[str, str | None]]) -> list[tuple[str, str]]:
    refused = []
    for name, value in attributes:
        if name.startswith("on"):
            refused.append((f"<{tag} {name}=...>", "handler"))
        elif name == "style":
            refused.append((f"<{tag} style=...>", "style"))
        elif name in URL_ATTRIBUTES and (value or "").strip().lower().startswith("javascript:"):
            refused.append((f'<{tag} {name}="javascript:...">', "javascript"))
    return refused
