"""The first widget on a page loads the widget script at once (async), its imports preloaded,
so a sim in view gets going before the theme's scripts at the end of the page have run;
nothing on the page starts Python by itself (it waits until a sim is wanted:
tests/browser/test_lazy_python.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ridgepoint.base import urls
from ridgepoint.browser.modulegraph import static_imports
from ridgepoint.sims.embed import render_sim_blocks
from ridgepoint.sims.simrun import SimRuns
from ridgepoint.sims.widget import WidgetScript
from ridgepoint.staging.stage import WIDGET_SCRIPT
from ridgepoint.staging.stagecache import context_digest
from tests.repo import LAYOUT

RUNS = SimRuns.of(LAYOUT)

PAGE = "Intro.\n\n```sim\nmodule: batching\n```\n\nMore.\n\n```sim\nmodule: roofline\n```\n"


def test_the_widget_script_follows_the_first_widget_and_nothing_starts_python() -> None:
    out = render_sim_blocks(PAGE, "content/explainers/x.md", RUNS, LAYOUT.charts,
                            WidgetScript("../../assets/sim/widget.js"))
    scripts = re.findall(r"<script(?! type=\"application/json\")[^>]*>", out)
    assert scripts == ['<script type="module" async src="../../assets/sim/start.js">',
                       '<script type="module" async src="../../assets/sim/widget.js">']
    widget = out.index(scripts[1])
    first, second = out.index('data-sim="batching"'), out.index('data-sim="roofline"')
    assert first < widget < second
    assert "worker.js" not in out
    assert "src=" not in render_sim_blocks(PAGE, "content/explainers/x.md", RUNS, LAYOUT.charts)


def test_the_starter_imports_only_modules_the_widget_imports_and_preloads() -> None:
    """start.js shares the page's one worker with widget.js: the same module instances."""
    sim = LAYOUT.content / WIDGET_SCRIPT
    starter = static_imports(sim.parent / "start.js")
    assert set(starter) == {"python.js", "answers.js", "wanted.js"}  # answers.js: python.js
    assert set(starter) <= set(static_imports(sim))


def test_the_script_path_is_relative_to_the_page() -> None:
    def script(source: str) -> str:
        return urls.relative(urls.page_url(source), WIDGET_SCRIPT)

    assert script("explainers/batching.md") == "../../assets/sim/widget.js"
    assert script("explainers/index.md") == "../assets/sim/widget.js"
    assert script("index.md") == "assets/sim/widget.js"


def test_every_module_the_widget_imports_is_preloaded_before_it_from_the_page() -> None:
    imports = static_imports(LAYOUT.content / WIDGET_SCRIPT)
    out = render_sim_blocks(PAGE, "content/explainers/x.md", RUNS, LAYOUT.charts,
                            WidgetScript("../../assets/sim/widget.js", imports))
    preloaded = re.findall(r'<link rel="modulepreload" href="([^"]+)">', out)
    assert preloaded == [f"../../assets/sim/{name}" for name in imports]
    assert out.index(preloaded[-1]) < out.index('src="../../assets/sim/widget.js"')
    for name in ("python.js", "wanted.js", "format.js"):  # format.js: imported by results.js
        assert name in imports
    assert "worker.js" not in imports  # started by python.js when Python is wanted, not before


def test_the_import_graph_follows_static_imports_only_each_module_once(tmp_path: Path) -> None:
    (tmp_path / "entry.js").write_text(
        'import { a } from "./a.js";\nimport {\n  b,\n} from "./lib/b.js";\n'
        'const later = () => import("./lazy.js");\n', encoding="utf-8")
    (tmp_path / "a.js").write_text('export * from "./lib/b.js";\nimport "./side.js";\n',
                                   encoding="utf-8")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "b.js").write_text('import { a } from "../a.js";\n', encoding="utf-8")
    (tmp_path / "side.js").write_text("", encoding="utf-8")
    (tmp_path / "lazy.js").write_text("", encoding="utf-8")
    assert static_imports(tmp_path / "entry.js") == ("a.js", "lib/b.js", "side.js")


def test_an_import_of_a_missing_module_is_named(tmp_path: Path) -> None:
    (tmp_path / "entry.js").write_text('import { gone } from "./gone.js";\n', encoding="utf-8")
    with pytest.raises(FileNotFoundError, match=r"entry\.js imports \./gone\.js"):
        static_imports(tmp_path / "entry.js")


def test_a_page_is_staged_again_when_the_widget_imports_another_module() -> None:
    assert context_digest(LAYOUT, [], ("a.js",)) != context_digest(LAYOUT, [], ("a.js", "b.js"))
