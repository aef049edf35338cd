"""The pages whose sims the CSP and failure tests visit (every explainer and an article), and
how a test brings every sim of a page to life: as a reader does, by scrolling to it."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.repo import LAYOUT

EXPLAINERS = sorted(f"explainers/{path.stem}/" for path in (LAYOUT.content / "explainers")
                    .glob("*.md") if path.stem != "index")
SIM_ARTICLE = "articles/prompt-caching/"  # an article that embeds a sim


def wake_every_sim(page: Page) -> None:
    """Scroll each sim of the page into view in turn: a sim starts Python only once it
    comes near the viewport (content/assets/sim/wanted.js), and an article's may be
    screens below its first."""
    sims = page.locator("[data-sim]")
    for index in range(sims.count()):
        sims.nth(index).scroll_into_view_if_needed()
