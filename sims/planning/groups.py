"""The planner's shared records: what the reader asks (`Ask`), a set-up the estimate
admits (`Candidate`), and the work one physics configuration's set-ups share (`Group`: its
formats, KV room, priced steps, lone-request bounds and capacities, each made once).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from sims.physics import Gpu, Model, Precision
from sims.planning import disaggregated, feasibility, space, verify
from sims.planning.estimate import Capacity, Curve, Point, Target, Traffic
from sims.serving.engines import Engine
from sims.serving.kv_space import KvSpace

UNLIMITED = 1 << 30
CURVES_KEPT = 1024  # a page's plan and the next: a few hundred groups each


_CURVES: dict[tuple, Curve] = {}


def curve_for(gpu: Gpu, model: Model, gpus: int, layout: str, precision: Precision,
              engine: Engine, space: KvSpace, traffic: Traffic, chunk: int, closed: bool
              ) -> Curve:
    """The Curve of this configuration, kept (the CURVES_KEPT latest): its priced steps
    depend on none of the target, the load's size or the prices, so a reader who moves
    those reprices nothing. A Curve only adds to its own caches, so sharing it is safe.
    Keyed by the Model object, not its key: two pasted configs are both "custom"
    (sims.physics.model_choice)."""
    key = (gpu.key, model, gpus, layout, precision, engine.key, traffic, chunk, closed)
    found = _CURVES.get(key)
    if found is None:
        if len(_CURVES) >= CURVES_KEPT:
            del _CURVES[next(iter(_CURVES))]
        found = _CURVES[key] = Curve(gpu, model, gpus, layout, precision, engine, space,
                                     traffic, chunk, closed)
    return found


class Ask(NamedTuple):
    """What the reader asks for."""

    model: Model
    engine: Engine
    gpus: tuple[Gpu, ...]
    isl: int
    osl: int
    spread: float
    load: verify.Load
    target: Target  # as the reader gave it
    prices: dict[str, float | None]
    ttft_scale: float = 1.0  # the model's latencies times these ("fitted to your
    tpot_scale: float = 1.0  # measurements"); 1: the physics as it is


class Candidate(NamedTuple):
    setup: space.Setup
    replicas: int
    price: float
    capacity: Point
    binding: str


class Group:
    """One physics configuration's shared work: formats, KV room, priced steps."""

    def __init__(self, ask: Ask, gpu: Gpu, key: tuple[str, int, str, str, str],
                 traffic: Traffic, requests: tuple, target: Target) -> None:
        _, self.gpus, self.layout, weights, kv = key
        self.gpu, self.reason = gpu, feasibility.group_reason(gpu, ask.model, self.gpus,
                                                              self.layout)
        self.curve: Curve | None = None
        self._capacity: dict[int, Capacity] = {}
        self._lone: dict[int, feasibility.Lone] = {}
        self._prefill: dict[int, disaggregated.Prefill | None] = {}
        self._transfer: float | None = None
        if self.reason:
            return
        self.precision = space.precision_of(gpu, ask.model, space.Setup(*key, 0, 0, False))
        self.space = feasibility.space_of(gpu, ask.model, self.gpus, self.precision,
                                          self.layout)
        self.reason = feasibility.memory_reason(gpu, ask.model, self.gpus, self.space,
                                                requests)
        self.ask, self.traffic, self.requests, self.target = ask, traffic, requests, target
        if not self.reason:
            chunk = min(ask.isl, min(t for _, t in space.knobs(ask.engine)))
            self.curve = curve_for(gpu, ask.model, self.gpus, self.layout, self.precision,
                                   ask.engine, self.space, traffic, chunk,
                                   bool(ask.load.users))

    def lone_reason(self, budget: int, transfer: float = 0.0) -> str | None:
        found = self._lone.get(budget)
        if found is None:
            found = self._lone[budget] = feasibility.lone(
                self.gpu, self.ask.model, self.gpus, self.layout, self.precision,
                self.ask.engine, budget, self.requests, self.target.share)
        return feasibility.lone_reason(found, self.target, transfer, self.traffic.osl)

    def transfer_s(self) -> float:
        """One request's KV cache sent between the pools (disaggregated set-ups)."""
        if self._transfer is None:
            assert self.curve is not None
            self._transfer = disaggregated.transfer_s(self.gpu, self.curve, self.gpus,
                                                      self.layout)
        return self._transfer

    def prefill(self, budget: int) -> disaggregated.Prefill | None:
        """A prefill replica's capacity at this budget (shared by the batch limits)."""
        if budget not in self._prefill:
            assert self.curve is not None
            self._prefill[budget] = disaggregated.prefill_pool(self.curve, self.target, budget)
        return self._prefill[budget]

    def capacity(self, budget: int) -> Capacity:
        """The estimate with no batch limit but the budget's (and KV room)."""
        if budget not in self._capacity:
            assert self.curve is not None
            self._capacity[budget] = self.curve.capacity(self.target, UNLIMITED, budget)
        return self._capacity[budget]


def limited(group: Group, found: Capacity, max_batch: int, budget: int
             ) -> tuple[Point | None, str]:
    """The estimate under a batch limit: latencies grow with the load, so the highest load
    within the limit is the unlimited one's or the limit itself, whichever is lower."""
    assert group.curve is not None
    limit = min(max_batch, budget) * group.curve.ranks
    if found.point is None or found.point.n <= limit:
        return found.point, found.binding
    point = group.curve.point(float(limit), group.target, max_batch, budget)
    return point, f"queueing (batch limit {limit})"


def replicas_for(load: verify.Load, point: Point) -> int:
    if load.users:
        return max(1, min(load.users, math.ceil(load.users / point.concurrency - 1e-9)))
    return max(1, math.ceil(load.rate / point.rate - 1e-9))


def cost(candidate: Candidate, replicas: int) -> float:
    return replicas * candidate.setup.gpus * candidate.price
