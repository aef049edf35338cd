"""A plan: every set-up of the search ruled out with its reason or estimated, the cheapest
estimated ones run through `serve` until the cheapest few are verified, and the frontier.

How it goes (sims.planning's modules do each part):

1. the set-ups (`space`), grouped by what their steps' prices depend on (GPU, GPUs per
   replica, parallelism, formats), so each group's checks and priced steps serve all its
   batch limits, budgets and poolings;
2. exact rule-outs (`feasibility`), cheapest first: no price, a group the physics cannot
   price, weights that do not fit, a KV room smaller than one request, a request alone
   that already misses the target;
3. the estimate (`estimate`, `disaggregated`): the highest per-replica load within the
   target, the replicas the whole load needs, what they cost;
4. verification (`verify`): aggregated candidates cheapest first through `serve`, replicas
   added until serve's own percentiles meet the target, until MOST_VERIFIED are verified
   or MOST_RUNS runs are spent (a count of runs, never a clock: the same inputs give the
   same plan in every runtime).
"""

from __future__ import annotations

import heapq
import math
from typing import Any, NamedTuple

from sims.physics import Gpu, Model, Work
from sims.physics.accuracy import step_regime, throughput_note
from sims.planning import disaggregated, feasibility, space, verify
from sims.planning.estimate import VERIFY_REQUESTS, Capacity, Curve, Point, Target, Traffic
from sims.planning.prices import price_of, price_source
from sims.serving.deploy import MAX_TOKENS, accuracy
from sims.serving.engines import Engine
from sims.serving.workload import draw, percentile

MOST_VERIFIED = 5
MOST_RUNS = 16
MOST_ESTIMATED = 30  # unverified candidates listed after the verified ones
HOURS = 3600.0
UNLIMITED = 1 << 30


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
    prices: dict[str, float]
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
            self.curve = Curve(gpu, ask.model, self.gpus, self.layout, self.precision,
                               ask.engine, self.space, traffic, chunk, bool(ask.load.users))

    def lone_reason(self, budget: int, transfer: float = 0.0) -> str | None:
        found = self._lone.get(budget)
        if found is None:
            found = self._lone[budget] = feasibility.lone(
                self.gpu, self.ask.model, self.gpus, self.layout, self.precision,
                self.ask.engine, budget, self.requests, self.target.share)
        return feasibility.lone_reason(found, self.target, transfer, self.traffic.osl)

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


def _limited(group: Group, found: Capacity, max_batch: int, budget: int
             ) -> tuple[Point | None, str]:
    """The estimate under a batch limit: latencies grow with the load, so the highest load
    within the limit is the unlimited one's or the limit itself, whichever is lower."""
    assert group.curve is not None
    limit = min(max_batch, budget) * group.curve.ranks
    if found.point is None or found.point.n <= limit:
        return found.point, found.binding
    point = group.curve.point(float(limit), group.target, max_batch, budget)
    return point, f"queueing (batch limit {limit})"


def _replicas(load: verify.Load, point: Point) -> int:
    if load.users:
        return max(1, min(load.users, math.ceil(load.users / point.concurrency - 1e-9)))
    return max(1, math.ceil(load.rate / point.rate - 1e-9))


def _percentiles(run: verify.Run, scale_ttft: float, scale_tpot: float, label: str,
                 share: float) -> dict[str, dict[str, float]]:
    found = {}
    for name, scale, mine in (("ttft_s", scale_ttft, run.ttft_s),
                              ("tpot_s", scale_tpot, run.tpot_s)):
        figures = run.figures[name] or {"p50": 0.0, "p90": 0.0, "p99": 0.0}
        entry = {k: figures[k] * scale for k in ("p50", "p90", "p99")}
        entry[f"p{label}"] = mine * scale
        found[name] = entry
    return found


def plan(ask: Ask) -> dict[str, Any]:
    """The plan as plain JSON (see the module's docstring)."""
    share = ask.target.share
    label = feasibility.share_label(share)
    requests = draw(VERIFY_REQUESTS, verify.SEED, "poisson", ask.isl, ask.osl,
                    ask.spread, MAX_TOKENS, MAX_TOKENS)
    prompts = sorted(r.prompt_tokens for r in requests)
    traffic = Traffic(sum(prompts) / len(prompts),
                      sum(r.output_tokens for r in requests) / len(requests),
                      percentile(prompts, share))
    # What the physics must reach for the scaled latencies to meet the reader's target.
    target = Target(ask.target.ttft_s / ask.ttft_scale, ask.target.tpot_s / ask.tpot_scale,
                    share)
    setups = space.setups(list(ask.gpus), ask.model, ask.engine)
    gpus = {gpu.key: gpu for gpu in ask.gpus}
    groups: dict[tuple, Group] = {}
    ruled_out: list[dict[str, Any]] = []
    candidates: list[Candidate] = []
    estimated_disaggregated: list[dict[str, Any]] = []

    def rule_out(setup: space.Setup, reason: str) -> None:
        ruled_out.append({**setup.describe(), "reason": reason})

    for setup in setups:
        gpu = gpus[setup.gpu]
        price = price_of(gpu, ask.prices)
        if price is None:
            rule_out(setup, f"no price: {price_source(gpu, ask.prices)} (give one, e.g. "
                            f"--price {gpu.key}=2.5)")
            continue
        group = groups.get(setup.physics)
        if group is None:
            group = groups[setup.physics] = Group(ask, gpu, setup.physics, traffic, requests,
                                                  target)
        if group.reason:
            rule_out(setup, group.reason)
            continue
        assert group.curve is not None
        if setup.disaggregated:
            reason = feasibility.transfer_reason(gpu)
            if reason:
                rule_out(setup, reason)
                continue
            transfer = disaggregated.transfer_s(gpu, group.curve, setup.gpus, setup.parallel)
            reason = group.lone_reason(setup.token_budget, transfer)
            if reason:
                rule_out(setup, reason)
                continue
            found = _disaggregated(ask, group, setup, price, transfer, target)
            if found is None:
                rule_out(setup, "the target is out of reach by the steady-state estimate "
                                "(an optimistic one): one of the two pools meets it at no load")
                continue
            estimated_disaggregated.append(found)
            continue
        reason = group.lone_reason(setup.token_budget)
        if reason:
            rule_out(setup, reason)
            continue
        point, binding = _limited(group, group.capacity(setup.token_budget), setup.max_batch,
                                  setup.token_budget)
        if point is None:
            rule_out(setup, "the target is out of reach by the steady-state estimate (an "
                            f"optimistic one) at every load it tried: {binding} binds first")
            continue
        candidates.append(Candidate(setup, _replicas(ask.load, point), price, point, binding))

    verified, runs, estimated = _verify(ask, groups, candidates, target, label, share)
    estimated += estimated_disaggregated
    estimated.sort(key=lambda e: e["cost_per_hour"])
    return {
        "setups": verified,
        "estimated": estimated[:MOST_ESTIMATED],
        "ruled_out": ruled_out,
        "searched": len(setups),
        "candidates": len(candidates) + len(estimated_disaggregated),
        "serve_runs": runs,
        "frontier": _frontier(ask, groups),
        "prices": {gpu.key: price_source(gpu, ask.prices) for gpu in ask.gpus},
        "accuracy": _accuracy(ask, groups, verified),
    }


def _accuracy(ask: Ask, groups: dict[tuple, Group], verified: list[dict[str, Any]]) -> str:
    """The regime of the cheapest verified set-up's decode step (at its load, as serve ran
    it) and the measured error there, then the engine's served runs against published ones;
    with no verified set-up, the engine's alone (and the GPU's, when only one is asked)."""
    engine = accuracy(ask.engine)
    if not verified:
        if len(ask.gpus) == 1:
            return f"No set-up verified. {throughput_note(ask.gpus[0])}. {engine}"
        return f"No set-up verified. {engine}"
    best = verified[0]
    key = (best["gpu"], best["gpus_per_replica"], best["parallel"], best["weights"],
           best["kv"])
    group = groups[key]
    decoding = max(1, min(4096, round(best["estimated_capacity"]["concurrency"])))
    context = round(ask.isl + ask.osl / 2)
    regime = step_regime(group.gpu, ask.model, group.precision, group.gpus, group.layout,
                         [Work(1, context, count=decoding)])
    return (f"Decode step of the cheapest set-up at batch {decoding}, about {context:,} "
            f"tokens each: {regime}. {throughput_note(group.gpu, named=False)}. {engine}")


def _cost(candidate: Candidate, replicas: int) -> float:
    return replicas * candidate.setup.gpus * candidate.price


def _verify(ask: Ask, groups: dict[tuple, Group], candidates: list[Candidate],
            target: Target, label: str, share: float
            ) -> tuple[list[dict[str, Any]], int, list[dict[str, Any]]]:
    """Cheapest first through serve (the module's docstring; verify's for the order)."""
    # Ties in cost go to the set-up whose estimate serves the most, then the search's order.
    order = sorted(range(len(candidates)),
                   key=lambda i: (_cost(candidates[i], candidates[i].replicas),
                                  -candidates[i].capacity.rate, -candidates[i].setup.max_batch,
                                  i))
    rank = {index: place for place, index in enumerate(order)}
    # One batch limit per (physics, budget) goes to serve: the cheapest by the estimate. A
    # smaller limit only caps the batch, so where the larger one misses at a count of
    # replicas it misses too; those set-ups keep their estimates.
    chosen: dict[tuple, int] = {}
    for index in order:
        chosen.setdefault((candidates[index].setup.physics,
                           candidates[index].setup.token_budget), index)
    picked = set(chosen.values())
    heap = [(_cost(c, c.replicas), rank[index], index, c.replicas, 0, None)
            for index, c in enumerate(candidates) if index in picked]
    left: list[tuple] = [(_cost(c, c.replicas), rank[index], index, c.replicas, 0, None)
                         for index, c in enumerate(candidates) if index not in picked]
    heapq.heapify(heap)
    verified: list[dict[str, Any]] = []
    done: set[tuple] = set()  # physics verified: its other knobs cost no less, skip them
    runs = 0
    most = ask.load.most_replicas()
    while heap and len(verified) < MOST_VERIFIED:
        cost, place, index, replicas, failed_below, result = heapq.heappop(heap)
        candidate = candidates[index]
        if result is not None:
            verified.append(_entry(ask, candidate, replicas, result, label, share, index))
            done.add(candidate.setup.physics)
            continue
        if candidate.setup.physics in done:
            left.append((cost, place, index, replicas, failed_below, None))
            continue
        if runs >= MOST_RUNS:
            heapq.heappush(heap, (cost, place, index, replicas, failed_below, None))
            break
        group = groups[candidate.setup.physics]
        setup = candidate.setup
        try:
            found = verify.run(group.gpu, ask.model, ask.engine, setup.gpus, setup.parallel,
                               group.precision, ask.isl, ask.osl, ask.spread, ask.load,
                               replicas, setup.max_batch, setup.token_budget, share)
        except ValueError:
            runs += 1  # a longer request of a longer run does not fit: drop it
            continue
        runs += 1
        if verify.meets(found, target):
            if replicas - failed_below > 1 and failed_below:
                # After a jump: bisect back toward the last count that missed.
                lower = (replicas + failed_below) // 2
                if lower > failed_below:
                    heapq.heappush(heap, (_cost(candidate, lower), place, index, lower,
                                          failed_below, None))
                    continue
            heapq.heappush(heap, (cost, place, index, replicas, failed_below, found))
            continue
        more = verify.next_count(replicas, found, target)
        if most is not None and replicas >= most:
            continue  # every user on a replica of their own already misses
        if most is not None:
            more = min(more, most)
        heapq.heappush(heap, (_cost(candidate, more), place, index, more, replicas, None))
    seen = {entry.pop("_index") for entry in verified}
    # What serve showed of each (physics, budget): at least this many replicas. A batch
    # variant left out of the runs needs no fewer (module docstring of verify).
    fewest: dict[tuple, int] = {}
    for _, _, index, replicas, _, _ in heap:
        setup = candidates[index].setup
        fewest[(setup.physics, setup.token_budget)] = replicas
    rest = []
    for _, place, index, replicas, _, _ in heap + left:
        if index in seen:
            continue
        setup = candidates[index].setup
        count = max(replicas, fewest.get((setup.physics, setup.token_budget), 0))
        rest.append((_cost(candidates[index], count), place, index, count))
    estimated = [_estimated(ask, candidates[index], count)
                 for _, _, index, count in sorted(rest)]
    return verified, runs, estimated


def _throughput(ask: Ask, point: Point) -> float:
    """Output tokens per second of one replica at the estimate's load."""
    return point.rate * ask.osl


def _entry(ask: Ask, candidate: Candidate, replicas: int, run: verify.Run, label: str,
           share: float, index: int) -> dict[str, Any]:
    setup = candidate.setup
    rate, users = ask.load.share(replicas)
    figures = run.figures
    per_hour = _cost(candidate, replicas)
    tokens = figures["output_tokens_per_s"] * replicas
    entry: dict[str, Any] = {
        "_index": index,
        **setup.describe(),
        "replicas": replicas,
        "gpus": replicas * setup.gpus,
        "price_per_gpu_hour": candidate.price,
        "cost_per_hour": per_hour,
        "cost_per_million_output_tokens": per_hour / (tokens * HOURS) * 1e6,
        "binding_limit": candidate.binding,
        **_percentiles(run, ask.ttft_scale, ask.tpot_scale, label, share),
        "output_tokens_per_s_per_gpu": figures["output_tokens_per_s_per_gpu"],
        "output_tokens_per_s_per_user": figures["output_tokens_per_s_per_user"],
        "per_replica_load": {"concurrency": users} if users else {"rate": rate},
        "estimated_capacity": {"rate": candidate.capacity.rate,
                               "concurrency": candidate.capacity.concurrency},
        "verified": True,
        "serve": _serve_inputs(ask, setup, rate, users, run.requests),
    }
    return entry


def _serve_inputs(ask: Ask, setup: space.Setup, rate: float, users: int, count: int
                  ) -> dict[str, Any]:
    """The `python -m sims serve` inputs that reproduce the verification run."""
    found: dict[str, Any] = {
        "model": ask.model.key,
        "gpu": setup.gpu, "gpus": setup.gpus, "parallel": setup.parallel,
        "weights": setup.weights, "kv": setup.kv, "engine": ask.engine.key,
        "isl": ask.isl, "osl": ask.osl, "requests": count, "length_spread": ask.spread,
        "seed": verify.SEED, "max_batch": setup.max_batch, "token_budget": setup.token_budget,
    }
    found.update({"concurrency": users} if users else {"rate": rate})
    return found


def _estimated(ask: Ask, candidate: Candidate, replicas: int) -> dict[str, Any]:
    setup, point = candidate.setup, candidate.capacity
    per_hour = _cost(candidate, replicas)
    tokens = min(_throughput(ask, point) * replicas,
                 (ask.load.rate or point.rate * replicas) * ask.osl)
    return {
        **setup.describe(), "replicas": replicas, "gpus": replicas * setup.gpus,
        "price_per_gpu_hour": candidate.price, "cost_per_hour": per_hour,
        "cost_per_million_output_tokens": per_hour / (tokens * HOURS) * 1e6,
        "binding_limit": candidate.binding,
        "ttft_s": {f"p{feasibility.share_label(ask.target.share)}":
                   point.ttft_s * ask.ttft_scale},
        "tpot_s": {f"p{feasibility.share_label(ask.target.share)}":
                   point.tpot_s * ask.tpot_scale},
        "estimated_capacity": {"rate": point.rate, "concurrency": point.concurrency},
        "verified": False,
    }


def _disaggregated(ask: Ask, group: Group, setup: space.Setup, price: float,
                   transfer: float, target: Target) -> dict[str, Any] | None:
    assert group.curve is not None
    found = disaggregated.pools(group.curve, target, transfer, setup.max_batch,
                                setup.token_budget, group.prefill(setup.token_budget))
    base = {**setup.describe(), "price_per_gpu_hour": price, "verified": False,
            "kv_transfer_s": transfer}
    if found is None:
        return None
    rate = ask.load.rate or ask.load.users / (found.ttft_s + (ask.osl - 1) * found.tpot_s)
    prefills = disaggregated.replicas(rate, found.prefill_rate)
    decodes = disaggregated.replicas(rate, found.decode_rate)
    per_hour = (prefills + decodes) * setup.gpus * price
    label = f"p{feasibility.share_label(ask.target.share)}"
    return {**base, "replicas": prefills + decodes, "prefill_replicas": prefills,
            "decode_replicas": decodes, "gpus": (prefills + decodes) * setup.gpus,
            "cost_per_hour": per_hour,
            "cost_per_million_output_tokens": per_hour / (rate * ask.osl * HOURS) * 1e6,
            "binding_limit": found.binding,
            "ttft_s": {label: found.ttft_s * ask.ttft_scale},
            "tpot_s": {label: found.tpot_s * ask.tpot_scale}}


def _frontier(ask: Ask, groups: dict[tuple, Group]) -> list[dict[str, Any]]:
    """Per GPU type, the best output tokens/s per GPU at each tokens/s per user that its
    aggregated set-ups' priced loads reach (the Pareto frontier of the estimate)."""
    rows = []
    by_gpu: dict[str, list[tuple[float, float]]] = {}
    for group in groups.values():
        if group.curve is None:
            continue
        for budget, found in group._capacity.items():
            del budget
            for point in found.curve:
                if point.fits and point.stable and point.tpot_mean_s > 0:
                    by_gpu.setdefault(group.gpu.key, []).append(
                        (1 / point.tpot_mean_s, point.rate * ask.osl / group.gpus))
    for key, points in by_gpu.items():
        best = -1.0
        for per_user, per_gpu in sorted(points, reverse=True):
            if per_gpu > best:
                best = per_gpu
                rows.append({"gpu": key, "per_user": per_user, "per_gpu": per_gpu})
    return rows
