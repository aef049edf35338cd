"""Figures in prose come from code: placeholders resolve, and bad ones fail with file:line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ridgepoint.base.errors import ContentErrors
from ridgepoint.base.layout import Layout
from ridgepoint.prose.figures import FigureSource, render_figures
from tests.repo import LAYOUT


def fake_runner(calls: list[tuple[str, dict[str, str]]]):
    def run(module: str, inputs: dict[str, str]) -> dict[str, Any]:
        calls.append((module, inputs))
        if module != "toy":
            raise LookupError(f"no sim named {module!r}")
        if "size" in inputs and inputs["size"] not in ("1", "2"):
            raise ValueError(f"size: expected an integer from 1 to 2, got {inputs['size']}")
        size = int(inputs.get("size", "1"))
        return {"summary": {"time_s": 0.0314 * size, "label": "memory"}, "charts": []}

    return run


@pytest.fixture
def root(tmp_path: Path) -> Layout:
    """A content tree holding one experiment's results."""
    layout = LAYOUT.with_content(tmp_path)
    layout.experiments.mkdir(parents=True)
    result = {"results": {"sse": {"ttft_ms": 12.345}}, "runs": [{"bytes": 77}]}
    (layout.experiments / "streaming.json").write_text(json.dumps(result))
    return layout


def test_sim_and_data_placeholders_are_replaced(root: Layout) -> None:
    calls: list[tuple[str, dict[str, str]]] = []
    source = FigureSource(root, fake_runner(calls))
    text = (
        "Gap {{ sim:toy.time_s x1000 | .0f }} ms, doubled {{ sim:toy.time_s size=2 | .3f }} s,"
        " bound {{ sim:toy.label }}, first text {{ data:streaming.results.sse.ttft_ms | .1f }}"
        " ms, {{ data:streaming.runs.0.bytes }} bytes; again {{ sim:toy.time_s | .2f }}.\n"
    )
    assert render_figures(text, "a.md", source) == (
        "Gap 31 ms, doubled 0.063 s, bound memory, first text 12.3 ms, 77 bytes; again 0.03.\n"
    )
    assert calls == [("toy", {}), ("toy", {"size": "2"})], "one run per distinct input set"


def test_cited_and_input_figures_are_written_as_they_are_without_running_anything(
    root: Layout,
) -> None:
    calls: list[tuple[str, dict[str, str]]] = []
    text = "Medusa-2 gave {{ cited: 2.3-2.8x }} and the call costs {{input:30 µs}} here.\n"
    rendered = render_figures(text, "a.md", FigureSource(root, fake_runner(calls)))
    assert rendered == "Medusa-2 gave 2.3-2.8x and the call costs 30 µs here.\n"
    assert calls == []


@pytest.mark.parametrize("kind", ["cited", "input"])
def test_a_marked_figure_without_a_figure_in_it_is_an_error(root: Layout, kind: str) -> None:
    text = f"One\nthe paper's {{{{ {kind}: headline }}}} result\n"
    with pytest.raises(ContentErrors) as caught:
        render_figures(text, "content/articles/x.md", FigureSource(root, fake_runner([])))
    [error] = caught.value.errors
    assert (error.path, error.line, error.field) == ("content/articles/x.md", 2, "figure")
    assert f"a {kind} figure must contain the figure it marks" in error.message


def test_placeholders_inside_fenced_code_are_left_alone(root: Layout) -> None:
    text = "```text\n{{ sim:nope.x }}\n```\n"
    assert render_figures(text, "a.md", FigureSource(root, fake_runner([]))) == text


@pytest.mark.parametrize(
    ("placeholder", "message"),
    [
        ("{{ sim:nope.time_s }}", "no sim named 'nope'"),
        ("{{ sim:toy.speed }}", "sim toy has no metric 'speed' (metrics: time_s, label)"),
        ("{{ sim:toy.time_s size=9 }}", "size: expected an integer from 1 to 2, got 9"),
        ("{{ sim:toy }}", "'toy' is not <module>.<metric>"),
        ("{{ sim:toy.time_s fast }}", "cannot read 'fast'"),
        ("{{ data:missing.x }}", "no result file content/data/experiments/missing.json"),
        ("{{ data:streaming.results.ws.ttft_ms }}", "streaming.results has no key 'ws'"),
        ("{{ sim:toy.label x2 }}", "cannot scale 'memory': not a number"),
    ],
)
def test_bad_references_name_file_line_and_problem(
    root: Layout, placeholder: str, message: str
) -> None:
    text = f"# Title\n\nSome prose {placeholder} here.\n"
    with pytest.raises(ContentErrors) as caught:
        render_figures(text, "content/articles/x.md", FigureSource(root, fake_runner([])))
    [error] = caught.value.errors
    assert (error.path, error.line, error.field) == ("content/articles/x.md", 3, "figure")
    assert message in error.message


def test_every_bad_reference_is_reported_in_one_pass(root: Layout) -> None:
    text = "{{ sim:toy.a }}\n{{ sim:toy.b }}\n"
    with pytest.raises(ContentErrors) as caught:
        render_figures(text, "x.md", FigureSource(root, fake_runner([])))
    assert [error.line for error in caught.value.errors] == [1, 2]
