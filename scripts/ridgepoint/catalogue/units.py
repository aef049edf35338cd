"""The catalogue in base units: what pages and the sims read of the GPU and model records.

The records (ridgepoint.content.catalogue_records) hold each figure as written, "3.35 TB/s",
with its source and row; this module converts them once (ridgepoint.catalogue.quantities) into
the plain data `sims/physics/catalogue_data.py` holds (ridgepoint.catalogue.sims_module writes
it) and into the labelled figures the catalogue page lists, so the page and the sims read one
conversion.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ridgepoint.catalogue import quantities
from ridgepoint.catalogue.profiles import kernels_sims
from ridgepoint.content.catalogue_records import (
    Citation,
    Count,
    Figure,
    Fp4Figure,
    Gpu,
    LanguageModel,
)
from ridgepoint.content.model import Site

# (label on the page, section and field of the GPU record, kind of quantity): every figure.
GPU_FIGURES = (
    ("Dense BF16", ("dense_flops", "bf16"), "flops"),
    ("Dense FP8", ("dense_flops", "fp8"), "flops"),
    ("Dense FP6", ("dense_flops", "fp6"), "flops"),
    ("Dense FP4", ("dense_flops", "fp4"), "flops"),
    ("Memory", ("memory", "capacity"), "bytes"),
    ("Memory bandwidth", ("memory", "bandwidth"), "bytes_per_s"),
    ("Scale-up bandwidth, each way", ("scale_up", "bandwidth_per_direction"), "bytes_per_s"),
    ("Scale-up domain (GPUs)", ("scale_up", "gpus"), "count"),
    ("Host link, each way", ("host_link", "bandwidth_per_direction"), "bytes_per_s"),
    ("Network per GPU, each way", ("scale_out", "bandwidth_per_direction"), "bytes_per_s"),
)
_KINDS = {place: kind for _, place, kind in GPU_FIGURES}


@dataclass(frozen=True)
class ShownFigure:
    """One figure of a GPU as the page shows it: what it is, as written, and whence."""

    label: str  # e.g. "Memory bandwidth"
    written: str  # as the editor wrote it, e.g. "3.35 TB/s"
    value: float  # in base units (bytes, bytes/s, FLOP/s, a count)
    source: Citation
    row: str


def _figures(gpu: Gpu) -> dict[tuple[str, str], tuple[str, Figure | Fp4Figure | Count]]:
    """(section, field) -> (label, figure) for each figure the GPU file gives."""
    found = {}
    for label, (section, name), _ in GPU_FIGURES:
        holder = getattr(gpu, section)
        figure = getattr(holder, name) if holder is not None else None
        if figure is not None:
            found[(section, name)] = (label, figure)
    return found


def _value(figure: Figure | Fp4Figure | Count, kind: str) -> float:
    return float(figure.value) if isinstance(figure, Count) else quantities.parse(
        figure.value, kind)


def gpu_figures(gpu: Gpu) -> tuple[ShownFigure, ...]:
    """Every figure of the GPU file, in the page's order, with its source and row."""
    return tuple(
        ShownFigure(label, _written(figure), _value(figure, _KINDS[place]),
                    gpu.sources[figure.source], figure.row)
        for place, (label, figure) in _figures(gpu).items()
    )


def _written(figure: Figure | Fp4Figure | Count) -> str:
    """The figure as written, with the FP4 variant it is quoted in where the file names one."""
    variant = getattr(figure, "variant", None)
    return f"{figure.value} ({variant.upper()})" if variant else str(figure.value)


def gpu_sims(gpu: Gpu) -> dict[str, Any]:
    """The GPU as sims/physics/catalogue_data.py holds it: base units, plain literals."""
    values = {place: _value(figure, _KINDS[place]) for place, (_, figure) in _figures(gpu).items()}
    return {
        "name": gpu.name + (" (announced)" if gpu.announced else ""),  # sims say so too
        "dense_flops": {name: values[("dense_flops", name)] for name in ("bf16", "fp8", "fp4")
                        if ("dense_flops", name) in values},
        "hbm_bytes": values[("memory", "capacity")],
        "hbm_bytes_per_s": values[("memory", "bandwidth")],
        "scale_up_link": gpu.scale_up.link,
        "scale_up_bytes_per_s": values[("scale_up", "bandwidth_per_direction")],
        "scale_up_gpus": int(values[("scale_up", "gpus")]),
        "topology": gpu.scale_up.topology,
        "host_link": gpu.host_link.link if gpu.host_link else None,
        "host_link_bytes_per_s": values.get(("host_link", "bandwidth_per_direction")),
        "scale_out_bytes_per_s": values.get(("scale_out", "bandwidth_per_direction")),
        "kernels": gpu.kernels,
        "price_per_gpu_hour": _price(gpu),
        "price_note": _price_note(gpu),
    }


def _price(gpu: Gpu) -> float | None:
    """The GPU's on-demand price in US dollars per hour, or None where the catalogue cites
    none (the planner then asks the reader for one)."""
    written = gpu.price.per_gpu_hour if gpu.price else None
    return float(written.split()[0]) if written else None


def _price_note(gpu: Gpu) -> str:
    """Where the price comes from (the list, its row, the date read), or why there is none."""
    price = gpu.price
    if price is None:
        return "the catalogue gives no price for it"
    if price.per_gpu_hour and price.source:
        return (f"{price.per_gpu_hour}, {gpu.sources[price.source].title}: {price.row} "
                f"(read {price.read.isoformat()})")
    return f"{price.missing or 'no cited price'} (searched {price.read.isoformat()})"


def config_fields(model: LanguageModel) -> dict[str, Any]:
    """The config.json fields the file gives, as written (lists as lists), in schema order."""
    return _plain(model.config)


def _plain(record: Any) -> Any:
    if dataclasses.is_dataclass(record):
        return {field.name: _plain(getattr(record, field.name))
                for field in dataclasses.fields(record)
                if getattr(record, field.name) is not None}
    if isinstance(record, dict):  # compressed-tensors' quantization groups, by name
        return {key: _plain(value) for key, value in record.items()}
    return [_plain(item) for item in record] if isinstance(record, tuple) else record


def model_sims(model: LanguageModel) -> dict[str, Any]:
    """The model as sims/physics/catalogue_data.py holds it: its name and config.json fields."""
    return {"name": model.name, "config": config_fields(model)}


def published_params(model: LanguageModel) -> tuple[float | None, float | None]:
    """The publisher's total and active parameter counts, where the file gives them."""
    published = model.published
    if published is None:
        return None, None
    active = published.params_active
    return (quantities.parse(published.params_total, "params"),
            quantities.parse(active, "params") if active else None)


def sims_data(site: Site) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(GPUS, MODELS, KERNELS) as sims/physics/catalogue_data.py holds them, keys sorted."""
    return ({key: gpu_sims(site.gpus[key]) for key in sorted(site.gpus)},
            {key: model_sims(site.models[key]) for key in sorted(site.models)},
            kernels_sims(site))
