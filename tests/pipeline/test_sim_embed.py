"""```sim blocks: replaced by the prerendered widget, or refused with file and line."""

from __future__ import annotations

import html
import json
from html.parser import HTMLParser

import pytest

import sims
from ridgepoint.base import urls
from ridgepoint.base.errors import ContentErrors
from ridgepoint.sims import widget
from ridgepoint.sims.blocks import modules_in
from ridgepoint.sims.display import display
from ridgepoint.sims.embed import render_sim_blocks
from ridgepoint.sims.simrun import SimRuns
from sims.physics.model_choice import read
from tests.repo import LAYOUT

RUNS = SimRuns.of(LAYOUT)

SOURCE = "content/articles/example.md"


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
    out = render_sim_blocks(page("module: batching"), SOURCE, RUNS, LAYOUT.charts)
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
    assert config["files"] == [
        "__init__.py", "batching.py", "batching_charts.py", "kit/__init__.py", "kit/charts.py",
        "kit/contract.py", "kit/phased.py", "kit/progress.py", "kit/rounding.py", "kit/runner.py",
        "physics/__init__.py",
        "physics/accuracy.py", "physics/attention_weights.py", "physics/cache.py",
        "physics/catalogue_data.py", "physics/collectives.py", "physics/families.py",
        "physics/fits.py", "physics/hardware.py", "physics/kernels.py", "physics/kinds.py",
        "physics/layers.py", "physics/model_choice.py", "physics/model_config.py",
        "physics/precision.py", "physics/pricing.py", "physics/profile.py", "physics/reach.py",
        "physics/reads.py", "physics/shapes.py", "physics/step.py"]
    assert config["metrics"] == module.METRICS
    summary = module.simulate()["summary"]
    assert widgets.summary == [f"{module.METRICS[k]}|{display(v)}|" for k, v in summary.items()]


def test_show_and_start_choose_controls_and_starting_values() -> None:
    out = render_sim_blocks(page("module: batching\nshow: [batch_size]\nstart: {batch_size: 8}"),
                            SOURCE, RUNS, LAYOUT.charts)
    widgets = parse(out)
    assert widgets.controls == ["batch_size"]
    assert widgets.configs[0]["start"]["batch_size"] == 8
    assert 'value="8"' in out
    expected = sims.load("batching").simulate(batch_size=8)["summary"]["static_steps"]
    assert any(row.endswith(f"|{expected}|") for row in widgets.summary)


def test_first_inputs_come_first_and_the_rest_under_more_inputs() -> None:
    out = render_sim_blocks(page("module: batching\nshow: [seed, batch_size, requests]\n"
                                 "first: [requests, batch_size]"), SOURCE, RUNS, LAYOUT.charts)
    widgets = parse(out)
    # In `show`'s order: the first ones, then the others inside the disclosure.
    assert widgets.controls == ["batch_size", "requests", "seed"]
    assert widgets.configs[0]["first"] == ["batch_size", "requests"]
    more = out.index('<details class="sim-more" data-sim-part="more">')
    assert out.index('data-input="requests"') < more < out.index('data-input="seed"')
    assert "<summary>More inputs (1)</summary>" in out


def test_without_first_every_control_is_in_the_open() -> None:
    for body in ("module: batching", "module: batching\nshow: [seed]\nfirst: [seed]"):
        out = render_sim_blocks(page(body), SOURCE, RUNS, LAYOUT.charts)
        assert "sim-more" not in out
        assert parse(out).configs[0]["first"] == []


def test_two_widgets_on_a_page_share_no_id() -> None:
    out = render_sim_blocks(page("module: batching", "module: batching\nstart: {seed: 3}"),
                            SOURCE, RUNS, LAYOUT.charts)
    widgets = parse(out)
    assert [w["data-key"] for w in widgets.sims] == ["batching", "batching-2"]
    assert len(widgets.ids) == len(set(widgets.ids))


def test_other_fences_are_left_alone() -> None:
    text = (
        "````markdown\n```sim\nmodule: nosuchsim\n```\n````\n\n"
        "```python\nprint('```sim')\n```\n"
    )
    assert render_sim_blocks(text, SOURCE, RUNS, LAYOUT.charts) == text
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
        ("module: Roofline", 6, "sim.module", "no sim named 'Roofline'; did you mean 'roofline'?"),
        ("module: chunked-prefil", 6, "sim.module",
         "no sim named 'chunked-prefil'; did you mean 'chunked_prefill'?"),
        ("module: batching\ncolour: red", 7, "sim.colour", "unknown key"),
        ("module: batching\nshow: [batch_size, tp]", 7, "sim.show", "'tp' is not an input"),
        ("module: batching\nshow: batch_size", 7, "sim.show", "must be a list"),
        ("module: batching\nfirst: [batch_siz]", 7, "sim.first",
         "'batch_siz' is not an input of batching; did you mean 'batch_size'?"),
        ("module: batching\nshow: [batch_size]\nfirst: [seed]", 8, "sim.first",
         "'seed' has no control: it is not in show"),
        ("module: batching\nfirst: seed", 7, "sim.first", "must be a list"),
        ("module: batching\nstart:\n  seed: 3\n  batch_size: 0", 9, "sim.start.batch_size",
         "batch_size: expected an integer from 1 to 32 slots, got 0"),
        ("module: batching\nstart: {tp: 2}", 7, "sim.start.tp", "not an input of this sim"),
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
        render_sim_blocks(page(body), SOURCE, RUNS, LAYOUT.charts)
    [error] = caught.value.errors
    assert (error.path, error.line, error.field) == (SOURCE, line, field)
    assert message in error.message


def test_every_bad_block_is_reported_at_once() -> None:
    text = page("module: nosuchsim", "module: batching", "module: batching\nstart: {seed: -1}")
    text += "\n  ```sim\n  module: batching\n  ```\n\n```sim\nmodule: batching\n"
    with pytest.raises(ContentErrors) as caught:
        render_sim_blocks(text, SOURCE, RUNS, LAYOUT.charts)
    assert [(e.line, e.field) for e in caught.value.errors] == [
        (6, "sim.module"), (19, "sim.start.seed"), (24, "sim"), (28, "sim")
    ]
    assert "beginning of a line" in caught.value.errors[2].message
    assert "never closed" in caught.value.errors[3].message


def test_config_json_cannot_close_its_script_element() -> None:
    script = widget._json_script({"text": "</script><script>alert(1)</script><!--"})
    assert script.count("</script>") == 1
    assert json.loads(script.split(">", 1)[1].rsplit("<", 1)[0]) == {
        "text": "</script><script>alert(1)</script><!--"
    }


def test_gpu_and_model_controls_link_to_their_catalogue_sections() -> None:
    """Every GPU and model choice is described on the catalogue page; the widget says where,
    with a page-relative link, and leaves other controls alone."""
    links = urls.catalogue_links(urls.explainer("batching"))
    assert links == {"gpu": "../../catalogue/#gpus", "model": "../../catalogue/#models"}
    out = render_sim_blocks(page("module: batching\nshow: [batch_size, gpu, model]"), SOURCE,
                            RUNS, LAYOUT.charts, links=links)
    for name, text in (("gpu", "Every GPU's figures and sources"),
                       ("model", "Every model's shape")):
        assert f'<a href="{links[name]}">{html.escape(text)}</a>' in out
    assert out.count('class="sim-help sim-catalogue"') == 2  # batch_size gets none
    assert "sim-catalogue" not in render_sim_blocks(page("module: batching"), SOURCE, RUNS,
                                                    LAYOUT.charts)


def test_the_pasted_config_follows_the_model_control_hidden_until_custom() -> None:
    """A page's show: and first: need not name model_config: it comes right after model,
    written hidden (the script shows it when the model is custom), and the select names the
    option that opens it."""
    out = render_sim_blocks(page("module: quantization\nshow: [weights, model, gpu]\n"
                                 "first: [model]"), SOURCE, RUNS, LAYOUT.charts)
    widgets = parse(out)
    assert widgets.controls == ["model", "model_config", "weights", "gpu"]
    config = widgets.configs[0]
    assert config["show"] == ["weights", "model", "model_config", "gpu"]
    assert config["first"] == ["model", "model_config"]
    assert ('<div class="sim-control" data-sim-part="control" data-input="model_config" hidden>'
            in out)
    assert '<option value="custom">custom: Paste a config.json…</option>' in out
    assert '<textarea id="sim-quantization-model_config"' in out
    pasted = read((LAYOUT.root / "tests/pipeline/fixtures/configs/llama-3.1-70b.json")
                  .read_text(encoding="utf-8"))[0]
    opened = render_sim_blocks(page("module: quantization\nstart: {model: custom, "
                                    f"model_config: {json.dumps(pasted)}}}"),
                               SOURCE, RUNS, LAYOUT.charts)
    assert 'data-input="model_config">' in opened  # shown: the page starts at a paste
