"""What the physics is checked against, as the files hold them: calibration sets
(content/catalogue/calibration/<key>.yaml), each a publication's measurements with the case
the physics prices each one under. The profiles fitted to them, kernels and engines, are
ridgepoint.content.profile_records.

A catalogue kind (ridgepoint.content.kinds) built generically from its schema like every
other (ridgepoint.content.records): each field is a schema property of the same name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ridgepoint.content.catalogue_records import Citation


@dataclass(frozen=True)
class CalibrationCase:
    """The inputs under which the physics prices what was measured (which ones a point
    needs depends on its kind: ridgepoint.content.calibration_checks.CASE_FIELDS)."""

    tokens: int | None = None
    k: int | None = None
    n: int | None = None
    heads: int | None = None
    kv_heads: int | None = None  # grouped-query attention's KV heads (None: as many as heads)
    head_dim: int | None = None
    gpus: int | None = None
    bytes: int | None = None
    implementation: str | None = None  # an all-reduce's: nccl | custom (None: NCCL)
    tp: int | None = None
    batch: int | None = None
    context: int | None = None
    output: int | None = None
    hidden: int | None = None  # an MoE layer's: hidden width, each expert's width,
    expert_ffn: int | None = None
    experts: int | None = None  # routed experts, experts each token is sent to,
    experts_per_token: int | None = None
    ep: int | None = None  # and the expert-parallel group (tp: each expert's split)
    model: str | None = None
    weights: str | None = None
    activations: str | None = None
    kv: str | None = None
    experts_format: str | None = None  # the routed experts' weights
    distribution: str | None = None  # how tokens were routed: balanced, or a skew's name
    isl: int | None = None  # a throughput run's prompt and output tokens per request,
    osl: int | None = None
    engine: str | None = None  # and the engine measured: trtllm | vllm | sglang
    causal: bool | None = None  # an attention kernel's mask (None: causal)
    concurrency: int | None = None  # a served run's load: users in a closed loop,
    rate: float | None = None  # or requests per second in an open one
    requests: int | None = None  # how many the run sent
    statistic: str | None = None  # which statistic its latency figure is: mean | median
    warmup: int | None = None  # a served run's first requests its figures leave out


@dataclass(frozen=True)
class CalibrationPoint:
    """One published measurement: what, on which catalogue GPU, the figure (a time, or a
    rate compared as the time it implies), where in the source, its band (or the set it
    belongs to) and its case."""

    key: str
    kind: str  # linear | attention | attention_decode | moe | all_reduce | layer | decode |
    #            prefill | request | throughput
    what: str
    gpu: str
    where: str
    case: CalibrationCase
    measured_ms: float | None = None
    measured_tflops: float | None = None
    measured_tokens_per_s_per_gpu: float | None = None  # throughput points
    band: float | None = None  # the largest allowed |ours / measured - 1|, or
    unbanded: str | None = None  # why the point is shown but held to no band, or
    set: str | None = None  # training | held_out: held by per-category targets, not a band


@dataclass(frozen=True)
class CalibrationSet:
    """content/catalogue/calibration/<slug>.yaml: the points one publication measured."""

    slug: str
    publication: Citation
    measured_by: str
    points: tuple[CalibrationPoint, ...]
    split: str | None = None  # how the points with a set were split, decided before fitting
    assumptions: str | None = None  # what the source does not print and the points assume
    fitted: tuple[str, ...] = ()  # the deployments' settings the fit finds: token_budget
    source: Path | None = None
