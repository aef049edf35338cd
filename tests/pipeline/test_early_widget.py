"""The first widget on a page loads the widget script at once (async), so a sim in view gets
going before the theme's scripts at the end of the page have run; nothing on the page starts
Python by itself (it waits until a sim is wanted: tests/browser/test_lazy_python.py)."""

from __future__ import annotations

import re

from ridgepoint import urls
from ridgepoint.sim_embed import render_sim_blocks
from ridgepoint.simrun import SimRuns
from ridgepoint.stage import WIDGET_SCRIPT
from tests.repo import LAYOUT

RUNS = SimRuns.of(LAYOUT)

PAGE = "Intro.\n\n```sim\nmodule: batching\n```\n\nMore.\n\n```sim\nmodule: roofline\n```\n"


def test_the_widget_script_follows_the_first_widget_and_nothing_starts_python() -> None:
    out = render_sim_blocks(PAGE, "content/explainers/x.md", RUNS, LAYOUT.charts,
                            "../../assets/sim/widget.js")
    scripts = re.findall(r"<script(?! type=\"application/json\")[^>]*>", out)
    assert scripts == ['<script type="module" async src="../../assets/sim/widget.js">']
    widget = out.index(scripts[0])
    first, second = out.index('data-sim="batching"'), out.index('data-sim="roofline"')
    assert first < widget < second
    assert "worker.js" not in out
    assert "src=" not in render_sim_blocks(PAGE, "content/explainers/x.md", RUNS, LAYOUT.charts)


def test_the_script_path_is_relative_to_the_page() -> None:
    def script(source: str) -> str:
        return urls.relative(urls.page_url(source), WIDGET_SCRIPT)

    assert script("explainers/batching.md") == "../../assets/sim/widget.js"
    assert script("explainers/index.md") == "../assets/sim/widget.js"
    assert script("index.md") == "assets/sim/widget.js"
