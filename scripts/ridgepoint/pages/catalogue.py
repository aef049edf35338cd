"""The catalogue page `catalogue/`: every GPU and model, its figures, their sources, and what
the physics derives from them, each under its own anchor (`urls.catalogue_entry`).

The figures are the YAML's, as loaded (ridgepoint.catalogue.units); the derived ones (ridge points,
fitted all-reduce, parameter counts, KV bytes per token) come from the sims' own physics run
on the same records, so the page shows exactly what every sim uses. Ends with the physics
calculator (sims/calculator.py) as a live widget.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

from ridgepoint.base import urls
from ridgepoint.base.markup import count, esc, link
from ridgepoint.catalogue.units import (
    collectives_note,
    config_fields,
    gpu_figures,
    published_params,
    sims_data,
)
from ridgepoint.content.catalogue_records import Citation, Gpu, LanguageModel
from ridgepoint.content.model import Site
from ridgepoint.pages.common import heading, page, paragraph
from ridgepoint.sims.simcode import SimCode

if TYPE_CHECKING:
    from sims import hardware, shapes

CALCULATOR = "```sim\nmodule: calculator\n```"


def catalogue_page(site: Site, code: SimCode) -> str:
    """GPUs, then models, then the calculator; derived by `code`, the sims as read."""
    gpu_data, model_data = sims_data(site)
    efficiency, precision = code.module("hardware"), code.module("precision")
    with code.active():
        gpus = efficiency.build_gpus(gpu_data)
        models = code.module("shapes").build_models(model_data)
    lede = (
        f"{count(len(gpus), 'GPU', 'GPUs')} and {count(len(models), 'model', 'models')}: "
        "every figure the sims use, with the datasheet row or config.json field it comes "
        "from, and what the shared physics derives from it."
    )
    note = (
        f"Rates are dense: a datasheet rate quoted with sparsity is halved, and its row says "
        f"so. Ridge points are given twice: the GPU's own (peak rate over peak bandwidth) and "
        f"at the efficiencies every sim assumes ({efficiency.COMPUTE_EFFICIENCY:.0%} of the "
        f"peak rate, {efficiency.MEMORY_EFFICIENCY:.0%} of the peak bandwidth). Adding a GPU "
        f"or a model is one YAML file in content/catalogue/; the calibration page shows how "
        f"close the physics comes to measured kernels and steps."
    )
    blocks = [paragraph(esc(lede), "rp-lede"), paragraph(esc(note), "rp-note"),
              heading(2, "GPUs", "gpus")]
    for key in sorted(gpus):
        blocks += _gpu(site.gpus[key], gpus[key], efficiency, precision)
    blocks.append(heading(2, "Models", "models"))
    for key in sorted(models):
        blocks += _model(site.models[key], models[key], precision)
    blocks += [heading(2, "The calculator", "calculator"), paragraph(esc(
        "One step on one deployment, priced by the same physics, here and from the command "
        "line (python -m sims step ...)."), "rp-note"), CALCULATOR]
    return page("The catalogue: GPUs and models", *blocks,
                description="Every GPU and model the sims use, each figure with its source.")


def _anchor(kind: str, key: str) -> str:
    return urls.catalogue_entry(kind, key).partition("#")[2]


def _source(source: Citation, row: str = "") -> str:
    title = link(source.url, source.title) if source.url else esc(source.title)
    return f"{title}: {esc(row)}" if row else title


def _table(head: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """A table of already escaped cells."""
    cells = "".join(f"<th>{esc(cell)}</th>" for cell in head)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return (f'<table class="rp-catalogue"><thead><tr>{cells}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _gpu(entry: Gpu, gpu: hardware.Gpu, efficiency: ModuleType, formats: ModuleType
         ) -> list[str]:
    """`efficiency`: sims.hardware (its assumed efficiencies); `formats`: sims.precision."""
    rows = [(esc(f.label), esc(f.written), _source(f.source, f.row)) for f in gpu_figures(entry)]
    bandwidth = gpu.hbm_bytes_per_s / 1e12
    for precision in formats.PRECISIONS:
        if precision not in gpu.dense_flops:
            continue
        label = formats.LABELS[precision]
        how = f"{gpu.flops(precision) / 1e12:,.0f} TFLOP/s over {bandwidth:.2f} TB/s"
        rows.append((esc(f"Ridge point, {label}, at peak"),
                     esc(f"{gpu.ridge(precision):,.0f} FLOP/byte"), esc(f"derived: {how}")))
        rows.append((esc(f"Ridge point, {label}, at the assumed efficiencies"),
                     esc(f"{gpu.ridge(precision, efficient=True):,.0f} FLOP/byte"),
                     esc(f"derived: {efficiency.COMPUTE_EFFICIENCY:.0%} of the rate, "
                         f"{efficiency.MEMORY_EFFICIENCY:.0%} of the bandwidth")))
    fitted = [group for group in (2, 4, 8) if group in gpu.collectives.fits]
    for group in fitted:
        fit = gpu.collectives.fits[group]
        rows.append((esc(f"All-reduce over {group} GPUs"),
                     esc(f"{fit.latency_s * 1e6:.1f} µs + message / "
                         f"{fit.bytes_per_s / 1e9:.0f} GB/s"),
                     esc(collectives_note(entry) if group == fitted[0] else "the same fit")))
    return [heading(3, entry.name, _anchor("gpu", entry.slug)),
            _table(("Figure", "Value", "Source"), rows)]


def _layers(model: shapes.Model) -> str:
    """The layers in words: attention kind, windows, dense and MoE MLPs."""
    attention = "latent attention" if model.latent else (
        "multi-head attention" if model.kv_heads == model.heads else "grouped-query attention")
    windows = sorted({kind.window for kind in model.kinds if kind.window})
    sliding = sum(1 for kind in model.kinds if kind.window)
    window = (f", {sliding} of them with a sliding window of "
              f"{' or '.join(str(w) for w in windows)} tokens" if windows else "")
    dense = model.layers - model.moe_layers
    mlp = ("a dense MLP" if not model.moe_layers else
           f"{model.moe_layers} with a mixture of experts" + (f", {dense} dense" if dense else ""))
    return f"{model.layers} layers of {attention}{window}; {mlp}"


def _count(params: float, published: float | None, source: Citation | None) -> str:
    ours = esc(f"{params / 1e9:,.2f} billion")
    if not published or source is None:
        return ours
    return f"{ours} (published: {esc(f'{published / 1e9:g} billion')}, {_source(source)})"


def _model(entry: LanguageModel, model: shapes.Model, formats: ModuleType) -> list[str]:
    """`formats`: sims.precision (its formats and their labels)."""
    labels = formats.LABELS
    fields = [(esc(name), esc(str(value))) for name, value in config_fields(entry).items()]
    total, active = published_params(entry)
    published = (Citation(entry.published.title, entry.published.url)
                 if entry.published else None)
    native = labels[model.native.weights] + (
        f", experts {labels[model.native.experts]}"
        if model.native.experts != model.native.weights else "")
    derived = [
        ("Parameters", _count(model.params, total, published)),
        ("Active per token", _count(model.params_active, active, published)),
        ("Layers", esc(_layers(model))),
        ("Weights in the checkpoint's formats",
         esc(f"{model.weight_bytes() / 1e9:,.1f} GB ({native})")),
        ("KV cache per token of context", esc(", ".join(
            f"{labels[p]} {model.kv_bytes_per_token(p):,.0f} bytes" for p in formats.PRECISIONS))),
    ]
    if model.kv_window_bytes():
        derived.append(("KV the sliding layers hold per sequence, once full",
                        esc(f"{model.kv_window_bytes() / 1e6:,.1f} MB in BF16")))
    if model.experts:
        shared = f", {model.shared_experts} shared" if model.shared_experts else ""
        derived.append(("Experts", esc(f"{model.experts} routed, {model.experts_per_token} "
                                       f"per token{shared}")))
    return [
        heading(3, entry.name, _anchor("model", entry.slug)),
        paragraph(f"Shape from {_source(entry.config_json)}; the fields below are its own.",
                  "rp-note"),
        _table(("config.json field", "Value"), fields),
        _table(("Derived", "Value"), [(esc(label), value) for label, value in derived]),
    ]
