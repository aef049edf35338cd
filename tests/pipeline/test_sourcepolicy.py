"""The Content Security Policy's rules, applied to a page's Markdown at the editor's lines:
what the build's finishing pass would refuse in the built HTML is refused in the source,
and code (fenced, indented, inline) and figures are never mistaken for HTML."""

from __future__ import annotations

import markdown
import pytest

from ridgepoint.finishing.csp import scan
from ridgepoint.prose.sourcepolicy import refusals

# The Markdown extensions of mkdocs.yml that decide what becomes HTML.
EXTENSIONS = ["tables", "attr_list", "admonition", "md_in_html", "footnotes", "def_list",
              "pymdownx.superfences", "pymdownx.details", "ridgepoint.adapters.table_align"]

SNIPPETS = {
    "style attribute": '<p style="color: red">x</p>',
    "handler": '<button onclick="go()">go</button>',
    "javascript link in HTML": '<a href="javascript:go()">go</a>',
    "javascript link in Markdown": "[go](javascript:go())",
    "javascript reference link": "[go][r]\n\n[r]: javascript:go()",
    "attribute list": 'Bold.\n{: style="font-weight: bold" }',
    "handler in an attribute list": 'Click.\n{: onclick="go()" }',
    "inside an admonition": '!!! note\n\n    <span style="color: red">x</span>',
    "inside a table": "| a |\n|---|\n| <i style=\"x\">y</i> |",
    "aligned table": "| a | b |\n|:--|--:|\n| 1 | 2 |",
    "fenced code": '```html\n<p style="x" onclick="y">z</p>\n```',
    "indented code": 'Text.\n\n    <p style="x">z</p>',
    "inline code": 'Say `<p style="x">` in code.',
    "figure with an input named on-something": "It is {{ sim:batching.full_step_ms online=1 }}.",
    "plain prose about style": "The style of a page, onclick or not, is javascript: prose.",
}


def html_refused(text: str) -> list[str]:
    body = markdown.markdown(text, extensions=EXTENSIONS)
    return scan(f"<html><head></head><body>{body}</body></html>").refused


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_the_source_is_refused_exactly_when_the_built_page_would_be(name: str) -> None:
    text = SNIPPETS[name]
    if "{{" in text:  # a figure is filled in before Markdown sees it
        assert refusals(text, "x.md") == []
        return
    assert bool(refusals(text, "x.md")) == bool(html_refused(text)), (
        refusals(text, "x.md"), html_refused(text))


def test_every_refusal_names_the_line_in_the_file() -> None:
    body = "Intro.\n\n```\n<p style=\"in code\">\n```\n\n<b onclick=\"x()\">b</b>\n"
    [error] = refusals(body, "content/articles/a.md", first_line=8)
    assert str(error) == (
        "content/articles/a.md:14: html: <b onclick=...>: inline event handler: the Content "
        "Security Policy refuses it (expected a script file under content/assets/ that adds "
        "the listener)"
    )


@pytest.mark.parametrize(("text", "construct"), [
    ("<script>alert(1)</script>", "<script>"),
    ('<script src="assets/x.js"></script>', "<script>"),
    ('<img src="https://example.org/a.png" alt="">', '<img src="https://example.org/a.png">'),
    ('<img src="//example.org/a.png" alt="">', '<img src="//example.org/a.png">'),
    ('<img srcset="a.png 1x, https://example.org/b.png 2x" alt="">',
     '<img srcset="https://example.org/b.png">'),
    ('<link rel="stylesheet" href="https://example.org/x.css">',
     '<link href="https://example.org/x.css">'),
    ("![a](https://example.org/a.png)", "![...](https://example.org/a.png)"),
])
def test_a_script_of_its_own_or_a_file_from_another_host_is_refused(
    text: str, construct: str
) -> None:
    assert [error.message.split(": ")[0] for error in refusals(text, "x.md")] == [construct]


@pytest.mark.parametrize("text", [
    '<img src="../assets/a.png" alt="">', '<img src="data:image/png;base64,AAAA" alt="">',
    "![a](../assets/a.png)", "[a link elsewhere is fine](https://example.org/)",
    '<a href="https://example.org/">so is this</a>',
])
def test_the_sites_own_files_and_links_elsewhere_are_fine(text: str) -> None:
    assert refusals(text, "x.md") == []
