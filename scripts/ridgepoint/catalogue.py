"""Load the catalogue (content/catalogue/): GPUs and models as content, each number with its source.

One YAML file per GPU (`gpus/<key>.yaml`) and per model (`models/<key>.yaml`), plus the
calibration table (`calibration.yaml`), each checked against its JSON Schema and then by the
rules a schema cannot state (catalogue_checks.py), every problem reported in one pass as
`path:line: field: message (expected ...)` like every other kind of content. Only a clean
catalogue is turned into records; the loader (ridgepoint.load) merges the problems with the
rest of the site's.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ridgepoint import quantities
from ridgepoint.catalogue_checks import calibration_problems, gpu_problems, model_problems
from ridgepoint.catalogue_records import (
    Catalogue,
    Figure,
    GpuEntry,
    ModelEntry,
    Reference,
    Source,
)
from ridgepoint.errors import ContentError, ContentErrors
from ridgepoint.validate import schema_errors, schemas
from ridgepoint.yamldoc import Document, parse, read_text

CATALOGUE = "content/catalogue"
GPU_DIR = f"{CATALOGUE}/gpus"
MODEL_DIR = f"{CATALOGUE}/models"
CALIBRATION = f"{CATALOGUE}/calibration.yaml"
KEY = re.compile(schemas()["catalogue.schema.json"]["$defs"]["key"]["pattern"])

# (label on the page, location in the file, kind of quantity): every figure of a GPU file.
GPU_FIGURES = (
    ("Dense BF16", ("dense_flops", "bf16"), "flops"),
    ("Dense FP8", ("dense_flops", "fp8"), "flops"),
    ("Dense FP4", ("dense_flops", "fp4"), "flops"),
    ("Memory", ("memory", "capacity"), "bytes"),
    ("Memory bandwidth", ("memory", "bandwidth"), "bytes_per_s"),
    ("Scale-up bandwidth, each way", ("scale_up", "bandwidth_per_direction"), "bytes_per_s"),
    ("Scale-up domain (GPUs)", ("scale_up", "gpus"), "count"),
    ("Host link, each way", ("host_link", "bandwidth_per_direction"), "bytes_per_s"),
    ("Network per GPU, each way", ("scale_out", "bandwidth_per_direction"), "bytes_per_s"),
)


def read_catalogue(root: Path) -> tuple[Catalogue, list[ContentError]]:
    """The catalogue under `root` (empty when it has none), or the problems that stop it."""
    errors: list[ContentError] = []
    gpus = _documents(root, GPU_DIR, "gpu.schema.json", errors)
    models = _documents(root, MODEL_DIR, "model.schema.json", errors)
    calibration = _document(root, CALIBRATION, "calibration.schema.json", errors)
    errors += gpu_problems(gpus)
    errors += model_problems(models)
    if calibration is not None:
        errors += calibration_problems(calibration, gpus, models)
    if errors:
        return Catalogue(), errors
    return Catalogue(
        gpus={key: _gpu(key, doc.data) for key, doc in gpus.items()},
        models={key: _model(key, doc.data) for key, doc in models.items()},
        references=_references(calibration.data) if calibration else (),
    ), []


def load_catalogue(root: Path) -> Catalogue:
    """The catalogue alone, for what needs no other content; raises ContentErrors."""
    catalogue, errors = read_catalogue(root)
    if errors:
        raise ContentErrors(errors)
    return catalogue


def _documents(
    root: Path, folder: str, schema: str, errors: list[ContentError]
) -> dict[str, Document]:
    """key -> parsed and schema-checked document, for every YAML file in `folder`."""
    documents: dict[str, Document] = {}
    directory = root / folder
    if not directory.is_dir():
        return documents
    for file in sorted(directory.iterdir()):
        if file.name.startswith(".") or file.suffix not in (".yaml", ".yml") or not file.is_file():
            continue
        path = f"{folder}/{file.name}"
        if not KEY.fullmatch(file.stem):
            expected = schemas()["catalogue.schema.json"]["$defs"]["key"]["title"]
            errors.append(ContentError(path, 1, "key", f"{file.stem!r} is malformed", expected))
            continue
        if file.stem in documents:
            message = f"{file.stem!r} is already used by {documents[file.stem].path}"
            errors.append(ContentError(path, 1, "key", message, "one file per key"))
            continue
        document = _document(root, path, schema, errors)
        if document is not None:
            documents[file.stem] = document
    return documents


def _document(root: Path, path: str, schema: str, errors: list[ContentError]) -> Document | None:
    if not (root / path).is_file():
        return None
    try:
        document = parse(read_text(root / path, path), path)
    except ContentErrors as problem:
        errors.extend(problem.errors)
        return None
    errors.extend(document.problems)
    errors.extend(schema_errors(document, schema))
    return document


def _source(data: dict[str, Any]) -> Source:
    return Source(data["title"], data.get("url"))


def _value(figure: dict[str, Any], kind: str) -> float:
    return float(figure["value"]) if kind == "count" else quantities.parse(figure["value"], kind)


def _gpu(key: str, data: dict[str, Any]) -> GpuEntry:
    sources = {name: _source(source) for name, source in data["sources"].items()}
    figures, values = [], {}
    for label, (section, name), kind in GPU_FIGURES:
        figure = data.get(section, {}).get(name)
        if figure is None:
            continue
        value = _value(figure, kind)
        values[(section, name)] = value
        figures.append(Figure(label, str(figure["value"]), value, sources[figure["source"]],
                              figure["row"]))
    collectives = data.get("collectives", {})
    measured = [
        [point["gpus"], point["bytes"], point["ms"]]
        for point in collectives.get("all_reduce", ())
    ]
    if measured:
        groups = ", ".join(str(n) for n in sorted({point[0] for point in measured}))
        note = (f"All-reduce fitted to {len(measured)} measured times at {groups} GPUs: "
                f"{sources[collectives['source']].title}.")
    elif "like" in collectives:
        note = f"Assumed from {collectives['like']}: {collectives['assumption']}"
    else:
        note = "A single GPU: no collectives."
    link = {section: data[section]["link"] for section in ("scale_up", "host_link")
            if section in data}
    sims = {
        "name": data["name"],
        "dense_flops": {precision: values[("dense_flops", precision)]
                        for precision in ("bf16", "fp8", "fp4")
                        if ("dense_flops", precision) in values},
        "hbm_bytes": values[("memory", "capacity")],
        "hbm_bytes_per_s": values[("memory", "bandwidth")],
        "scale_up_link": link["scale_up"],
        "scale_up_bytes_per_s": values[("scale_up", "bandwidth_per_direction")],
        "scale_up_gpus": int(values[("scale_up", "gpus")]),
        "host_link": link.get("host_link"),
        "host_link_bytes_per_s": values.get(("host_link", "bandwidth_per_direction")),
        "scale_out_bytes_per_s": values.get(("scale_out", "bandwidth_per_direction")),
        "all_reduce": measured,
        "collectives_like": collectives.get("like"),
    }
    return GpuEntry(key, data["name"], tuple(figures), note, sims)


def _model(key: str, data: dict[str, Any]) -> ModelEntry:
    published = data.get("published")
    total = active = None
    if published:
        total = quantities.parse(published["params_total"], "params")
        if "params_active" in published:
            active = quantities.parse(published["params_active"], "params")
    return ModelEntry(
        key=key,
        name=data["name"],
        source=_source(data["source"]),
        config=data["config"],
        published=_source(published) if published else None,
        published_total=total,
        published_active=active,
        sims={"name": data["name"], "config": data["config"]},
    )


def _references(data: dict[str, Any]) -> tuple[Reference, ...]:
    sources = {name: _source(source) for name, source in data["sources"].items()}
    return tuple(
        Reference(
            key=entry["key"],
            kind=entry["kind"],
            what=entry["what"],
            hardware=entry["gpu"],
            measured_by=entry["measured_by"],
            source=sources[entry["source"]],
            where=entry["where"],
            measured_s=entry["measured_ms"] / 1000 if "measured_ms" in entry else None,
            measured_flops_per_s=(entry["measured_tflops"] * 1e12
                                  if "measured_tflops" in entry else None),
            band=entry["band"],
            case=entry["case"],
        )
        for entry in data["references"]
    )
