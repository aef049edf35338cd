"""The catalogue's comparison tables and the sortable table component they share with the
calibration page (ridgepoint.pages.tables, ridgepoint.pages.catalogue_tables).

Every figure is checked against the catalogue records, converted here on their own
(ridgepoint.catalogue.quantities) or priced by the sims' physics for what only the physics
derives (a model's parameter counts and KV bytes), never against numbers typed into the test:
one row per GPU and per model, each cell's shown value and sort key equal to the record's,
each figure linked to a listed source that names the document and its row, numeric sort keys
on every numeric column of both pages, and text from YAML escaped.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

import pytest

from ridgepoint.base.markup import esc
from ridgepoint.catalogue import quantities
from ridgepoint.catalogue.units import sims_data
from ridgepoint.content.catalogue_records import Citation
from ridgepoint.content.kinds import KINDS
from ridgepoint.content.load import load_site
from ridgepoint.content.model import Site
from ridgepoint.pages.calibration import calibration_page
from ridgepoint.pages.catalogue import catalogue_page
from ridgepoint.pages.tables import Cell, Column, Row, sortable_table
from tests.pipeline.conftest import SAMPLE
from tests.repo import LAYOUT, sims_code

FORMATS = ("bf16", "fp8", "fp4")
HOSTILE = '<script>alert(1)</script> & "quoted"'


@dataclass
class Shown:
    """A cell as the page gives it: its tag, attributes, text and the links in it."""

    tag: str
    attrs: dict[str, str]
    text: str = ""
    hrefs: list[str] = field(default_factory=list)

    @property
    def figure(self) -> str:
        """The text without its source references ("989 [1]" -> "989")."""
        return re.sub(r"\s*\[\d+\]", "", self.text).strip()


@dataclass
class Table:
    attrs: dict[str, str]
    caption: str = ""
    head: list[Shown] = field(default_factory=list)
    rows: list[list[Shown]] = field(default_factory=list)
    row_attrs: list[dict[str, str]] = field(default_factory=list)

    def column(self, label: str) -> list[Shown]:
        index = [cell.text for cell in self.head].index(label)
        return [row[index] for row in self.rows]


class Tables(HTMLParser):
    """Every table of a page (its head apart from its rows), and the text of every list item
    with an id (the sources' entries)."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[Table] = []
        self.items: dict[str, str] = {}  # <li id> -> its text
        self._cell: Shown | None = None
        self._caption = self._head = False
        self._items: list[str] = []  # ids of the open <li>s with one
        self.feed(markup)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {key: value or "" for key, value in attrs}
        if tag == "table":
            self.tables.append(Table(values))
        elif tag in ("caption", "thead"):
            setattr(self, f"_{'caption' if tag == 'caption' else 'head'}", True)
        elif tag == "tr" and self.tables and not self._head:
            self.tables[-1].row_attrs.append(values)
            self.tables[-1].rows.append([])
        elif tag in ("td", "th") and self.tables:
            self._cell = Shown(tag, values)
        elif tag == "a" and self._cell is not None:
            self._cell.hrefs.append(values.get("href", ""))
        elif tag == "li":
            self._items.append(values.get("id", ""))
            if values.get("id"):
                self.items[values["id"]] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag in ("caption", "thead"):
            setattr(self, f"_{'caption' if tag == 'caption' else 'head'}", False)
        elif tag in ("td", "th") and self._cell is not None:
            table = self.tables[-1]
            (table.head if self._head else table.rows[-1]).append(self._cell)
            self._cell = None
        elif tag == "li" and self._items:
            self._items.pop()

    def handle_data(self, data: str) -> None:
        if self._caption:
            self.tables[-1].caption += data
        if self._cell is not None:
            self._cell.text = " ".join(f"{self._cell.text} {data}".split())
        for item in self._items:
            if item:
                self.items[item] = " ".join(f"{self.items[item]} {data}".split())


@functools.cache
def real() -> Site:
    catalogue = [kind for kind in KINDS if kind.folder.startswith("content/catalogue/")]
    return load_site(LAYOUT.root, kinds=catalogue)


@functools.cache
def page() -> Tables:
    return Tables(catalogue_page(real(), sims_code()))


def table(caption: str) -> Table:
    found = [table for table in page().tables if table.caption == caption]
    assert len(found) == 1, caption
    return found[0]


@functools.cache
def physics() -> tuple[dict[str, Any], dict[str, Any]]:
    """The sims' GPUs and models of the real catalogue, as the page's physics builds them."""
    code = sims_code()
    gpus, models, kernels = sims_data(real())
    with code.active():
        profiles = code.module("physics.profile").build_profiles(kernels)
        return (code.module("physics.hardware").build_gpus(gpus, profiles),
                code.module("physics.shapes").build_models(models))


def number(text: str) -> float:
    return float(text.replace(",", ""))


def sources_of(cell: Shown) -> list[str]:
    """The source entries a cell's references reach (each must be listed on the page)."""
    entries = [href.removeprefix("#") for href in cell.hrefs if re.fullmatch(r"#source-.+", href)]
    for entry in entries:
        assert entry in page().items, f"{cell.text}: no source entry {entry}"
    return entries


def test_every_gpu_and_every_model_has_one_row_linking_to_its_section() -> None:
    gpus, models = table("GPUs"), table("Models")
    assert [row[0].text for row in gpus.rows] == [  # an announced GPU is labelled so
        real().gpus[k].name + (" (announced)" if real().gpus[k].announced else "")
        for k in sorted(real().gpus)]
    assert [row[0].text for row in models.rows] == [
        real().models[k].name for k in sorted(real().models)]
    for kind, rows, keys in (("gpu", gpus.rows, sorted(real().gpus)),
                             ("model", models.rows, sorted(real().models))):
        for row, key in zip(rows, keys, strict=True):
            assert row[0].tag == "th" and row[0].attrs["scope"] == "row"
            assert row[0].hrefs == [f"#{kind}-{key.replace('.', '-')}"]


# (column, record section and field, kind of quantity, the column's unit in base units)
GPU_COLUMNS = [
    *((f"Dense {fmt.upper()} (TFLOP/s)", ("dense_flops", fmt), "flops", 1e12) for fmt in FORMATS),
    ("Memory (GB)", ("memory", "capacity"), "bytes", 1e9),
    ("Bandwidth (TB/s)", ("memory", "bandwidth"), "bytes_per_s", 1e12),
    ("Scale-up domain (GPUs)", ("scale_up", "gpus"), "count", 1),
]


def _record(key: str, place: tuple[str, str]) -> Any:
    """The GPU record's figure at `place`, or None where the file has none."""
    return getattr(getattr(real().gpus[key], place[0]), place[1])


def _value(figure: Any, kind: str) -> float:
    return float(figure.value) if kind == "count" else quantities.parse(figure.value, kind)


@pytest.mark.parametrize(("label", "place", "kind", "unit"), GPU_COLUMNS)
def test_each_gpu_figure_is_its_records_with_its_datasheet_row_one_click_away(
    label: str, place: tuple[str, str], kind: str, unit: float
) -> None:
    for key, cell in zip(sorted(real().gpus), table("GPUs").column(label), strict=True):
        gpu, figure = real().gpus[key], _record(key, place)
        if figure is None:
            assert (cell.figure, cell.attrs["data-sort"], cell.hrefs) == ("–", "", [])
            continue
        value = _value(figure, kind)
        assert float(cell.attrs["data-sort"]) == pytest.approx(value, rel=1e-12), (key, label)
        assert number(cell.figure) == pytest.approx(value / unit, abs=5e-4), (key, label)
        [entry] = sources_of(cell)
        source = gpu.sources[figure.source]
        assert page().items[entry].startswith(f"{gpu.name}: {source.title}")
        assert figure.row in page().items[entry], (key, label)
        if source.url:
            assert (f'<li id="{entry}"><p>{esc(gpu.name)}: <a href="{esc(source.url)}">'
                    in catalogue_page_html())


@functools.cache
def catalogue_page_html() -> str:
    return catalogue_page(real(), sims_code())


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_ridge_point_is_the_records_rate_over_bandwidth_citing_both(fmt: str) -> None:
    gpus, _ = physics()
    column = table("GPUs").column(f"Ridge point {fmt.upper()} (FLOP/byte)")
    for key, cell in zip(sorted(real().gpus), column, strict=True):
        rate = _record(key, ("dense_flops", fmt))
        if rate is None:
            assert (cell.figure, cell.attrs["data-sort"]) == ("–", "")
            continue
        bandwidth = _record(key, ("memory", "bandwidth"))
        ridge = quantities.parse(rate.value, "flops") / quantities.parse(bandwidth.value,
                                                                        "bytes_per_s")
        assert ridge == pytest.approx(gpus[key].ridge(fmt))  # the sims' own, as the page's
        assert float(cell.attrs["data-sort"]) == pytest.approx(ridge)
        assert number(cell.figure) == round(ridge)
        cited = " ".join(page().items[entry] for entry in sources_of(cell))
        assert rate.row in cited and bandwidth.row in cited, key


def test_each_model_figure_is_what_the_physics_derives_from_its_config_citing_it() -> None:
    _, models = physics()
    shown = table("Models")
    for index, key in enumerate(sorted(real().models)):
        entry, model = real().models[key], models[key]
        cells = dict(zip((cell.text for cell in shown.head), shown.rows[index], strict=True))
        expected = {
            "Parameters (billions)": (model.params, model.params / 1e9),
            "Active per token (billions)": (model.params_active, model.params_active / 1e9),
            "Layers": (entry.config.num_hidden_layers, entry.config.num_hidden_layers),
            "KV per token, BF16 (bytes)": (model.kv_bytes_per_token("bf16"),
                                           model.kv_bytes_per_token("bf16")),
            "Experts": (model.experts, model.experts),
            "Experts per token": (model.experts_per_token, model.experts_per_token),
        }
        for label, (key_value, figure) in expected.items():
            cell = cells[label]
            assert float(cell.attrs["data-sort"]) == pytest.approx(key_value), (key, label)
            if label.startswith("Experts") and not model.experts:
                assert cell.figure == "–"
                continue
            assert number(cell.figure.split(" + ")[0]) == pytest.approx(figure, abs=5e-3)
            [source] = sources_of(cell)
            assert page().items[source].startswith(f"{entry.name}: {entry.config_json.title}")
        kind = cells["Attention"].figure
        assert kind.startswith("latent" if model.latent else "multi-head"
                               if model.kv_heads == model.heads else "grouped-query")
        assert sources_of(cells["Attention"]) == [f"source-model-{key.replace('.', '-')}"]
        assert (": " in kind) == any(layer.attention != "full" for layer in model.kinds), key


def test_the_attention_column_gives_the_layers_kinds_in_proportion() -> None:
    rows = {row[0].text: row[4].figure for row in table("Models").rows}
    assert rows["Qwen3.5-397B-A17B"] == "grouped-query: 3 linear : 1 full"
    assert rows["Gemma 4 26B A4B"] == "grouped-query: 5 sliding 1,024 : 1 full"
    assert rows["Llama 4 Scout"] == "grouped-query: 3 chunked 8,192 : 1 full"
    assert rows["DeepSeek-V3.2"] == "latent: all sparse top 2,048"
    assert rows["DeepSeek-V4-Flash"].startswith("grouped-query: 21 compressed 4:1 (top 512)")
    assert rows["Llama 3.1 8B"] == "grouped-query"


def test_the_sources_are_numbered_in_the_order_the_tables_first_cite_them() -> None:
    cited = [href.removeprefix("#") for table in (table("GPUs"), table("Models"))
             for row in table.rows for cell in row for href in cell.hrefs
             if href.startswith("#source-")]
    order = list(dict.fromkeys(cited))
    assert order == [entry for entry in page().items if entry.startswith("source-")]
    html = catalogue_page_html()
    for number_, entry in enumerate(order, 1):
        assert f'<a href="#{entry}">[{number_}]</a>' in html


@functools.cache
def sample_pages() -> dict[str, Tables]:
    site = load_site(SAMPLE)
    return {"catalogue": Tables(catalogue_page(site, sims_code())),
            "calibration": Tables(calibration_page(site, sims_code(), None)),
            "real catalogue": page()}


@pytest.mark.parametrize("name", ["catalogue", "calibration", "real catalogue"])
def test_numeric_columns_sort_by_numbers_and_text_columns_by_text(name: str) -> None:
    tables = [table for table in sample_pages()[name].tables if "data-rp-sortable" in table.attrs]
    assert tables, name
    for shown in tables:
        for index, heading in enumerate(shown.head):
            numeric = heading.attrs.get("data-sort-type") == "number"
            for row in shown.rows:
                cell = row[index]
                if not numeric:
                    assert "data-sort-type" not in heading.attrs
                    continue
                assert "rp-align-right" in cell.attrs["class"]
                if cell.attrs["data-sort"] == "":
                    assert cell.figure == "–", (heading.text, cell.text)
                else:
                    float(cell.attrs["data-sort"])  # a number, in full


def test_the_component_writes_keys_attributes_and_captions_escaped() -> None:
    columns = (Column("Name <1>", names_rows=True), Column("Size", numeric=True))
    markup = sortable_table(columns, [
        Row((Cell(esc(HOSTILE), HOSTILE), Cell("1.5", 1.5)), (("id", 'x"y'),)),
        Row((Cell("b"), Cell("–"))),
    ], caption=HOSTILE, css="rp-extra")
    assert markup.startswith('<div class="rp-table rp-extra"><table data-rp-sortable>')
    assert f"<caption>{esc(HOSTILE)}</caption>" in markup
    assert '<th scope="col">Name &lt;1&gt;</th>' in markup
    assert ('<th scope="col" class="rp-align-right" data-sort-type="number">Size</th>'
            in markup)
    assert f'<tr id="x&quot;y"><th scope="row" data-sort="{esc(HOSTILE)}">' in markup
    assert '<td class="rp-align-right" data-sort="1.5">1.5</td>' in markup
    assert '<tr><th scope="row">b</th><td class="rp-align-right" data-sort="">–</td>' in markup
    assert "<script>" not in markup
    with pytest.raises(AssertionError):
        sortable_table(columns, [Row((Cell("only one"),))])


def test_names_titles_and_rows_from_yaml_are_escaped_in_the_tables() -> None:
    site = real()
    gpu_key, model_key = sorted(site.gpus)[0], sorted(site.models)[0]
    gpu, model = site.gpus[gpu_key], site.models[model_key]
    bandwidth = dataclasses.replace(gpu.memory.bandwidth, row=f"Row {HOSTILE}")
    hostile = dataclasses.replace(
        site,
        gpus={**site.gpus, gpu_key: dataclasses.replace(
            gpu, name=f"GPU {HOSTILE}",
            sources={**gpu.sources, bandwidth.source: Citation(
                f"Title {HOSTILE}", "https://example.org/?a=1&b=<x>")},
            memory=dataclasses.replace(gpu.memory, bandwidth=bandwidth))},
        models={**site.models, model_key: dataclasses.replace(
            model, name=f"Model {HOSTILE}",
            config_json=Citation(f"Config {HOSTILE}", model.config_json.url))})
    shown = catalogue_page(hostile, sims_code())
    assert not re.search(r"<script\b", shown, re.IGNORECASE)
    comparison = shown.split("{#side-by-side}", 1)[1].split("\n## ", 1)[0]
    for where in ("GPU ", "Model ", "Title ", "Config ", "Row "):
        assert f"{where}{esc(HOSTILE)}" in comparison, where
    assert 'href="https://example.org/?a=1&amp;b=&lt;x&gt;"' in comparison
