"""Markdown table alignment (`|:--|:-:|--:|`) as a class per cell, not a style attribute.

Python-Markdown's tables extension aligns a column with `style="text-align: ..."` on each
cell, or with the `align` attribute when asked. The site's Content Security Policy refuses
style attributes (ridgepoint.finishing.csp) and `align` is obsolete HTML (the Nu Html Checker flags
it), so this treeprocessor, run after the table is parsed, replaces either with the class
`rp-align-left|center|right` (content/assets/site.css aligns them). It touches only table
cells holding exactly such an alignment; any other style stays for the policy to refuse.

A plain Python-Markdown extension, registered by name in mkdocs.yml's markdown_extensions
(`ridgepoint.adapters.table_align`), so any builder that reads that list applies it; it imports
nothing of MkDocs.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor

ALIGNMENTS = ("left", "center", "right")
CLASS_PREFIX = "rp-align-"
_STYLE = re.compile(r"\s*text-align:\s*(left|center|right)\s*;?\s*")
# After the tables' block parsing, before attr_list (priority 8) may add a class of its own.
PRIORITY = 9


class AlignAsClass(Treeprocessor):
    """Table cells' alignment style (or align attribute) becomes a class."""

    def run(self, root: etree.Element) -> None:
        for cell in root.iter():
            if cell.tag not in ("th", "td"):
                continue
            style = _STYLE.fullmatch(cell.get("style", ""))
            alignment = style.group(1) if style else cell.get("align")
            if alignment not in ALIGNMENTS:
                continue
            cell.attrib.pop("style" if style else "align")
            classes = [*cell.get("class", "").split(), f"{CLASS_PREFIX}{alignment}"]
            cell.set("class", " ".join(classes))


class TableAlignExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Python-Markdown's name
        md.treeprocessors.register(AlignAsClass(md), "ridgepoint_table_align", PRIORITY)


def makeExtension(**kwargs: object) -> TableAlignExtension:  # noqa: N802 - the entry point name
    return TableAlignExtension(**kwargs)
