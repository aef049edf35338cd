"""An explainer page as a reader gets it: `{{ sim:... }}` figures rendered, whitespace folded.

Pages type some figures by hand in their "check it yourself" sections; tests compare those
with the shared physics, and need the page text exactly as staging writes it.
"""

from __future__ import annotations

import functools
from pathlib import Path

from ridgepoint.figures import FigureSource, render_figures

ROOT = Path(__file__).parents[2]


@functools.cache
def rendered(slug: str) -> str:
    """content/explainers/<slug>.md with its figures filled in, on one line."""
    page = ROOT / "content" / "explainers" / f"{slug}.md"
    text = render_figures(page.read_text(encoding="utf-8"), str(page), FigureSource(ROOT))
    return " ".join(text.split())
