"""KV memory: how many requests one replica holds at once, and what its allocator wastes.

The room: each GPU's usable memory less its share of the weights, and what a token adds to
the KV cache on each GPU (grouped-query or latent attention, sliding windows, BF16 or FP8
KV: all from the catalogue, through sims.serving.kv_space). A backlog of requests with prompt and
answer lengths drawn as the goodput sim draws them (sims.serving.workload) then fills that room
under each allocator (sims.serving.kv_allocators): contiguous ranges reserved for each request's
prompt plus its answer limit, or paged blocks of `block_size` tokens. The summary gives the
chosen allocator's figures and the other's beside them.

When a paged cache runs out, a request is preempted; it comes back later either recomputed
(a prefill of every token it held: `sims.serving.step_table`, as the goodput sim prices steps) or
swapped (its KV copied to host memory and back over the GPU's host link, at the link's full
rate). The block-size sweep reruns the paged allocator at BLOCK_SWEEP sizes.
"""

from __future__ import annotations

from sims import kv_memory_charts
from sims.kit import memo
from sims.kit.contract import Choice, Number, simulation
from sims.kit.phased import Phased, Rest
from sims.physics import (
    GPUS,
    TP_DEGREES,
    WEIGHTS_INPUT,
    Work,
    check_group,
    precision_for,
)
from sims.physics.accuracy import step_regime, throughput_note
from sims.physics.model_choice import model_for, model_inputs
from sims.serving.kv_allocators import contiguous, paged
from sims.serving.kv_meter import EXTERNAL, FUTURE, NEVER, SLACK, Outcome
from sims.serving.kv_space import kv_space, swap_s
from sims.serving.step_table import step_table
from sims.serving.workload import draw

TITLE = "Memory, not compute, decides how many people you serve"

ALLOCATORS = ("paged", "contiguous")
BLOCK_SIZES = tuple(str(1 << k) for k in range(9))  # 1 to 256 tokens
BLOCK_SWEEP = (1, 4, 16, 64, 256)
KV_FORMATS = ("bf16", "fp8")
PREEMPTIONS = ("recompute", "swap")
LENGTH_CAP = 8  # as in the goodput sim: a draw is capped at this many times its mean
PROMPT_CAP = 32768
NO_HOST_LINK = "no host-link figure in the catalogue"

INPUTS = (
    Choice("allocator", "Allocator", "paged", ALLOCATORS,
           help="Paged: blocks handed out as sequences grow. Contiguous: one range per "
                "request, reserved for its prompt plus the answer limit."),
    Choice("block_size", "Block size", "16", BLOCK_SIZES, help="Tokens per paged block."),
    Choice("kv_precision", "KV cache format", "bf16", KV_FORMATS,
           help="FP8 stores each cached value in half the bytes."),
    Number("prompt_tokens", "Mean prompt", default=2048, min=16, max=16384, step=16,
           unit="tokens"),
    Number("output_tokens", "Mean answer", default=256, min=1, max=4096, unit="tokens"),
    Number("max_output_tokens", "Answer limit", default=2048, min=16, max=8192, step=16,
           unit="tokens", help="The longest answer a request may give; a contiguous "
                               "allocator reserves room for it."),
    Number("length_spread", "Length spread", default=1.0, min=0.0, max=2.0, step=0.1,
           help="Standard deviation over mean of both lengths (log-normal)."),
    Number("requests", "Backlog", default=400, min=100, max=2000, step=50, unit="requests",
           help="Requests waiting at the start: enough to keep the cache full."),
    Choice("preemption", "When memory runs out", "recompute", PREEMPTIONS,
           help="Recompute: prefill the preempted request again. Swap: copy its KV to host "
                "memory and back."),
    Number("seed", "Random seed", default=1, min=0, max=999),
    *model_inputs("llama-3.1-8b"),
    Choice("gpu", "GPU", "h100", tuple(GPUS)),
    Choice("tp", "Tensor-parallel GPUs", "1", tuple(str(t) for t in TP_DEGREES)),
    WEIGHTS_INPUT,
)

# Issue 18 allows a load sim 100 ms at its most expensive inputs (the others get 20).
WORST_MS = 100
# The slowest inputs found (scripts/bench/native.py tries these first): the largest backlog
# of long-tailed long answers, on a replica with room for hundreds of them, so that every
# allocator runs its MAX_STEPS with many sequences to grow.
WORST_CASE = {
    "prompt_tokens": 1000, "output_tokens": 4096, "max_output_tokens": 8192,
    "length_spread": 2.0, "requests": 2000, "model": "deepseek-v3", "gpu": "h200", "tp": "8",
}

METRICS = {
    "max_concurrent_requests": "Most requests in flight at once (requests)",
    "mean_concurrent_requests": "Requests in flight on average while others waited (requests)",
    "kv_bytes_per_token": "KV bytes each token of context adds on each GPU (bytes)",
    "window_bytes_per_request": ("KV each request holds on each GPU whatever its length: "
                                 "full sliding windows and chunks, linear state (bytes)"),
    "usable_kv_bytes": "KV room on each GPU: usable memory less the weights (bytes)",
    "kv_capacity_tokens": "Tokens of context that room holds (tokens)",
    "waste_fraction": "Share of the room held without tokens in it, or in unusable gaps",
    "reserved_fraction": "...of which reserved for tokens still to come",
    "internal_fraction": "...of which internal fragmentation (never to be used)",
    "external_fraction": "...of which external fragmentation (gaps too small)",
    "contiguous_waste_fraction": "Contiguous allocator: waste share",
    "paged_waste_fraction": "Paged allocator: waste share",
    "contiguous_mean_concurrent": "Contiguous allocator: requests in flight on average",
    "paged_mean_concurrent": "Paged allocator: requests in flight on average",
    "contiguous_max_concurrent": "Contiguous allocator: most requests in flight at once",
    "paged_max_concurrent": "Paged allocator: most requests in flight at once",
    "preemptions": "Requests preempted when a step needed memory there was not",
    "mean_preempted_tokens": "Tokens a preempted request held, on average (tokens)",
    "recompute_s_per_preemption": "Recomputing one: a prefill of what it held (s)",
    "swap_s_per_preemption": "Swapping one out and back in over the host link (s)",
    "preemption_cost_s": "All preemptions, the chosen way (s)",
    "refused": "Requests too long for the room even alone (refused)",
    "fits": "The weights leave room for a KV cache",
    "memory": "What the weights leave for the KV cache on each GPU",
    "accuracy": "Regime of a decode step of the requests in flight and of whole runs, and "
                "the measured error",
}


# Each allocator's runs, remembered: a run depends on the backlog, the room and its own
# parameter alone, so switching the allocator, the preemption cost or a block size the sweep
# already ran, or moving an input back, runs nothing again. Two changes' worth: the
# contiguous run and the sweep's paged runs (one more for a block size off the sweep).
_contiguous = memo.kept(maxsize=2)(contiguous)
_paged = memo.kept(maxsize=2 * (len(BLOCK_SWEEP) + 1))(paged)


def _mean(values: list[float] | list[int]) -> float:
    return sum(values) / len(values) if values else 0.0


def _shares(outcome: Outcome) -> tuple[float, float, float]:
    shares = outcome.shares
    return shares[FUTURE], shares[NEVER] + shares[SLACK], shares[EXTERNAL]


@simulation(INPUTS)
def simulate(
    *, allocator: str, block_size: str, kv_precision: str, prompt_tokens: int,
    output_tokens: int, max_output_tokens: int, length_spread: float, requests: int,
    preemption: str, seed: int, model: str, model_config: str, gpu: str, tp: str, weights: str,
) -> Phased:
    chip, shape, group, block = GPUS[gpu], model_for(model, model_config), int(tp), int(block_size)
    check_group(chip, shape, group)
    precision = precision_for(chip, shape, weights, kv=kv_precision)
    space = kv_space(chip, shape, group, precision)
    slots, window = space.token_slots(), space.window_slots()
    backlog = draw(requests, seed, "poisson", prompt_tokens, output_tokens, length_spread,
                   min(PROMPT_CAP, LENGTH_CAP * prompt_tokens),
                   min(max_output_tokens, LENGTH_CAP * output_tokens))

    # The summary reads two runs; the block-size sweep feeds one chart, after them.
    runs = {"contiguous": _contiguous(backlog, slots, window, max_output_tokens),
            "paged": _paged(backlog, slots, window, block)}
    chosen = runs[allocator]

    table = step_table(chip, shape, group, precision)
    victims = chosen.preempted_tokens
    recompute = [table.time_s(0, 0, tokens, 0.0) for tokens in victims]
    known = chip.host_link_bytes_per_s is not None
    swaps = [swap_s(space, chip, tokens) or 0.0 for tokens in victims]
    reserved, internal, external = _shares(chosen)
    # The requests in flight on average, each holding its prompt and half its answer.
    flight = Work(1, round(prompt_tokens + output_tokens / 2),
                  count=max(1, round(chosen.mean_running)))
    regime = step_regime(chip, shape, precision, group, "tp", [flight])
    summary = {
        "max_concurrent_requests": chosen.max_running,
        "mean_concurrent_requests": chosen.mean_running,
        "kv_bytes_per_token": space.bytes_per_token,
        "window_bytes_per_request": space.window_bytes,
        "usable_kv_bytes": max(0.0, space.usable_bytes),
        "kv_capacity_tokens": slots,
        "waste_fraction": chosen.waste,
        "reserved_fraction": reserved,
        "internal_fraction": internal,
        "external_fraction": external,
        "contiguous_waste_fraction": runs["contiguous"].waste,
        "paged_waste_fraction": runs["paged"].waste,
        "contiguous_mean_concurrent": runs["contiguous"].mean_running,
        "paged_mean_concurrent": runs["paged"].mean_running,
        "contiguous_max_concurrent": runs["contiguous"].max_running,
        "paged_max_concurrent": runs["paged"].max_running,
        "preemptions": len(victims),
        "mean_preempted_tokens": _mean(victims),
        "recompute_s_per_preemption": _mean(recompute),
        "swap_s_per_preemption": _mean(swaps) if known else NO_HOST_LINK,
        "preemption_cost_s": (sum(recompute) if preemption == "recompute" else
                              sum(swaps) if known else NO_HOST_LINK),
        "refused": chosen.refused,
        "fits": space.fits,
        "memory": space.reason(chip.name),
        "accuracy": f"Decode step at batch {flight.count}, about {flight.context_tokens:,} "
                    f"tokens each (the requests in flight on average): {regime}. "
                    f"{throughput_note(chip, named=False)}",
    }
    longest = max(prompt_tokens + max_output_tokens, 512)

    def rest() -> Rest:
        sweep = {size: _paged(backlog, slots, window, size) for size in BLOCK_SWEEP}
        return {}, kv_memory_charts.later_charts(sweep, block, table, space, chip, longest)

    return Phased(summary, kv_memory_charts.first_charts(allocator, runs), rest)
