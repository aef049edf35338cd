"""The first widget on a page starts Python's worker (an inline script just before it) and
loads the widget script at once (async), so Python starts before the page is parsed and the
theme's scripts at the end of the page have run."""

from __future__ import annotations

import re

from ridgepoint import urls
from ridgepoint.sim_embed import render_sim_blocks
from ridgepoint.sim_embed.widget import STARTER
from ridgepoint.stage import WIDGET_SCRIPT
from tests.repo import LAYOUT

PAGE = "Intro.\n\n```sim\nmodule: batching\n```\n\nMore.\n\n```sim\nmodule: roofline\n```\n"


def test_the_worker_starts_before_the_first_widget_and_the_widget_script_follows_it() -> None:
    out = render_sim_blocks(PAGE, "content/explainers/x.md", LAYOUT, "../../assets/sim/widget.js")
    scripts = re.findall(r"<script(?! type=\"application/json\")[^>]*>", out)
    assert scripts == [
        '<script data-worker="../../assets/sim/worker.js">',
        '<script type="module" async src="../../assets/sim/widget.js">',
    ]
    starter, widget = (out.index(script) for script in scripts)
    first, second = out.index('data-sim="batching"'), out.index('data-sim="roofline"')
    assert starter < first < widget < second
    assert f">{STARTER}</script>" in out
    assert "<script data-worker" not in render_sim_blocks(PAGE, "content/explainers/x.md", LAYOUT)
    assert "src=" not in render_sim_blocks(PAGE, "content/explainers/x.md", LAYOUT)


def test_the_script_path_is_relative_to_the_page() -> None:
    def script(source: str) -> str:
        return urls.relative(urls.page_url(source), WIDGET_SCRIPT)

    assert script("explainers/batching.md") == "../../assets/sim/widget.js"
    assert script("explainers/index.md") == "../assets/sim/widget.js"
    assert script("index.md") == "assets/sim/widget.js"
