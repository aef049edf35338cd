"""```sim blocks: replaced by the prerendered widget, or refused with file and line."""

from __future__ import annotations

import json
import random
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

import sims
from ridgepoint import sim_embed
from ridgepoint.errors import ContentErrors
from ridgepoint.sim_embed import display, exact, modules_in, render_sim_blocks

SOURCE = "content/articles/example.md"
FORMAT_JS = Path(__file__).resolve().parents[2] / "content" / "assets" / "sim" / "format.js"


def page(*blocks: str) -> str:
    parts = ["# A page", "", "Some prose."]
    for body in blocks:
        parts += ["", "```sim", body.strip("\n"), "```", "", "More prose."]
    return "\n".join(parts) + "\n"


class Widgets(HTMLParser):
    """Collects what a test needs from rendered widgets."""

    def __init__(self) -> None:
        super().__init__()
        self.sims: list[dict[str, str]] = []
        self.ids: list[str] = []
        self.controls: list[str] = []
        self.configs: list[dict] = []
        self.summary: list[str] = []
        self._config = self._summary = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        if "id" in attributes:
            self.ids.append(attributes["id"])
        if "data-sim" in attributes:
            self.sims.append(attributes)
        if "data-input" in attributes:
            self.controls.append(attributes["data-input"])
        self._config = tag == "script" and attributes.get("class") == "sim-config"
        if tag == "table" and attributes.get("class") == "sim-summary":
            self._summary = True
        if tag == "tr" and self._summary:
            self.summary.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._summary = False

    def handle_data(self, data: str) -> None:
        if self._config:
            self.configs.append(json.loads(data))
            self._config = False
        elif self._summary and self.summary:
            self.summary[-1] += data + "|"


def parse(html: str) -> Widgets:
    widgets = Widgets()
    widgets.feed(html)
    return widgets


def test_a_block_becomes_the_prerendered_widget() -> None:
    out = render_sim_blocks(page("module: batching"), SOURCE)
    assert "```" not in out
    assert out.startswith("# A page\n\nSome prose.\n")
    assert out.rstrip().endswith("More prose.")
    widgets = parse(out)
    assert widgets.sims == [{"class": "sim", "id": "sim-batching", "data-sim": "batching",
                             "data-key": "batching", "data-state": "prerendered"}]
    module = sims.load("batching")
    assert widgets.controls == [spec.name for spec in module.INPUTS]
    config = widgets.configs[0]
    assert config["start"] == {spec.name: spec.default for spec in module.INPUTS}
    assert config["files"] == ["__init__.py", "_runner.py", "batching.py", "charts.py",
                               "contract.py", "physics.py"]
    assert config["metrics"] == module.METRICS
    summary = module.simulate()["summary"]
    assert widgets.summary == [f"{module.METRICS[k]}|{display(v)}|" for k, v in summary.items()]


def test_charts_are_inline_svg_with_a_text_alternative() -> None:
    out = render_sim_blocks(page("module: batching"), SOURCE)
    svgs = re.findall(r"<svg\b.*?</svg>", out)
    charts = sims.load("batching").simulate()["charts"]
    assert len(svgs) == len(charts)
    for index, (svg, spec) in enumerate(zip(svgs, charts, strict=True)):
        base = f"sim-batching-chart{index}"
        assert f'role="img" aria-labelledby="{base}-title {base}-desc"' in svg
        assert f'<title id="{base}-title">{spec["title"]}</title>' in svg
        assert "\n" not in svg  # one raw HTML line for Markdown
        assert 'width="480"' not in svg or "viewBox" in svg


def test_show_and_start_choose_controls_and_starting_values() -> None:
    out = render_sim_blocks(page("module: batching\nshow: [batch_size]\nstart: {batch_size: 8}"),
                            SOURCE)
    widgets = parse(out)
    assert widgets.controls == ["batch_size"]
    assert widgets.configs[0]["start"]["batch_size"] == 8
    assert 'value="8"' in out
    expected = sims.load("batching").simulate(batch_size=8)["summary"]["static_steps"]
    assert any(row.endswith(f"|{expected}|") for row in widgets.summary)


def test_two_widgets_on_a_page_share_no_id() -> None:
    out = render_sim_blocks(page("module: batching", "module: batching\nstart: {seed: 3}"),
                            SOURCE)
    widgets = parse(out)
    assert [w["data-key"] for w in widgets.sims] == ["batching", "batching-2"]
    assert len(widgets.ids) == len(set(widgets.ids))


def test_other_fences_are_left_alone() -> None:
    text = (
        "````markdown\n```sim\nmodule: nosuchsim\n```\n````\n\n"
        "```python\nprint('```sim')\n```\n"
    )
    assert render_sim_blocks(text, SOURCE) == text
    assert modules_in(text) == set()


def test_modules_in_lists_the_embedded_sims() -> None:
    assert modules_in(page("module: batching", "module: roofline", "[broken")) == {
        "batching", "roofline"
    }


@pytest.mark.parametrize(
    ("body", "line", "field", "message"),
    [
        ("module: nosuchsim", 6, "sim.module", "no sim named 'nosuchsim'"),
        ("module: contract", 6, "sim.module", "no sim named 'contract'"),
        ("module: batching\ncolour: red", 7, "sim.colour", "unknown key"),
        ("module: batching\nshow: [batch_size, gpu]", 7, "sim.show", "'gpu' is not an input"),
        ("module: batching\nshow: batch_size", 7, "sim.show", "must be a list"),
        ("module: batching\nstart:\n  seed: 3\n  batch_size: 0", 9, "sim.start.batch_size",
         "batch_size: expected an integer from 1 to 32 slots, got 0"),
        ("module: batching\nstart: {gpu: h100}", 7, "sim.start.gpu", "not an input of this sim"),
        ("module: batching\nstart:\n  min_output_tokens: 500", 7,
         "sim.start.max_output_tokens", "expected at least the shortest answer"),
        ("module: [batching", 7, "sim", "not valid YAML"),  # where YAML notices
        ("- module: batching", 6, "sim", "must be a YAML mapping"),
    ],
)
def test_a_bad_block_is_a_content_error_with_file_and_line(
    body: str, line: int, field: str, message: str
) -> None:
    with pytest.raises(ContentErrors) as caught:
        render_sim_blocks(page(body), SOURCE)
    [error] = caught.value.errors
    assert (error.path, error.line, error.field) == (SOURCE, line, field)
    assert message in error.message


def test_every_bad_block_is_reported_at_once() -> None:
    text = page("module: nosuchsim", "module: batching", "module: batching\nstart: {seed: -1}")
    text += "\n  ```sim\n  module: batching\n  ```\n\n```sim\nmodule: batching\n"
    with pytest.raises(ContentErrors) as caught:
        render_sim_blocks(text, SOURCE)
    assert [(e.line, e.field) for e in caught.value.errors] == [
        (6, "sim.module"), (19, "sim.start.seed"), (24, "sim"), (28, "sim")
    ]
    assert "beginning of a line" in caught.value.errors[2].message
    assert "never closed" in caught.value.errors[3].message


def test_config_json_cannot_close_its_script_element() -> None:
    script = sim_embed._json_script({"text": "</script><script>alert(1)</script><!--"})
    assert script.count("</script>") == 1
    assert json.loads(script.split(">", 1)[1].rsplit("<", 1)[0]) == {
        "text": "</script><script>alert(1)</script><!--"
    }


def test_svg_is_rendered_once_per_spec(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    import vl_convert

    monkeypatch.setattr(sim_embed, "CACHE_DIR", tmp_path)
    calls = []
    real = vl_convert.vegalite_to_svg
    monkeypatch.setattr(vl_convert, "vegalite_to_svg",
                        lambda spec, **kw: calls.append(1) or real(spec, **kw))
    spec = sims.load("batching").simulate(requests=2)["charts"][1]
    first = sim_embed.chart_svg(spec, "a")
    second = sim_embed.chart_svg(spec, "b")
    assert len(calls) == 1
    assert re.sub(r'(["# (])a-', r"\1b-", first) == second
    assert list(tmp_path.glob("*.svg")) == [sim_embed.cache_path(sim_embed._fixed_width(spec))]


NUMBERS = [0, 1, -1, 12, 12.5, 0.1, 1 / 3, 6.326, 1e-7, 1.5e-6, 1e-6, 123456.0, 1e21, 1.5e21,
           2.5e-12, 100.0, 0.000123, -0.5, 9007199254740993.0, 3.14159e15, 6.02214e23]


def test_control_values_are_exactly_what_javascript_writes() -> None:
    done = subprocess.run(
        ["node", "-e", "const v = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
                       "process.stdout.write(JSON.stringify(v.map(String)))"],
        input=json.dumps(NUMBERS), capture_output=True, text=True, check=True,
    )
    assert [exact(n) for n in NUMBERS] == json.loads(done.stdout)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.00641628, "0.006416"), (3388.08, "3,388"), (1388314624, "1,388,314,624"),
        (49600.5, "49,601"), (2.74758, "2.748"), (1.0625, "1.063"), (0.5, "0.5"), (72.0, "72"),
        (0.99996, "1"), (9999.5, "10,000"), (0.000123, "0.000123"), (1.76311e-5, "1.763e-5"),
        (1e-7, "1e-7"), (1.5e21, "1.5e+21"), (-0.00123456, "-0.001235"), (0, "0"),
        (True, "yes"), (False, "no"), (None, ""), ("h100", "h100"),
    ],
)
def test_results_are_shown_readably(value: object, shown: str) -> None:
    assert display(value) == shown


def _cases() -> list[object]:
    """Numbers of every size and shape a sim returns: rounded to 6 significant digits as the
    contract does, raw doubles, integers, exact ties (1.0625), carries (0.99996) and edges."""
    rng = random.Random(8)
    numbers: list[object] = [*NUMBERS, 1.0625, 0.99995, 9999.5, 999999999999999.9, 1e15,
                             1e-4, 9.99995e-5, 0.00999951, 5e-324, 1.7976931348623157e308]
    for _ in range(1500):
        raw = rng.choice([-1, 1]) * 10 ** rng.uniform(-9, 18)
        numbers += [raw, float(f"{raw:.6g}"), float(f"{raw:.3g}"), round(raw)]
    return numbers + [True, False, None, "memory", ""]


def test_python_and_javascript_display_every_value_identically() -> None:
    """format.js (what the live widget writes) against display() (what the build wrote)."""
    script = (
        f"import {{ display }} from {json.dumps(FORMAT_JS.as_uri())};"
        "const values = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(values.map(display)));"
    )
    cases = _cases()
    done = subprocess.run(
        ["node", "--no-warnings", "--input-type=module", "-e",
         script.replace("require('fs')", "(await import('node:fs')).default")],
        input=json.dumps(cases), capture_output=True, text=True, check=True,
    )
    mismatches = [
        (value, python, javascript)
        for value, python, javascript in zip(cases, map(display, cases), json.loads(done.stdout),
                                             strict=True)
        if python != javascript
    ]
    assert mismatches == []
