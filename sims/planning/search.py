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

from typing import Any

from sims.kit import progress
from sims.planning import feasibility, space, verify
from sims.planning.estimate import VERIFY_REQUESTS, Target, Traffic
from sims.planning.groups import Ask, Candidate, Group, limited, replicas_for
from sims.planning.prices import price_of, price_source
from sims.planning.ranking import STEPS, verify_cheapest
from sims.planning.report import accuracy_note, disaggregated_entry, frontier
from sims.serving.deploy import MAX_TOKENS
from sims.serving.workload import draw, percentile

MOST_ESTIMATED = 30  # unverified candidates listed after the verified ones


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

    progress.report(0, STEPS, f"Ruling out and estimating {len(setups):,} set-ups")
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
            transfer = group.transfer_s()
            reason = group.lone_reason(setup.token_budget, transfer)
            if reason:
                rule_out(setup, reason)
                continue
            found = disaggregated_entry(ask, group, setup, price, transfer, target)
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
        point, binding = limited(group, group.capacity(setup.token_budget), setup.max_batch,
                                  setup.token_budget)
        if point is None:
            rule_out(setup, "the target is out of reach by the steady-state estimate (an "
                            f"optimistic one) at every load it tried: {binding} binds first")
            continue
        candidates.append(Candidate(setup, replicas_for(ask.load, point), price, point, binding))

    verified, runs, estimated = verify_cheapest(ask, groups, candidates, target, label, share)
    estimated += estimated_disaggregated
    estimated.sort(key=lambda e: e["cost_per_hour"])
    return {
        "setups": verified,
        "estimated": estimated[:MOST_ESTIMATED],
        "ruled_out": ruled_out,
        "searched": len(setups),
        "candidates": len(candidates) + len(estimated_disaggregated),
        "serve_runs": runs,
        "frontier": frontier(ask, groups),
        "prices": {gpu.key: price_source(gpu, ask.prices) for gpu in ask.gpus},
        "accuracy": accuracy_note(ask, groups, verified),
    }
