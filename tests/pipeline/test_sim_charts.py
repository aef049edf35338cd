"""Charts prerendered as inline SVG: labelled, free of id clashes, rendered once per spec."""

from __future__ import annotations

import re

import pytest

import sims
from ridgepoint.sims import charts
from ridgepoint.sims.embed import render_sim_blocks
from ridgepoint.sims.simrun import SimRuns
from tests.repo import LAYOUT

RUNS = SimRuns.of(LAYOUT)

SOURCE = "content/articles/example.md"


def test_charts_are_inline_svg_with_a_text_alternative() -> None:
    out = render_sim_blocks("```sim\nmodule: batching\n```\n", SOURCE, RUNS, LAYOUT.charts)
    svgs = re.findall(r"<svg\b.*?</svg>", out)
    specs = sims.load("batching").simulate()["charts"]
    assert len(svgs) == len(specs)
    for index, (svg, spec) in enumerate(zip(svgs, specs, strict=True)):
        base = f"sim-batching-chart{index}"
        assert f'role="img" aria-labelledby="{base}-title {base}-desc"' in svg
        assert f'<title id="{base}-title">{spec["title"]["text"]}</title>' in svg
        assert "\n" not in svg  # one raw HTML line for Markdown
        assert 'width="480"' not in svg or "viewBox" in svg


def test_svg_is_rendered_once_per_spec(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    import vl_convert

    calls = []
    real = vl_convert.vegalite_to_svg
    monkeypatch.setattr(vl_convert, "vegalite_to_svg",
                        lambda spec, **kw: calls.append(1) or real(spec, **kw))
    spec = sims.load("batching").simulate(requests=2)["charts"][1]
    first = charts.chart_svg(spec, "a", tmp_path)
    second = charts.chart_svg(spec, "b", tmp_path)
    assert len(calls) == 1
    assert re.sub(r'(["# (])a-', r"\1b-", first) == second
    assert list(tmp_path.glob("*.svg")) == [charts.cache_path(charts._fixed_width(spec), tmp_path)]


def test_the_svg_cache_key_names_the_spec_and_the_renderer(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    """A cached chart is never served for another spec or another renderer version."""
    import vl_convert

    spec = charts._fixed_width(sims.load("batching").simulate(requests=2)["charts"][1])
    key = charts.cache_path(spec, tmp_path)
    assert charts.cache_path({**spec, "title": "another"}, tmp_path) != key
    monkeypatch.setattr(vl_convert, "__version__", "0.0.0-another")
    assert charts.cache_path(spec, tmp_path) != key
    monkeypatch.undo()
    monkeypatch.setattr(charts, "VL_VERSION", "v5_0")
    assert charts.cache_path(spec, tmp_path) != key


def test_a_chart_is_the_same_whatever_was_drawn_before_it(tmp_path) -> None:
    """Vega numbers clip paths with a counter kept for the process; the page does not."""
    spec = sims.load("parallelism").simulate()["charts"][0]
    first = charts.chart_svg(spec, "a", tmp_path / "one")
    again = charts.chart_svg(spec, "a", tmp_path / "two")  # drawn again: the counter moved
    assert again == first
    assert re.findall(r'id="a-(clip\d+)"', first) == ["clip1", "clip2"]
    assert re.findall(r"url\(#a-(clip\d+)\)", first) == ["clip1", "clip2"]
