"""The catalogue page `catalogue/`: every GPU and model side by side in sortable tables
(ridgepoint.pages.catalogue_tables), then every GPU, kernel profile and model, its figures,
their sources, and what the physics derives from them, each under its own anchor
(`urls.catalogue_entry`).

The figures are the YAML's, as loaded (ridgepoint.catalogue.units); the derived ones (ridge points,
each GPU's all-reduce per implementation, parameter counts, KV bytes per token) come from the
sims' own physics run on the same records, so the page shows exactly what every sim uses. A
kernel profile's constants are listed as its file writes them, each class with its source,
or the profile it is `like` and why. Ends with the physics calculator (sims/calculator.py) as
a live widget.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

from ridgepoint.base.markup import count, esc, link
from ridgepoint.catalogue.units import (
    config_fields,
    gpu_figures,
    published_params,
    sims_data,
)
from ridgepoint.content.catalogue_records import Citation, Gpu, LanguageModel
from ridgepoint.content.model import Site
from ridgepoint.content.profile_records import AllReduceAlgorithm, AllReduceFit, KernelProfile
from ridgepoint.pages.catalogue_tables import (
    anchor,
    attention,
    cited,
    comparison,
    layer_pattern,
)
from ridgepoint.pages.common import heading, page, paragraph
from ridgepoint.sims.simcode import SimCode

if TYPE_CHECKING:
    from sims import hardware, shapes

CALCULATOR = "```sim\nmodule: calculator\n```"


def catalogue_page(site: Site, code: SimCode) -> str:
    """The comparison tables, GPUs, profiles, models, then the calculator; derived by `code`,
    the sims as read."""
    gpu_data, model_data, kernel_data = sims_data(site)
    precision = code.module("physics.precision")
    with code.active():
        profiles = code.module("physics.profile").build_profiles(kernel_data)
        gpus = code.module("physics.hardware").build_gpus(gpu_data, profiles)
        models = code.module("physics.shapes").build_models(model_data)
    lede = (
        f"{count(len(gpus), 'GPU', 'GPUs')}, "
        f"{count(len(site.kernels), 'kernel profile', 'kernel profiles')} and "
        f"{count(len(models), 'model', 'models')}: every figure the sims use, with the "
        "datasheet row, fit or config.json field it comes from, and what the shared physics "
        "derives from it."
    )
    note = (
        "Rates are dense: a datasheet rate quoted with sparsity is halved, and its row says "
        "so. Ridge points are given twice: the GPU's own (peak rate over peak bandwidth) and "
        "at the shares of them its matmuls reach, from its kernel profile (the constants each "
        "class of kernel is priced with, fitted to measured kernels or assumed: below the "
        "GPUs). Adding a GPU or a model is one YAML file in "
        "content/catalogue/; the calibration page shows how close the physics comes to "
        "measured kernels and steps."
    )
    blocks = [paragraph(esc(lede), "rp-lede"), paragraph(esc(note), "rp-note"),
              *comparison(site, gpus, models, precision), heading(2, "GPUs", "gpus")]
    for key in sorted(gpus):
        blocks += _gpu(site, site.gpus[key], gpus[key], precision)
    blocks += [heading(2, "Kernel profiles", "kernels"), paragraph(esc(
        "How fast each class of kernel runs on a generation of GPUs, as shares of the "
        "datasheet's peaks and fixed costs: fitted by scripts/calibration.py (make fit) to the "
        "calibration's training points, or assumed where none were measured. A profile "
        "without measurements of its own takes another's constants, and says why."), "rp-note")]
    for key in sorted(site.kernels):
        blocks += _profile(site, site.kernels[key])
    blocks.append(heading(2, "Models", "models"))
    for key in sorted(models):
        blocks += _model(site.models[key], models[key], precision)
    blocks += [heading(2, "The calculator", "calculator"), paragraph(esc(
        "One step on one deployment, priced by the same physics, here and from the command "
        "line (python -m sims step ...)."), "rp-note"), CALCULATOR]
    return page("The catalogue: GPUs, kernels and models", *blocks,
                description="Every GPU, kernel profile and model the sims use, each figure "
                            "with its source.")


def _table(head: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """A table of already escaped cells, in the wrapper that scrolls it on a phone."""
    cells = "".join(f"<th>{esc(cell)}</th>" for cell in head)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return (f'<div class="rp-table"><table class="rp-catalogue"><thead><tr>{cells}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


def _own(site: Site, key: str) -> KernelProfile:
    """The profile whose constants price GPUs of profile `key`: itself, or the one it is like."""
    profile = site.kernels[key]
    return site.kernels[profile.like] if profile.like else profile


def _gpu(site: Site, entry: Gpu, gpu: hardware.Gpu, formats: ModuleType) -> list[str]:
    """`formats`: sims.physics.precision (its formats and their labels)."""
    rows = [(esc(f.label), esc(f.written), cited(f.source, f.row)) for f in gpu_figures(entry)]
    price = entry.price
    if price is not None and price.per_gpu_hour is not None and price.source is not None:
        rows.append((esc("Price per GPU-hour (on demand, the planner's default)"),
                     esc(f"{price.per_gpu_hour}, read {price.read.isoformat()}"),
                     cited(entry.sources[price.source], price.row or "")))
    elif price is not None:
        rows.append((esc("Price per GPU-hour"), esc("none cited"),
                     esc(f"{price.missing or 'no cited price'} (searched "
                         f"{price.read.isoformat()})")))
    profile, named = gpu.kernels, site.kernels[entry.kernels]
    rows.append((esc("Kernel profile"), link(f"#{anchor('kernels', entry.kernels)}", named.name),
                 esc(f"content/catalogue/kernels/{entry.kernels}.yaml")))
    fits = _own(site, entry.kernels).all_reduce
    bandwidth = gpu.hbm_bytes_per_s / 1e12
    for precision in formats.PRECISIONS:
        if precision not in gpu.dense_flops:
            continue
        label = formats.LABELS[precision]
        how = f"{gpu.flops(precision) / 1e12:,.0f} TFLOP/s over {bandwidth:.2f} TB/s"
        rows.append((esc(f"Ridge point, {label}, at peak"),
                     esc(f"{gpu.ridge(precision):,.0f} FLOP/byte"), esc(f"derived: {how}")))
        fit = profile.for_format(profile.gemm, precision, "GEMM")
        rows.append((esc(f"Ridge point, {label}, at what its matmuls reach"),
                     esc(f"{gpu.ridge(precision, efficient=True):,.0f} FLOP/byte"),
                     esc(f"derived: {fit.compute_efficiency:.0%} of the rate, "
                         f"{fit.memory_efficiency:.0%} of the bandwidth (kernel profile)")))
    if gpu.scale_up_gpus > 1 and fits is not None:
        for name in ("nccl", "custom"):
            written = getattr(fits, name)
            if written is None:
                continue
            usable = [a for a in written.algorithms
                      if a.traffic != "in_switch" or gpu.topology == "switch"]
            rows.append((esc(f"All-reduce, {name}"),
                         esc("; ".join(_algorithm(a) for a in usable)),
                         esc(f"kernel profile ({written.source}), over a {gpu.topology} of "
                             f"{gpu.scale_up_gpus} GPUs")))
    status = ([paragraph(esc("Announced, not shipping: every figure below is the vendor's "
                             "announcement, not a measured or shipping datasheet's."), "rp-note")]
              if entry.announced else [])
    return [heading(3, entry.name + (" (announced)" if entry.announced else ""),
                    anchor("gpu", entry.slug)),
            *status, _table(("Figure", "Value", "Source"), rows)]


# Each class of a profile: its heading on the page and its constants in words.
_CLASSES = (
    ("gemm", "GEMM", lambda f: (
        f"{_share(f.compute_efficiency)} of the tensor-core peak, "
        f"{_share(f.memory_efficiency)} of the memory bandwidth, {f.fixed_us:.3g} µs fixed, "
        f"{f.k_step_ns:.3g} ns per element of k")),
    ("prefill_attention", "Prefill attention", lambda f: (
        f"{_share(f.compute_efficiency)} of the tensor-core peak, its tensors moved "
        f"{f.memory_passes:.3g} times, {f.fixed_us:.3g} µs fixed, "
        f"{f.per_sequence_head_ns:.3g} ns per (sequence, head)")),
    ("decode_attention", "Decode attention", lambda f: (
        f"{_share(f.memory_efficiency)} of the memory bandwidth, at most "
        f"{_share(f.unit_share)} of it per (sequence, KV head), {f.fixed_us:.3g} µs fixed, "
        f"{f.per_sequence_ns:.3g} ns per sequence")),
    ("moe", "MoE layer", lambda f: (
        f"its matmuls at the GEMMs' share of the peak, {_share(f.memory_efficiency)} of the "
        f"memory bandwidth, {f.fixed_us:.3g} µs fixed per layer, {f.per_row_ns:.3g} ns per "
        "routed row, " + (f"each expert's rows in tiles of {f.tile_rows}" if f.tile_rows
                          else "rows as routed (no tiles)"))),
)


# Each class's keys in the order the table shows them: the formats, then for MoE layers the
# weight-only kernels.
_KEYS = {"gemm": ("bf16", "fp8", "fp4"), "prefill_attention": ("bf16", "fp8", "fp4"),
         "decode_attention": ("bf16", "fp8", "fp4"),
         "moe": ("bf16", "fp8", "fp4", "w4a16", "w4a8", "w8a16")}


def _share(fraction: float) -> str:
    return f"{fraction * 100:.3g}%"


# How each all-reduce algorithm's traffic reads on the page.
_TRAFFIC = {"one_shot": "one-shot (reads every peer's message)",
            "ring": "ring or two-shot", "in_switch": "in the switch (NVLink SHARP)"}


def _algorithm(algorithm: AllReduceAlgorithm) -> str:
    latency = ", ".join(f"{point.us:.3g} µs at {point.gpus} GPUs"
                        for point in algorithm.latency)
    return (f"{_TRAFFIC[algorithm.traffic]}: {latency}, "
            f"{_share(algorithm.bus_efficiency)} of the links' bandwidth")


def _all_reduce(fit: AllReduceFit) -> str:
    """The implementation's algorithms; the fastest for a message runs."""
    return "; ".join(_algorithm(algorithm) for algorithm in fit.algorithms)


def _profile(site: Site, profile: KernelProfile) -> list[str]:
    """A profile's constants, each class and format with its source; or whose it takes."""
    title = heading(3, profile.name, anchor("kernels", profile.slug))
    if profile.like:
        taken = site.kernels[profile.like]
        named = link(f"#{anchor('kernels', taken.slug)}", taken.name)
        return [title, paragraph(f"Takes the constants of {named}: "
                                 f"{esc(profile.assumption or '')}", "rp-note")]
    assert profile.overlap_exponent and profile.elementwise and profile.all_reduce
    rows = [("Compute and memory combined", f"(c^p + m^p)^(1/p), p = "
             f"{profile.overlap_exponent.value:g}", profile.overlap_exponent.source)]
    for section, label, words in _CLASSES:
        fits = getattr(profile, section)
        for fmt in _KEYS[section]:
            fit = getattr(fits, fmt) if fits is not None else None
            if fit is not None:
                rows.append((f"{label}, {fmt.upper()}", words(fit), fit.source))
    element = profile.elementwise
    rows.append(("Element-wise", f"{_share(element.memory_efficiency)} of the memory "
                 f"bandwidth, {element.fixed_us:.3g} µs fixed", element.source))
    for name in ("nccl", "custom"):
        fit = getattr(profile.all_reduce, name)
        if fit is not None:
            rows.append((f"All-reduce, {name}", _all_reduce(fit), fit.source))
    return [title, _table(("Kernels", "Constants", "Source"),
                          [tuple(esc(cell) for cell in row) for row in rows])]


def _layers(model: shapes.Model) -> str:
    """The layers in words: attention kind, the layers' kinds in proportion, dense and MoE
    MLPs."""
    pattern = layer_pattern(model)
    kinds = f" ({pattern})" if pattern else ""
    dense = model.layers - model.moe_layers
    mlp = ("a dense MLP" if not model.moe_layers else
           f"{model.moe_layers} with a mixture of experts" + (f", {dense} dense" if dense else ""))
    return f"{model.layers} layers of {attention(model)} attention{kinds}; {mlp}"


def _count(params: float, published: float | None, source: Citation | None) -> str:
    ours = esc(f"{params / 1e9:,.2f} billion")
    if not published or source is None:
        return ours
    return f"{ours} (published: {esc(f'{published / 1e9:g} billion')}, {cited(source)})"


def _model(entry: LanguageModel, model: shapes.Model, formats: ModuleType) -> list[str]:
    """`formats`: sims.physics.precision (its formats and their labels)."""
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
    if model.kv_constant_bytes():
        derived.append(("KV a sequence holds whatever its length (full windows, chunks, "
                        "linear layers' state)",
                        esc(f"{model.kv_constant_bytes() / 1e6:,.1f} MB in BF16")))
    if model.experts:
        shared = f", {model.shared_experts} shared" if model.shared_experts else ""
        derived.append(("Experts", esc(f"{model.experts} routed, {model.experts_per_token} "
                                       f"per token{shared}")))
    return [
        heading(3, entry.name, anchor("model", entry.slug)),
        paragraph(f"Shape from {cited(entry.config_json)}; the fields below are its own.",
                  "rp-note"),
        _table(("config.json field", "Value"), fields),
        _table(("Derived", "Value"), [(esc(label), value) for label, value in derived]),
    ]
