"""The first widget on a page loads the widget script at once (async), so Python starts
before the theme's scripts at the end of the page have run."""

from __future__ import annotations

import re

from ridgepoint import urls
from ridgepoint.sim_embed import render_sim_blocks
from ridgepoint.stage import WIDGET_SCRIPT

PAGE = "Intro.\n\n```sim\nmodule: batching\n```\n\nMore.\n\n```sim\nmodule: roofline\n```\n"


def test_one_async_module_script_follows_the_first_widget_only() -> None:
    out = render_sim_blocks(PAGE, "content/explainers/x.md", "../../assets/sim/widget.js")
    scripts = re.findall(r"<script[^>]*\bsrc=[^>]*>", out)
    assert scripts == ['<script type="module" async src="../../assets/sim/widget.js">']
    first, second = out.index('data-sim="batching"'), out.index('data-sim="roofline"')
    assert first < out.index(scripts[0]) < second
    assert "src=" not in render_sim_blocks(PAGE, "content/explainers/x.md")


def test_the_script_path_is_relative_to_the_page() -> None:
    def script(source: str) -> str:
        return urls.relative(urls.page_url(source), WIDGET_SCRIPT)

    assert script("explainers/batching.md") == "../../assets/sim/widget.js"
    assert script("explainers/index.md") == "../assets/sim/widget.js"
    assert script("index.md") == "assets/sim/widget.js"
