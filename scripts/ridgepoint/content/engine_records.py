"""The records of engine profiles (content/catalogue/engines/<key>.yaml): how one serving
engine family schedules, each setting with its source, the overheads the calibration fit
finds, the measured deployments' fitted token budgets, and the errors they make on the
served runs (scripts/calibrate/engines.py writes the fitted part).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ridgepoint.content.calibration_records import Errors
from ridgepoint.content.catalogue_records import Citation, Count


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

    def token_budget(self, model: str, gpus: int) -> int:
        """The deployment's budget, or 0 (the engine's own) for one not fitted."""
        return next((budget.tokens for budget in self.token_budgets
                     if (budget.model, budget.gpus) == (model, gpus)), 0)


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
