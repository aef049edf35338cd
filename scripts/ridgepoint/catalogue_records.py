"""The catalogue's records: GPUs, models and calibration points, as loaded from content/catalogue/.

Plain frozen records, like the rest of the content model (ridgepoint.model). Each GPU and
model also carries `sims`: the plain data the sims are built from (base units, config.json
fields as written), the same mapping `sims/catalogue_data.py` holds, so the pages and the
sims read one conversion of the YAML.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Source:
    """Where figures come from: a title, and a URL only where it is certain."""

    title: str
    url: str | None = None


@dataclass(frozen=True)
class Figure:
    """One number of a GPU file as the page shows it: what it is, as written, and whence."""

    label: str  # e.g. "HBM bandwidth"
    written: str  # the value as the editor wrote it, e.g. "3.35 TB/s"
    value: float  # in base units (bytes, bytes/s, FLOP/s, a count)
    source: Source
    row: str


@dataclass(frozen=True)
class GpuEntry:
    """content/catalogue/gpus/<key>.yaml."""

    key: str
    name: str
    figures: tuple[Figure, ...]
    collectives: str  # how its collectives are priced, in a sentence, with the source
    sims: dict[str, Any]


@dataclass(frozen=True)
class ModelEntry:
    """content/catalogue/models/<key>.yaml."""

    key: str
    name: str
    source: Source
    config: dict[str, Any]
    published: Source | None = None
    published_total: float | None = None
    published_active: float | None = None
    sims: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Reference:
    """One calibration point (content/catalogue/calibration.yaml): a published measurement
    and the inputs under which the physics prices the same thing."""

    key: str
    kind: str  # linear | attention | all_reduce | step
    what: str
    hardware: str  # a GPU key
    measured_by: str
    source: Source
    where: str
    measured_s: float | None  # a measured time, or
    measured_flops_per_s: float | None  # a measured rate (compared as the time it implies)
    band: float  # the largest allowed |ours / measured - 1|
    case: dict[str, Any]


@dataclass(frozen=True)
class Catalogue:
    """Every GPU, model and calibration point, by key (references in file order)."""

    gpus: dict[str, GpuEntry] = field(default_factory=dict)
    models: dict[str, ModelEntry] = field(default_factory=dict)
    references: tuple[Reference, ...] = ()
