"""The glossary page `glossary/`: every term under its own anchor `#<slug>`.

Glossary links in explainers and articles, hub term lists and feeds all point at these
anchors, so the slug is the term's address.
"""

from __future__ import annotations

from ridgepoint.base import urls
from ridgepoint.base.markup import count, esc
from ridgepoint.content.model import Site
from ridgepoint.pages.common import page, paragraph
from ridgepoint.pages.items import term_entry
from ridgepoint.pages.order import terms_alphabetical


def glossary_page(site: Site) -> str:
    """Every term, alphabetically, with definition, related terms and tags."""
    here = urls.GLOSSARY
    entries = "\n".join(term_entry(site, t, here) for t in terms_alphabetical(site.terms.values()))
    lede = (
        f"{count(len(site.terms), 'term', 'terms')}, each pinned down in one sentence. "
        "Explainers and articles link a term's first mention here."
    )
    return page(
        "Glossary",
        paragraph(esc(lede), "rp-lede"),
        f'<div class="rp-glossary">\n{entries}\n</div>',
        description="The vocabulary of LLM serving latency, one sentence per term.",
    )
