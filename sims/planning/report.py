"""The plan's entries as plain JSON: a verified set-up (serve's latencies, its cost, the
`serve` inputs that reproduce its run), an estimated one, a disaggregated one, the frontier
of the chart, and the accuracy note.
"""

from __future__ import annotations

from typing import Any

from sims.physics import Work
from sims.physics.accuracy import step_regime, throughput_note
from sims.planning import disaggregated, feasibility, space, verify
from sims.planning.estimate import Point, Target
from sims.planning.groups import Ask, Candidate, Group, cost
from sims.serving.deploy import accuracy

HOURS = 3600.0


def percentiles(run: verify.Run, scale_ttft: float, scale_tpot: float, label: str,
                 share: float) -> dict[str, dict[str, float]]:
    """serve's first-token and per-token times (p50, p90, p99 and the target's percentile),
    and its gaps between tokens (p50, p90, p99), each times its scale."""
    found = {}
    for name, scale, mine in (("ttft_s", scale_ttft, run.ttft_s),
                              ("tpot_s", scale_tpot, run.tpot_s)):
        figures = run.figures[name] or {"p50": 0.0, "p90": 0.0, "p99": 0.0}
        entry = {k: figures[k] * scale for k in ("p50", "p90", "p99")}
        entry[f"p{label}"] = mine * scale
        found[name] = entry
    gaps = run.figures["itl_s"] or {"p50": 0.0, "p90": 0.0, "p99": 0.0}
    found["itl_s"] = {k: gaps[k] * scale_tpot for k in ("p50", "p90", "p99")}
    return found


def _throughput(ask: Ask, point: Point) -> float:
    """Output tokens per second of one replica at the estimate's load."""
    return point.rate * ask.osl


def entry(ask: Ask, candidate: Candidate, replicas: int, run: verify.Run, label: str,
           share: float, index: int) -> dict[str, Any]:
    setup = candidate.setup
    rate, users = ask.load.share(replicas)
    figures = run.figures
    per_hour = cost(candidate, replicas)
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
        **percentiles(run, ask.ttft_scale, ask.tpot_scale, label, share),
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


def estimated_entry(ask: Ask, candidate: Candidate, replicas: int) -> dict[str, Any]:
    setup, point = candidate.setup, candidate.capacity
    per_hour = cost(candidate, replicas)
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


def disaggregated_entry(ask: Ask, group: Group, setup: space.Setup, price: float,
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


def frontier(ask: Ask, groups: dict[tuple, Group]) -> list[dict[str, Any]]:
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


def accuracy_note(ask: Ask, groups: dict[tuple, Group], verified: list[dict[str, Any]]) -> str:
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
                         [Work(1, context, count=decoding)],
                         ask.engine.exchange_on(group.gpu, ask.model, group.gpus))
    return (f"Decode step of the cheapest set-up at batch {decoding}, about {context:,} "
            f"tokens each: {regime}. {throughput_note(group.gpu, named=False)}. {engine}")
