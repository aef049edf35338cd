"""The profiles the calibration fits, as the files hold them: kernel profiles
(content/catalogue/kernels/<key>.yaml: each kernel class's efficiencies and fixed costs per
format, or `like` another profile) and engine profiles (content/catalogue/engines/<key>.yaml:
how one serving engine family schedules, each setting with its source, then the overheads
and the measured deployments' token budgets the fit finds). Both end with the errors their
constants make on the calibration's points (scripts/calibrate/ writes the fitted parts).

Catalogue kinds (ridgepoint.content.kinds) built generically from their schemas like every
other (ridgepoint.content.records): each field is a schema property of the same name. Times
stay in the units the file writes them in (microseconds, nanoseconds);
ridgepoint.catalogue.units converts them for the sims' data module.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ridgepoint.content.catalogue_records import Citation, Count


@dataclass(frozen=True)
class Exponent:
    value: float
    source: str


@dataclass(frozen=True)
class GemmFit:
    compute_efficiency: float
    memory_efficiency: float
    fixed_us: float
    k_step_ns: float
    source: str


@dataclass(frozen=True)
class PrefillAttentionFit:
    compute_efficiency: float
    memory_passes: float
    fixed_us: float
    per_sequence_head_ns: float
    source: str


@dataclass(frozen=True)
class DecodeAttentionFit:
    memory_efficiency: float
    unit_share: float
    fixed_us: float
    per_sequence_ns: float
    source: str


@dataclass(frozen=True)
class MoeFit:
    memory_efficiency: float
    fixed_us: float
    per_row_ns: float
    tile_rows: int
    source: str


@dataclass(frozen=True)
class ElementwiseFit:
    memory_efficiency: float
    fixed_us: float
    source: str


@dataclass(frozen=True)
class Latency:
    gpus: int
    us: float


@dataclass(frozen=True)
class AllReduceAlgorithm:
    traffic: str  # one_shot | ring | in_switch
    latency: tuple[Latency, ...]  # by number of GPUs
    bus_efficiency: float


@dataclass(frozen=True)
class AllReduceFit:
    algorithms: tuple[AllReduceAlgorithm, ...]
    source: str


@dataclass(frozen=True)
class GemmFits:
    bf16: GemmFit | None = None
    fp8: GemmFit | None = None
    fp4: GemmFit | None = None


@dataclass(frozen=True)
class PrefillAttentionFits:
    bf16: PrefillAttentionFit | None = None
    fp8: PrefillAttentionFit | None = None
    fp4: PrefillAttentionFit | None = None


@dataclass(frozen=True)
class DecodeAttentionFits:
    bf16: DecodeAttentionFit | None = None
    fp8: DecodeAttentionFit | None = None
    fp4: DecodeAttentionFit | None = None


@dataclass(frozen=True)
class MoeFits:
    bf16: MoeFit | None = None
    fp8: MoeFit | None = None
    fp4: MoeFit | None = None
    w4a16: MoeFit | None = None  # weight-only kernels: narrow experts, wider activations
    w4a8: MoeFit | None = None
    w8a16: MoeFit | None = None


@dataclass(frozen=True)
class AllReduceFits:
    nccl: AllReduceFit
    custom: AllReduceFit | None = None


@dataclass(frozen=True)
class Errors:
    points: int
    median: float
    p90: float


@dataclass(frozen=True)
class CategoryAccuracy:
    kind: str  # a kernel class, or throughput
    variant: str | None = None  # its format or all-reduce implementation
    training: Errors | None = None
    held_out: Errors | None = None


@dataclass(frozen=True)
class Accuracy:
    source: str
    categories: tuple[CategoryAccuracy, ...]


@dataclass(frozen=True)
class KernelProfile:
    """content/catalogue/kernels/<slug>.yaml: its own constants, or `like` another profile."""

    slug: str
    name: str
    like: str | None = None
    assumption: str | None = None
    overlap_exponent: Exponent | None = None
    gemm: GemmFits | None = None
    prefill_attention: PrefillAttentionFits | None = None
    decode_attention: DecodeAttentionFits | None = None
    moe: MoeFits | None = None
    elementwise: ElementwiseFit | None = None
    all_reduce: AllReduceFits | None = None
    accuracy: Accuracy | None = None  # the calibration's errors under these constants
    source: Path | None = None


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
class DeploymentBudget:
    model: str
    gpus: int
    tokens: int


@dataclass(frozen=True)
class Deployments:
    """What the measured deployments' runs behave as if they had where their publications
    do not say, fitted to their training runs: only the calibration prices with these."""

    source: str
    token_budgets: tuple[DeploymentBudget, ...]


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
    expert_exchange: Setting
    step_overhead: StepOverhead
    request_overhead: RequestOverhead
    deployments: Deployments | None = None
    accuracy: EngineAccuracy | None = None
    source: Path | None = None
