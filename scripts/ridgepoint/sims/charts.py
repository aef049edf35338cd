"""A sim's charts as inline SVG, rendered at build time and cached under build/cache/vl-svg.

The prerendered chart is what a reader sees before Python starts (and all a reader without
JavaScript sees), so it is rendered by vl-convert from the very Vega-Lite spec the browser
later draws with Vega. Rendering costs tens of milliseconds a chart; the cache keeps a
rebuild from paying it again for a spec it has seen (`cache_dir`, which builds take from
`Layout.charts`).
"""

from __future__ import annotations

import copy
import hashlib
import html
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ridgepoint.base.atomic import write_atomic

VL_VERSION = "v6_4"  # the newest Vega-Lite vl-convert 1.9 bundles; npm vega-lite is 6.4.x
SVG_WIDTH = 480  # prerendered charts stand in for width "container"; CSS scales the SVG


def title_text(title: Any) -> str:
    """A chart's title as text: sims give it as an object, its text and a width limit
    (sims/charts.py), as charts.js reads it."""
    return str(title.get("text", "")) if isinstance(title, dict) else str(title)


def chart_svg(spec: Mapping[str, Any], chart_id: str, cache_dir: Path) -> str:
    """A chart as inline SVG: rendered natively, cached by spec, labelled for assistive tech.

    The SVG's ids are prefixed with `chart_id` so that several charts on one page never
    share an id (Vega names clip paths and gradients the same way in every chart).
    """
    svg = _numbered_in_order(_cached_svg(_fixed_width(spec), cache_dir))
    svg = re.sub(r"^<\?xml[^>]*>\s*", "", svg).replace("\n", " ")
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{chart_id}-\1"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", rf"url(#{chart_id}-\1)", svg)
    svg = re.sub(r'href="#([^"]+)"', rf'href="#{chart_id}-\1"', svg)
    title = html.escape(title_text(spec.get("title", "")))
    desc = html.escape(str(spec.get("description", "")))
    head = (
        f' role="img" aria-labelledby="{chart_id}-title {chart_id}-desc">'
        f'<title id="{chart_id}-title">{title}</title><desc id="{chart_id}-desc">{desc}</desc>'
    )
    return re.sub(r"^(<svg\b[^>]*?)>", lambda m: m.group(1) + head, svg, count=1)


_CLIP = re.compile(r'(id="|url\(#)clip(\d+)\b')


def _numbered_in_order(svg: str) -> str:
    """The SVG with its clip paths numbered 1, 2, ... in order of appearance. Vega numbers
    them with a counter kept for the whole process, so the same chart drawn after others
    came out `clip7` instead of `clip5`: a page's bytes then depended on which charts the
    build had drawn afresh, not only on its content."""
    numbers: dict[str, int] = {}

    def renumbered(match: re.Match[str]) -> str:
        number = numbers.setdefault(match.group(2), len(numbers) + 1)
        return f"{match.group(1)}clip{number}"

    return _CLIP.sub(renumbered, svg)


def _fixed_width(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The spec with width "container" (live charts fill their box) made a fixed width."""
    fixed = copy.deepcopy(dict(spec))
    if fixed.get("width") == "container":
        fixed["width"] = SVG_WIDTH
    return fixed


def cache_path(spec: Mapping[str, Any], cache_dir: Path) -> Path:
    """Where the SVG of a (fixed-width) spec is cached. The key covers the spec, the
    Vega-Lite version and vl-convert's own version, so an upgrade of either renders afresh."""
    import vl_convert

    text = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    key = hashlib.sha256(f"{vl_convert.__version__}|{VL_VERSION}|{text}".encode()).hexdigest()
    return cache_dir / f"{key}.svg"


def warm_up() -> None:
    """Start vl-convert's engine (about half a second, once per process) with a chart of
    nothing, so that the first chart a long-lived process needs does not pay for it."""
    import vl_convert

    vl_convert.vegalite_to_svg({"mark": "point", "data": {"values": []}}, vl_version=VL_VERSION)


def _cached_svg(spec: Mapping[str, Any], cache_dir: Path) -> str:
    """vl-convert's SVG for a spec, from the cache when this exact spec was seen before."""
    import vl_convert

    path = cache_path(spec, cache_dir)
    if path.is_file():
        return path.read_text(encoding="utf-8")
    svg = vl_convert.vegalite_to_svg(spec, vl_version=VL_VERSION)
    write_atomic(path, svg)
    return svg
