"""The calibration table: each published measurement beside what the shared physics says.

The points are content (content/catalogue/calibration/<set>.yaml, one set per publication);
the physics is the sims' own (sims/physics/: pricing, collectives), run here on the GPUs and
models of the same catalogue. A row's ratio is ours over measured, as times (a measured
rate is compared as the time it implies for the point's FLOPs); a banded row is within its
band when it is off by at most the band. tests/sims/test_calibration.py holds every banded
row to its band, and the page "How close is this to a real GPU?" shows them all. A point in
a set (training or held out) has no band: it counts towards its category's errors
(`summary`).

A kernel measured alone with no catalogue model behind it (an attention kernel with KV
heads or a batch, a decode attention kernel, an MoE layer) is priced by the sims' own
Pricer on a one-layer model of that shape, reading only that operator's time: what a step
of the sims would charge for it.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ridgepoint.catalogue.categories import SERVED, Category, category, held_as
from ridgepoint.catalogue.profiles import engines_sims
from ridgepoint.catalogue.routing import busiest
from ridgepoint.catalogue.units import sims_data
from ridgepoint.content.calibration_records import CalibrationCase, CalibrationPoint, CalibrationSet
from ridgepoint.content.model import Site
from ridgepoint.sims.simcode import SimCode

if TYPE_CHECKING:
    from sims.physics.hardware import Gpu
    from sims.physics.shapes import Model


@dataclass(frozen=True)
class Row:
    """One point of the table, priced."""

    point: CalibrationPoint
    publication: CalibrationSet  # the set it belongs to: the source and who measured it
    measured_s: float
    ours_s: float
    category: Category

    @property
    def ratio(self) -> float:
        return self.ours_s / self.measured_s

    @property
    def within(self) -> bool | None:
        """Whether the ratio is within the band; None for a point held to none."""
        band = self.point.band
        return None if band is None else abs(self.ratio - 1) <= band


@dataclass(frozen=True)
class Physics:
    """The sims' modules a point is priced with, all from one SimCode: the bytes the build
    read, so a save under `make serve` shows on this page as it does in the sims."""

    physics: ModuleType
    pricing: ModuleType
    alone: ModuleType
    offline: ModuleType
    deploy: ModuleType
    engines: dict[str, Any]  # the catalogue's engine profiles, as the sims build them
    # Per engine, the measured deployments' fitted token budgets: (model, GPUs) -> tokens.
    budgets: Mapping[str, Mapping[tuple[str, int], int]] = field(default_factory=dict)

    @classmethod
    def of(cls, code: SimCode, site: Site) -> Physics:
        modules = [code.module(name) for name in ("physics", "physics.pricing",
                                                  "physics.alone", "serving.offline",
                                                  "serving.deploy")]
        build = code.module("serving.engines").build_engines
        return cls(*modules, build(engines_sims(site)), deployment_budgets(site))


def deployment_budgets(site: Site) -> dict[str, dict[tuple[str, int], int]]:
    """Each engine's fitted deployment budgets (its profile's `deployments`), by (model,
    GPUs): the token budget the served runs of that deployment are priced with."""
    return {key: {(budget.model, budget.gpus): budget.tokens
                  for budget in engine.deployments.token_budgets}
            for key, engine in site.engines.items() if engine.deployments}


def table(site: Site, code: SimCode) -> list[Row]:
    """Every calibration point of the site, priced by `code`'s physics: sets by key, points
    in file order."""
    gpu_data, model_data, kernel_data = sims_data(site)
    sims = Physics.of(code, site)
    with code.active():  # an import inside the physics finds the same copy
        profiles = code.module("physics.profile").build_profiles(kernel_data)
        gpus = code.module("physics.hardware").build_gpus(gpu_data, profiles)
        models = code.module("physics.shapes").build_models(model_data)
        formats = code.module("physics.precision")
        return [Row(point, calibration, measured_s(point),
                    price(sims, point, gpus[point.gpu], models), category(site, point, formats))
                for calibration in site.calibration.values() for point in calibration.points]


def measured_s(point: CalibrationPoint) -> float:
    """The point's measured figure as a time: a rate as the time it implies for the point's
    FLOPs (an attention kernel's, as the source counts them)."""
    if point.measured_ms is not None:
        return point.measured_ms / 1000
    if point.measured_tokens_per_s_per_gpu is not None:  # a run: time per output token per GPU
        return 1 / point.measured_tokens_per_s_per_gpu
    case = point.case
    assert point.measured_tflops is not None and case.heads and case.head_dim and case.tokens
    full = 4 * case.heads * case.head_dim * case.tokens ** 2 * (case.batch or 1)
    return full / (2 if case.causal in (None, True) else 1) / (point.measured_tflops * 1e12)


def price(sims: Physics, point: CalibrationPoint, gpu: Gpu, models: dict[str, Model]) -> float:
    """Our time for what the point measured, on `gpu` (its kernel profile's constants)."""
    case, kind, alone = point.case, point.kind, sims.alone
    fmt = case.weights or "bf16"
    if kind == "linear":
        return alone.gemm(gpu, case.tokens, case.k, case.n, fmt, case.activations or fmt).time_s
    if kind == "attention":
        return alone.prefill_attention(
            gpu, case.heads, case.kv_heads or case.heads, case.head_dim, case.tokens,
            case.batch or 1, case.activations or case.kv or "bf16", case.kv or "bf16",
            case.causal in (None, True), case.implementation == "fmha")
    if kind == "attention_decode":
        return alone.decode_attention(gpu, case.kv_heads, case.head_dim, case.batch,
                                      case.context, case.kv or "bf16", case.heads).time_s
    if kind == "moe":
        routed = busiest(case.tokens, case.experts, case.experts_per_token, case.ep,
                         case.distribution)
        return alone.moe(gpu, case.tokens, case.hidden, case.expert_ffn, case.experts,
                         case.experts_per_token, case.ep, case.tp, case.experts_format,
                         case.activations or "bf16", routed.rows, routed.touched,
                         routed.padded).time_s
    if kind == "all_reduce":
        return sims.physics.allreduce_time(gpu, case.bytes, case.gpus,
                                           case.implementation or "nccl")
    if kind == "throughput":
        return 1 / _throughput(sims, case, gpu, models)
    if kind in SERVED:
        budget = sims.budgets.get(case.engine or "", {}).get((case.model or "", case.tp or 1), 0)
        return served(sims, kind, case, gpu, models, sims.engines[case.engine], budget)
    return _priced(sims, kind, case, gpu, models)


# How trtllm-bench's runs are taken to be configured where the publication does not say:
# its default token budget per step, and a batch limited by the KV room (up to this many),
# each per attention rank (every GPU of a data-parallel-attention run schedules its own).
# Engine profiles (issue 39) will hold these as content.
THROUGHPUT_TOKEN_BUDGET, THROUGHPUT_MAX_BATCH = 8192, 2048


def _throughput(sims: Physics, case: CalibrationCase, gpu: Gpu,
                models: dict[str, Model]) -> float:
    """Output tokens per second per GPU of an offline run (sims.serving.offline), of the
    run's own number of requests when its source gives it."""
    model = models[case.model]
    layout = "ep" if case.ep and case.ep > 1 else "tp"
    precision = sims.physics.precision_for(gpu, model, case.weights, case.activations,
                                           case.kv or "bf16")
    # The engine's token exchange under expert parallelism; a site without that engine's
    # profile (a test site) prices the physics' default.
    engine = sims.engines.get(case.engine or "")
    exchange = engine.exchange_on(gpu, model, case.tp) if engine else "all_to_all"
    return sims.offline.offline_tokens_per_s_per_gpu(
        gpu, model, case.tp, precision, case.isl, case.osl, THROUGHPUT_TOKEN_BUDGET,
        THROUGHPUT_MAX_BATCH, layout, case.requests or 0, exchange)


# A served run is simulated with this many requests where its source does not say (the
# runs it stands for send a few hundred); fewer when the load is smaller, as benchmarks do,
# but always this many beyond the ones its warm-up leaves out.
SERVED_REQUESTS = 400
SERVED_REQUESTS_PER_USER = 8
SERVED_MEASURED = 64


def served(sims: Physics, kind: str, case: CalibrationCase, gpu: Gpu,
           models: dict[str, Model], engine: Any, token_budget: int = 0) -> float:
    """Our figure for a served run (sims.serving.deploy), as a time: the statistic of its
    first-token times, of its per-request TPOT or of its token gaps, or for its output rate
    per GPU, the time per output token per GPU. `engine` is the profile it runs with, and
    `token_budget` the deployment's own per attention rank (0: the engine's), as a fit tries
    others. Its first `case.warmup` requests are left out of the per-request figures."""
    model = models[case.model]
    layout = "ep" if case.ep and case.ep > 1 else "tp"
    precision = sims.physics.precision_for(gpu, model, case.weights, case.activations,
                                           case.kv or "bf16")
    concurrency, warmup = case.concurrency or 0, case.warmup or 0
    count = case.requests or max(
        min(SERVED_REQUESTS, max(SERVED_REQUESTS_PER_USER * concurrency, SERVED_MEASURED)),
        warmup + SERVED_MEASURED)
    run, outputs = sims.deploy.served_run(gpu, model, engine, case.tp, layout, precision,
                                          case.isl, case.osl, count, 0.0, 0, concurrency,
                                          case.rate or 1.0, 0, token_budget)
    figures = sims.deploy.figures(run, outputs, case.tp, warmup)
    if kind == "serving_throughput":
        return 1 / figures["output_tokens_per_s_per_gpu"]
    statistic = "mean" if case.statistic == "mean" else "p50"
    return figures[{"ttft": "ttft_s", "tpot": "tpot_s", "itl": "itl_s"}[kind]][statistic]


def _priced(sims: Physics, kind: str, case: CalibrationCase, gpu: Gpu,
            models: dict[str, Model]) -> float:
    """Our time for a point of a kind made of whole operators, steps or requests."""
    physics, pricing = sims.physics, sims.pricing
    model = models[case.model]
    precision = physics.precision_for(gpu, model, case.weights, case.activations,
                                      case.kv or "bf16")
    if kind == "layer":
        parts = pricing.pricer(gpu, model, precision, case.tp, "tp").parts(
            [pricing.Work(case.tokens, 0, logit_tokens=0)])
        return sum(seconds for part, seconds in parts.items()
                   if part not in (pricing.ATTENTION, pricing.EDGES, "collectives")) / model.layers
    decode_step = physics.decode_step
    if kind == "decode":
        return decode_step(gpu, model, case.batch, case.context, case.tp, precision).time_s
    first = physics.prefill(gpu, model, case.tokens, batch=case.batch, tp=case.tp,
                            precision=precision).time_s
    if kind == "prefill":
        return first
    return first + sum(  # a request: the prefill, then a step for each further token
        decode_step(gpu, model, case.batch, case.tokens + step, case.tp, precision).time_s
        for step in range(case.output - 1))


# -- the errors per category, for points in a set ----------------------------------------


@dataclass(frozen=True)
class Errors:
    """The rows of one category and set: how many, and |ours / measured - 1| at the median
    and the 90th percentile, and the median ratio (below 1: ours too fast)."""

    count: int
    median: float
    p90: float
    median_ratio: float

    @classmethod
    def of(cls, rows: list[Row]) -> Errors:
        return cls.of_ratios([row.ratio for row in rows])

    @classmethod
    def of_ratios(cls, ratios: list[float]) -> Errors:
        errors = [abs(ratio - 1) for ratio in ratios]
        p90 = (statistics.quantiles(errors, n=10, method="inclusive")[-1] if len(errors) > 1
               else errors[0])
        return cls(len(ratios), statistics.median(errors), p90, statistics.median(ratios))


def summary(rows: Iterable[Row]) -> dict[tuple[Category, str], Errors]:
    """Errors by (category, set) over the rows in a set, categories in first-seen order."""
    grouped: dict[tuple[Category, str], list[Row]] = {}
    for row in rows:
        if row.point.set is not None:
            grouped.setdefault((row.category, row.point.set), []).append(row)
    return {key: Errors.of(group) for key, group in grouped.items()}


def by_target(rows: Iterable[Row]) -> dict[Category, tuple[Errors | None, Errors | None]]:
    """(training, held-out) errors of each class the targets hold (categories.held_as), in
    first-seen order; None for a set with no points."""
    grouped: dict[Category, dict[str, list[Row]]] = {}
    for row in rows:
        if row.point.set is not None:
            grouped.setdefault(held_as(row.category), {}).setdefault(row.point.set,
                                                                      []).append(row)
    return {group: tuple(Errors.of(sets[name]) if name in sets else None  # type: ignore[misc]
                         for name in ("training", "held_out"))
            for group, sets in grouped.items()}

