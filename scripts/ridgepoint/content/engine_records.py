"""Serving engine profiles as their files hold them: content/catalogue/engines/<key>.yaml.

A catalogue kind (ridgepoint.content.kinds) built generically from its schema like every
other (ridgepoint.content.records): each field is a schema property of the same name. Times
stay in the units the file writes them in (microseconds per step, milliseconds per request);
ridgepoint.catalogue.engines converts them for the sims' data module.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ridgepoint.content.catalogue_records import Citation, Count
from ridgepoint.content.kernel_records import Errors


@dataclass(frozen=True)
class Setting:
    """A named choice (preempt or reserve; custom or nccl), its source and row."""

    value: str
    source: str
    row: str


@dataclass(frozen=True)
class StepOverhead:
    graph_us: float
    eager_us: float
    source: str


@dataclass(frozen=True)
class RequestOverhead:
    ms: float
    source: str


@dataclass(frozen=True)
class MetricAccuracy:
    metric: str  # ttft | tpot | itl | throughput
    training: Errors | None = None
    held_out: Errors | None = None


@dataclass(frozen=True)
class EngineAccuracy:
    source: str
    metrics: tuple[MetricAccuracy, ...]


@dataclass(frozen=True)
class Engine:
    """content/catalogue/engines/<slug>.yaml."""

    slug: str
    name: str
    version: str
    sources: dict[str, Citation]
    admission: Setting
    token_budget: Count
    max_batch: Count
    cuda_graphs: Count
    all_reduce: Setting
    step_overhead: StepOverhead
    request_overhead: RequestOverhead
    accuracy: EngineAccuracy | None = None
    source: Path | None = None
