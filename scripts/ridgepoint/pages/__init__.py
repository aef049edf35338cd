"""Generated pages and feeds: plain functions from the content model to Markdown strings
(tag hubs, listings, the glossary, the reading feed, the catalogue and calibration pages),
Atom and JSON feeds, robots.txt.

Stage: generated pages. May import base, content, sims and catalogue.

Nothing here imports MkDocs (a test proves it): any builder that reads mkdocs.yml can build
the staged result.
"""

from __future__ import annotations

from pathlib import Path

from ridgepoint.base import urls
from ridgepoint.content.model import Site
from ridgepoint.pages.calibration import calibration_page
from ridgepoint.pages.catalogue import catalogue_page
from ridgepoint.pages.glossary import glossary_page
from ridgepoint.pages.hub import hub_page
from ridgepoint.pages.listings import articles_page, explainers_page, tag_articles_page, tags_page
from ridgepoint.pages.readings import readings_page
from ridgepoint.sims.simcode import SimCode


def generate_pages(site: Site, code: SimCode, charts: Path | None = None) -> dict[str, str]:
    """Staging path (relative to docs_dir) -> Markdown, for every generated page; the
    catalogue's derived figures and the calibration's prices come from `code`, the sims as
    this build read them (never an import made earlier by a long-lived `make serve`). The
    calibration's chart is drawn into `charts`, the SVG cache, and left out without one
    (`make check` draws no charts)."""
    pages = {
        urls.READINGS: readings_page(site),
        urls.GLOSSARY: glossary_page(site),
        urls.TAGS: tags_page(site),
        urls.EXPLAINERS: explainers_page(site),
        urls.ARTICLES: articles_page(site),
        urls.CATALOGUE: catalogue_page(site, code),
        urls.CALIBRATION: calibration_page(site, code, charts),
    }
    for tag in site.tags_in_use():
        pages[urls.hub(tag)] = hub_page(site, tag)
        pages[urls.tag_articles(tag)] = tag_articles_page(site, tag)
    return {urls.source_path(url): text for url, text in pages.items()}
