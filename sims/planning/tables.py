"""The plan as tables (the page shows them, the downloads' CSV and JSON carry them): the
set-ups that meet the target, the set-ups ruled out, and measured points against ours.
"""

from __future__ import annotations

from typing import Any

from sims.planning.feasibility import share_label

SETUP_COLUMNS = (
    ("gpu", "GPU"), ("gpus_per_replica", "GPUs per replica"), ("parallel", "Parallelism"),
    ("weights", "Weights"), ("kv", "KV cache"), ("max_batch", "Batch limit (sequences)"),
    ("token_budget", "Token budget (tokens)"), ("disaggregated", "Disaggregated"),
)
# Ruled-out set-ups that differ only in the scheduler's knobs share their reason: one row.
RULED_OUT_KEYS = ("gpu", "gpus_per_replica", "parallel", "weights", "kv", "disaggregated")


def _columns(pairs: tuple[tuple[str, str], ...]) -> list[dict[str, str]]:
    return [{"key": key, "label": label} for key, label in pairs]


def plan_tables(result: dict[str, Any], share: float) -> list[dict[str, Any]]:
    """The plan as the page's tables (and the downloads' CSV and JSON): the set-ups that
    meet the target, cheapest first, with serve's latencies at the target's percentile; the
    next candidates by the estimate alone; the set-ups ruled out, each with its reason."""
    label = f"p{share_label(share)}"
    met = [{**{key: setup[key] for key, _ in SETUP_COLUMNS},
            "replicas": setup["replicas"], "gpus": setup["gpus"],
            "cost_per_hour": setup["cost_per_hour"],
            "cost_per_million_output_tokens": setup["cost_per_million_output_tokens"],
            "ttft_s": setup["ttft_s"][label], "tpot_s": setup["tpot_s"][label],
            "binding_limit": setup["binding_limit"]}
           for setup in result["setups"]]
    latency = (("ttft_s", f"First token, {label} (s)"),
               ("tpot_s", f"Time per output token, {label} (s)"))
    cost = (("replicas", "Replicas"), ("gpus", "GPUs in all"),
            ("cost_per_hour", "Cost (USD/h)"),
            ("cost_per_million_output_tokens", "Cost per million output tokens (USD)"))
    seen: set[tuple[Any, ...]] = set()
    ruled_out = []
    for setup in result["ruled_out"]:
        key = (*(setup[k] for k in RULED_OUT_KEYS), setup["reason"])
        if key not in seen:
            seen.add(key)
            ruled_out.append({**{k: setup[k] for k in RULED_OUT_KEYS}, "reason": setup["reason"]})
    return [
        {"title": "Set-ups that meet the target, cheapest first (latencies from serve's own "
                  "runs at each replica's share of the load)",
         "columns": _columns((*SETUP_COLUMNS, *cost, *latency,
                              ("binding_limit", "Limit that binds"))),
         "rows": met, "open": True},
        {"title": "Ruled out, with the reason (set-ups that differ only in batch limit or "
                  "token budget share a row)",
         "columns": _columns((*((k, dict(SETUP_COLUMNS)[k]) for k in RULED_OUT_KEYS),
                              ("reason", "Reason"))),
         "rows": ruled_out},
    ]


def compared_table(found: dict[str, Any] | None, statistic: str) -> dict[str, Any]:
    """Each measured point against ours, with the error of each (empty: nothing loaded)."""
    return {
        "title": f"Measured against predicted ({statistic}; error: ours / measured - 1)",
        "columns": _columns((
            ("load", "Load"), ("isl", "Prompt tokens"), ("osl", "Answer tokens"),
            ("measured_ttft_s", "First token, measured (s)"),
            ("ttft_s", "First token, ours (s)"), ("ttft_error", "First token, error"),
            ("measured_tpot_s", "Per token, measured (s)"),
            ("tpot_s", "Per token, ours (s)"), ("tpot_error", "Per token, error"))),
        "rows": found["rows"] if found else [],
    }
