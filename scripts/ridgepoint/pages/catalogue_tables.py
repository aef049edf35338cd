"""The catalogue page's comparison tables: every GPU side by side, then every model, sortable
(ridgepoint.pages.tables), each figure with a numbered link to its source listed below them.

A reader choosing hardware or a model compares a column at a glance, so each column has one
unit and every row the same figures; the per-item sections below the tables keep the whole
record. A GPU's figures are its file's (dense rates, as the file stores them, converted once
by ridgepoint.catalogue.units) and each cites its datasheet and row; its ridge points are the
sims' own (`Gpu.ridge`, as its section gives them) and cite the rate and the bandwidth they
divide. A model's figures are what the sims' physics derives from its config.json
(`shapes.Model`), and cite it. Each source is listed once per GPU or model and document, with
the rows of it the tables use. Also here: the anchors and citations the sections share.
"""

from __future__ import annotations

import math
from collections import Counter
from types import ModuleType
from typing import TYPE_CHECKING

from ridgepoint.base import urls
from ridgepoint.base.markup import esc, link
from ridgepoint.catalogue.units import GPU_FIGURES, ShownFigure, gpu_figures
from ridgepoint.content.catalogue_records import Citation, Gpu
from ridgepoint.content.model import Site
from ridgepoint.pages.common import heading, paragraph
from ridgepoint.pages.tables import Cell, Column, Row, reference, sortable_table

if TYPE_CHECKING:
    from sims import hardware, shapes

NONE = "–"  # a figure the record does not have (a GPU without FP4)


def anchor(kind: str, key: str) -> str:
    """The id of a GPU's, a profile's or a model's section on the page."""
    return urls.catalogue_entry(kind, key).partition("#")[2]


def cited(source: Citation, row: str = "") -> str:
    """A source by its title (linked where it has an address), then the row of it."""
    title = link(source.url, source.title) if source.url else esc(source.title)
    return f"{title}: {esc(row)}" if row else title


def attention(model: shapes.Model) -> str:
    """The kind of the model's attention, as the physics prices it."""
    if model.latent:
        return "latent"
    return "multi-head" if model.kv_heads == model.heads else "grouped-query"


def layer_pattern(model: shapes.Model) -> str:
    """The layers' attention kinds as the physics prices them, in the proportion they come
    in: "3 linear : 1 full", "5 sliding 1,024 : 1 full", each kind's count where there is
    no common factor, "all sparse top 2,048"; empty when every layer attends to every token."""
    counts = Counter(_kind(kind) for kind in model.kinds)
    if set(counts) == {"full"}:
        return ""
    if len(counts) == 1:
        return f"all {next(iter(counts))}"
    common = math.gcd(*counts.values())
    named = sorted(counts.items(), key=lambda item: (item[0] == "full", -item[1], item[0]))
    if common > 1:
        return " : ".join(f"{count // common} {kind}" for kind, count in named)
    return ", ".join(f"{count} {kind}" for kind, count in named)


def _kind(kind: shapes.LayerKind) -> str:
    """One layer's attention in a few words: its kind and the figures that set its reach."""
    if kind.attention == "compressed":
        top = f" (top {kind.topk:,})" if kind.topk else ""
        return f"compressed {kind.ratio}:1{top} + window {kind.window:,}"
    if kind.attention in ("sliding", "chunked"):
        return f"{kind.attention} {kind.window:,}"
    if kind.attention == "sparse":
        return f"sparse top {kind.topk:,}"
    return kind.attention


def _number(value: float) -> str:
    """A figure in its column's unit: thousands separated, up to three decimals, no trailing
    zeros (2,614.9 TFLOP/s, 2.039 TB/s, 80 GB)."""
    return f"{value:,.3f}".rstrip("0").rstrip(".")


class _Sources:
    """The tables' sources, numbered in the order the cells first cite them."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[str, list[str]]] = {}  # id -> (title, details)

    def cite(self, entry: str, title: str, detail: str = "") -> str:
        """A numbered link to the entry `entry`, made with `title` (HTML) when first cited;
        the entry lists `detail` (HTML: the row of the source a figure comes from) once."""
        details = self._entries.setdefault(entry, (title, []))[1]
        if detail and detail not in details:
            details.append(detail)
        return reference(list(self._entries).index(entry) + 1, entry)

    def html(self) -> str:
        items = "".join(
            f'<li id="{esc(entry)}"><p>{title}</p>'
            + (f"<ul>{''.join(f'<li>{detail}</li>' for detail in details)}</ul>" if details
               else "") + "</li>"
            for entry, (title, details) in self._entries.items())
        return f'<ol class="rp-sources">{items}</ol>'


def _cell(text: str, key: float | None, references: list[str]) -> Cell:
    """A figure with its references, each once."""
    return Cell(" ".join((esc(text), *dict.fromkeys(references))), key)


def _gpu_row(entry: Gpu, gpu: hardware.Gpu, formats: ModuleType, sources: _Sources) -> Row:
    labels = {label: place for label, place, _ in GPU_FIGURES}
    shown = {labels[figure.label]: figure for figure in gpu_figures(entry)}

    def cite(figure: ShownFigure) -> str:
        key = next(key for key, source in entry.sources.items() if source == figure.source)
        return sources.cite(f"source-{anchor('gpu', entry.slug)}-{key}",
                            f"{esc(entry.name)}: {cited(figure.source)}",
                            esc(f"{figure.label}: {figure.row}"))

    def figure(place: tuple[str, str], scale: float) -> Cell:
        found = shown.get(place)
        if found is None:
            return Cell(NONE)
        return _cell(_number(found.value / scale), found.value, [cite(found)])

    # In the columns' order, so the source's rows are listed in the order the cells cite them.
    figures = [*(figure(("dense_flops", fmt), 1e12) for fmt in formats.PRECISIONS),
               figure(("memory", "capacity"), 1e9), figure(("memory", "bandwidth"), 1e12),
               figure(("scale_up", "gpus"), 1)]
    bandwidth = shown[("memory", "bandwidth")]
    ridges = [
        _cell(f"{gpu.ridge(fmt):,.0f}", gpu.ridge(fmt),
              [cite(shown[("dense_flops", fmt)]), cite(bandwidth)])
        if ("dense_flops", fmt) in shown else Cell(NONE)
        for fmt in formats.PRECISIONS]
    name = entry.name + (" (announced)" if entry.announced else "")  # not shipping yet
    return Row((Cell(link(f"#{anchor('gpu', entry.slug)}", name), entry.name),
                *figures, *ridges))


def gpu_table(site: Site, gpus: dict[str, hardware.Gpu], formats: ModuleType,
              sources: _Sources) -> str:
    """Every GPU, one row each in key order. `formats`: sims.physics.precision."""
    labels = [formats.LABELS[fmt] for fmt in formats.PRECISIONS]
    columns = (Column("GPU", names_rows=True),
               *(Column(f"Dense {label} (TFLOP/s)", numeric=True) for label in labels),
               Column("Memory (GB)", numeric=True), Column("Bandwidth (TB/s)", numeric=True),
               Column("Scale-up domain (GPUs)", numeric=True),
               *(Column(f"Ridge point {label} (FLOP/byte)", numeric=True) for label in labels))
    rows = [_gpu_row(site.gpus[key], gpus[key], formats, sources) for key in sorted(gpus)]
    return sortable_table(columns, rows, caption="GPUs")


def model_table(site: Site, models: dict[str, shapes.Model], sources: _Sources) -> str:
    """Every model, one row each in key order: what the physics derives from its config."""
    columns = (Column("Model", names_rows=True), Column("Parameters (billions)", numeric=True),
               Column("Active per token (billions)", numeric=True),
               Column("Layers", numeric=True), Column("Attention"),
               Column("KV per token, BF16 (bytes)", numeric=True),
               Column("Experts", numeric=True), Column("Experts per token", numeric=True))
    rows = []
    for key in sorted(models):
        entry, model = site.models[key], models[key]
        section = anchor("model", key)
        ref = sources.cite(f"source-{section}", (
            f"{esc(entry.name)}: {cited(entry.config_json)}; every figure of its row follows "
            f"from the fields listed under {link(f'#{section}', entry.name)}"))
        kv = model.kv_bytes_per_token("bf16")
        shared = f" + {model.shared_experts} shared" if model.shared_experts else ""
        pattern = layer_pattern(model)
        window = f": {pattern}" if pattern else ""
        rows.append(Row((
            Cell(link(f"#{section}", entry.name), entry.name),
            _cell(f"{model.params / 1e9:,.2f}", model.params, [ref]),
            _cell(f"{model.params_active / 1e9:,.2f}", model.params_active, [ref]),
            _cell(str(model.layers), model.layers, [ref]),
            Cell(f"{esc(attention(model) + window)} {ref}", attention(model) + window),
            _cell(f"{kv:,.0f}", kv, [ref]),
            _cell(f"{model.experts}{shared}", model.experts, [ref]) if model.experts
            else Cell(NONE, 0),
            _cell(str(model.experts_per_token), model.experts_per_token, [ref])
            if model.experts else Cell(NONE, 0))))
    return sortable_table(columns, rows, caption="Models")


def comparison(site: Site, gpus: dict[str, hardware.Gpu], models: dict[str, shapes.Model],
               formats: ModuleType) -> list[str]:
    """The section: a note, both tables and their sources. `gpus`, `models`: the sims'
    records of the catalogue; `formats`: sims.physics.precision."""
    sources = _Sources()
    tables = [gpu_table(site, gpus, formats, sources), model_table(site, models, sources)]
    note = ("Every GPU and every model in one table each. Press a heading to sort the rows by "
            "its column; each figure's number links to its source, listed below the tables. "
            "Rates are dense; a ridge point is the GPU's peak rate over its memory bandwidth; "
            "a model's figures are what the physics derives from its config.json. Each GPU "
            "and model has a section of its own further down.")
    return [heading(2, "Side by side", "side-by-side"), paragraph(esc(note), "rp-note"),
            *tables, heading(3, "Sources of the tables", "table-sources"), sources.html()]
