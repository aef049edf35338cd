"""Embedded sims: a ```sim block in Markdown becomes the widget, with real results inside.

At staging time each block runs its sim natively at the starting inputs and is replaced by
HTML that already holds everything a reader without JavaScript needs; in the browser,
`content/assets/sim/widget.js` takes over with Pyodide. One job per module:

- `blocks`: finding, parsing and validating ```sim blocks (bad ones are ContentErrors);
- `widget`: the widget's HTML, and the script that follows a page's first widget;
- `charts`: charts as inline SVG, with their cache;
- `display`: how numbers read, the twin of content/assets/sim/format.js;
- here: a page's blocks replaced by their widgets.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ridgepoint.base.errors import ContentError, ContentErrors
from ridgepoint.sims.blocks import iter_blocks, read_block
from ridgepoint.sims.simrun import SimRuns
from ridgepoint.sims.widget import WidgetScript, early_script, widget_html


def render_sim_blocks(
    markdown: str, source: str, runs: SimRuns, charts_dir: Path,
    widget_script: WidgetScript | None = None, links: Mapping[str, str] | None = None,
) -> str:
    """Replace every ```sim block of a page with the widget HTML.

    `source` is the page's path as errors should name it; `runs` runs the sims (cached),
    and `charts_dir` caches their charts. Every bad block of the page is
    reported at once, as ContentErrors. `widget_script`, widget.js as the page refers to
    it, is loaded right after the first widget as an async module, its imports preloaded:
    the theme's scripts at the end of the page run first otherwise, and only then would the
    widget mount the sims (the same module from extra_javascript is then not run a second
    time).
    `links` (input name -> page-relative URL) are the catalogue sections the GPU and model
    controls link to (widget.CATALOGUE_LINKS).
    """
    lines = markdown.splitlines(keepends=True)
    errors: list[ContentError] = []
    pieces: list[str] = []
    cursor = 0
    used: dict[str, int] = {}
    early = widget_script
    for fenced in iter_blocks(markdown):
        pieces.append("".join(lines[cursor:fenced.first]))
        cursor = fenced.end
        try:
            block = read_block(fenced, source, runs)
        except ContentErrors as refused:
            errors.extend(refused.errors)
            continue
        used[block.module] = used.get(block.module, 0) + 1
        count = used[block.module]
        key = block.module if count == 1 else f"{block.module}-{count}"
        after = early_script(early) if early else ""
        early = None
        pieces.append(f"\n{widget_html(block, key, runs, charts_dir, links)}\n{after}\n")
    pieces.append("".join(lines[cursor:]))
    if errors:
        raise ContentErrors(errors)
    return "".join(pieces)


def check_sim_blocks(markdown: str, source: str, runs: SimRuns) -> list[ContentError]:
    """What render_sim_blocks would refuse in a page, without rendering a widget (for
    `make check`): each block parsed, validated and run at its starting inputs."""
    errors: list[ContentError] = []
    for fenced in iter_blocks(markdown):
        try:
            read_block(fenced, source, runs)
        except ContentErrors as refused:
            errors.extend(refused.errors)
    return errors
