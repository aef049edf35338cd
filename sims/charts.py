"""Vega-Lite spec helpers shared by every sim, so that all charts look and behave alike.

Each chart carries its rows as one named dataset, "table": the page keeps the chart's view
and swaps that dataset on every rerun instead of re-embedding the chart. Title and
description become the SVG's text alternative.
"""

from __future__ import annotations

from typing import Any

DATASET = "table"
HEIGHT = 260


def chart(title: str, description: str, rows: list[dict[str, Any]], **body: Any) -> dict[str, Any]:
    """A Vega-Lite spec over `rows`; `body` holds the mark/encoding/layer parts.

    Every axis a caller encodes should carry a title with its unit.
    """
    return {
        "title": title,
        "description": description,
        "data": {"name": DATASET, "values": rows},
        "width": "container",
        "height": HEIGHT,
        "background": None,
        # The chart is one image to assistive technology: its SVG has role="img" with the
        # title and description as its name, and the summary table holds the numbers. Vega's
        # per-mark ARIA roles inside it would only add unnamed "graphics-symbol" nodes.
        "config": {"aria": False, "mark": {"aria": False}},
        **body,
    }
