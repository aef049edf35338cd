"""The pages whose sims the CSP and failure tests visit: every explainer and an article."""

from __future__ import annotations

from tests.repo import LAYOUT

EXPLAINERS = sorted(f"explainers/{path.stem}/" for path in (LAYOUT.content / "explainers")
                    .glob("*.md") if path.stem != "index")
SIM_ARTICLE = "articles/prompt-caching/"  # an article that embeds a sim
