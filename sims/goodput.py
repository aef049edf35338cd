"""Goodput: requests arriving at a rate into one replica, and what the queue does to the tail.

Requests arrive at `request_rate` (Poisson, or bursty: see `sims.serving.workload`) with prompt and
answer lengths drawn from log-normal distributions the reader shapes, into one replica (a
catalogue GPU and model over `tp` GPUs) that runs iteration-level batching with chunked
prefill under a token budget and a KV-memory limit (`sims.serving.replica`; steps priced by the
shared physics through `sims.serving.step_table`).

For each request: its time to first token (TTFT: arrival to first token, queueing
included) and its time per output token (TPOT: the time from its first token to its last
over the tokens after the first). A request meets the SLO when its TTFT is within
`slo_ttft_s` and its TPOT within `slo_tpot_s`; attainment is the share that do (a refused
request, too long for the KV cache even alone, does not). Throughput is requests served
per second of the run (first arrival to last token), goodput the same counting only those
that met the SLO.

The sweep replays the very same requests (same lengths, same gaps scaled) at RATE_POINTS
rates from SWEEP_LOW to SWEEP_HIGH times an estimate of the replica's saturation rate
(`saturation_rps`), so the knee shows whatever the setup. Capacity is the highest rate at
which attainment stays at or above `slo_target` (DistServe's per-replica goodput; Vidur's
capacity search asks the same question): below the first swept rate that misses the
target, found by linear interpolation of attainment between it and the rate before.
"""

from __future__ import annotations

from sims import goodput_charts
from sims.kit.contract import Choice, Number, simulation
from sims.kit.phased import LATER, Phased, Rest
from sims.physics import (
    GPUS,
    LAYOUTS,
    TP_DEGREES,
    WEIGHTS_INPUT,
    Work,
    check_group,
    precision_for,
    prefill,
)
from sims.physics.accuracy import step_regime, throughput_note
from sims.physics.model_choice import model_for, model_inputs
from sims.serving.deploy import accuracy
from sims.serving.engines import ENGINES
from sims.serving.kv_space import kv_space
from sims.serving.rate_sweep import (
    SWEEP_HIGH,
    Scenario,
    Slo,
    capacity,
    saturated_decodes,
    sweep_rates,
)
from sims.serving.replica import Policy
from sims.serving.workload import ARRIVALS, draw, percentile

TITLE = "The p99 is set by the queue, not the GPU"

# A draw is capped at LENGTH_CAP times its mean (and at the absolute caps): a log-normal tail
# would otherwise give, now and then, an answer that outlasts the rest of the run.
LENGTH_CAP = 8
PROMPT_CAP = 32768  # tokens
OUTPUT_CAP = 8192  # tokens
SCHEDULERS = ("chunked", "prefill-first")

INPUTS = (
    Number("request_rate", "Arrival rate", default=10.0, min=0.1, max=500.0, step=0.1,
           unit="requests/s", help="Mean requests per second arriving at the replica."),
    Choice("arrivals", "Arrivals", "poisson", ARRIVALS,
           help="Poisson: independent arrivals. Bursty: the same mean rate in clumps (gaps "
                "three times as variable)."),
    Number("prompt_tokens", "Mean prompt", default=2048, min=16, max=8192, step=16,
           unit="tokens"),
    Number("output_tokens", "Mean answer", default=128, min=1, max=2048, unit="tokens"),
    Number("length_spread", "Length spread", default=1.0, min=0.0, max=2.0, step=0.1,
           help="Standard deviation over mean of both lengths (log-normal): 0 makes every "
                "request alike, 1 gives a long tail of long requests."),
    Number("slo_ttft_s", "SLO: first token within", default=0.5, min=0.05, max=10.0,
           step=0.05, unit="s"),
    Number("slo_tpot_s", "SLO: each later token within", default=0.05, min=0.005, max=0.5,
           step=0.005, unit="s", help="Per request: time per output token after the first."),
    Number("slo_target", "SLO attainment target", default=0.9, min=0.5, max=0.99, step=0.01,
           help="Share of requests that must meet both; capacity is the highest rate that "
                "keeps it."),
    Choice("scheduler", "Scheduler", "chunked", SCHEDULERS,
           help="Chunked: decodes first, then prompt chunks fill the token budget. "
                "Prefill-first: a waiting prompt runs as a step of its own, decodes pause."),
    Number("token_budget", "Token budget", default=2048, min=512, max=16384, step=256,
           unit="tokens", help="Most tokens one step may carry."),
    Number("max_batch", "Batch limit", default=256, min=8, max=1024, step=8,
           unit="requests", help="Most requests running at once (vLLM's max_num_seqs)."),
    Number("requests", "Requests per run", default=250, min=100, max=500, step=50,
           unit="requests", help="How many requests each rate's run sends."),
    Number("seed", "Random seed", default=1, min=0, max=999,
           help="Draws other lengths and gaps; the same seed gives the same runs."),
    *model_inputs("llama-3.1-8b"),
    Choice("gpu", "GPU", "h100", tuple(GPUS)),
    Choice("tp", "Tensor-parallel GPUs", "1", tuple(str(t) for t in TP_DEGREES),
           help="GPUs the replica's model is split over."),
    Choice("parallel", "Parallelism", "tp", LAYOUTS,
           help="tp: every layer split over the GPUs. ep (mixtures of experts): the experts "
                "spread over them and attention data-parallel, each GPU with its own batch "
                "and KV room (the budget and batch limit are then each GPU's)."),
    WEIGHTS_INPUT,
    Choice("engine", "Engine", "none", ("none", *ENGINES),
           help="none: the GPU's steps alone. An engine adds its overheads per step and per "
                "request, its all-reduce and its admission policy; the budget and batch limit "
                "stay as set above."),
)

# Issue 18 allows a load sim 100 ms at its most expensive inputs (the others get 20).
WORST_MS = 100
# The slowest inputs found (scripts/bench/native.py tries these first): the longest run
# allowed, at a low rate, with long-tailed long prompts chunked by the smallest budget, so
# every request is alone for many short steps.
WORST_CASE = {
    "request_rate": 0.1, "prompt_tokens": 8192, "output_tokens": 2048, "length_spread": 2.0,
    "token_budget": 512, "max_batch": 1024, "requests": 500, "seed": 999, "gpu": "a100",
}

METRICS = {
    "p50_ttft_s": "Median time to first token, queueing included (s)",
    "p99_ttft_s": "99th-percentile time to first token (s)",
    "p50_tpot_s": "Median time per output token after the first (s)",
    "p99_tpot_s": "99th-percentile time per output token (s)",
    "throughput_rps": "Requests served per second, first arrival to last token (requests/s)",
    "goodput_rps": "Requests served within both SLOs per second of the same (requests/s)",
    "slo_attainment": "Share of requests meeting both SLOs",
    "preemptions": "Requests preempted when the KV cache ran out (recomputed later)",
    "capacity_rps": "Highest rate whose SLO attainment stays at or above the target "
                    "(requests/s)",
    "ttft_capacity_rps": "The same for the first-token SLO alone (requests/s)",
    "tpot_capacity_rps": "The same for the per-token SLO alone (requests/s)",
    "ttft_attainment": "Share of requests meeting the first-token SLO",
    "tpot_attainment": "Share of requests meeting the per-token SLO",
    "peak_goodput_rps": "Highest goodput on the sweep (requests/s)",
    "peak_goodput_rate_rps": "Arrival rate at which the sweep's goodput peaks (requests/s)",
    "saturation_rps": "Estimate of the rate at which the replica is never idle (requests/s)",
    "prefill_s": "Prefill of a mean prompt on an idle replica (s)",
    "p99_prompt_tokens": "99th-percentile prompt of the run (tokens)",
    "p99_prompt_prefill_s": "Prefill of that prompt on an idle replica (s)",
    "kv_capacity_tokens": "Tokens of KV the replica holds beside its weights (tokens)",
    "refused": "Requests too long for the KV cache even alone (refused)",
    "fits": "The weights leave room for a KV cache",
    "memory": "What the weights leave for the KV cache on each GPU",
    "accuracy": "Regime of a saturated decode step and of whole runs, and the measured error",
}


def saturated_step(policy: Policy, prompt_tokens: int, output_tokens: int) -> Work:
    """A decode step of a replica that is never idle: as many sequences as the batch limit,
    the token budget and the KV room allow, each holding its prompt and half its answer on
    average (the step Scenario.saturation_rps prices)."""
    decodes, held = saturated_decodes(policy, prompt_tokens, output_tokens)
    return Work(1, round(held), count=decodes)


@simulation(INPUTS)
def simulate(
    *, request_rate: float, arrivals: str, prompt_tokens: int, output_tokens: int,
    length_spread: float, slo_ttft_s: float, slo_tpot_s: float, slo_target: float,
    scheduler: str, token_budget: int, max_batch: int, requests: int, seed: int, model: str,
    model_config: str, gpu: str, tp: str, parallel: str, weights: str, engine: str,
) -> Phased:
    chip, shape, group = GPUS[gpu], model_for(model, model_config), int(tp)
    check_group(chip, shape, group, parallel, layout_input="parallel")
    precision = precision_for(chip, shape, weights)
    space = kv_space(chip, shape, group, precision, parallel)
    profile = ENGINES.get(engine)
    policy = Policy.of_replica(space, group if parallel == "ep" else 1, token_budget, max_batch,
                               scheduler == "chunked",
                               reserve=profile is not None and profile.admission == "reserve")
    drawn = draw(requests, seed, arrivals, prompt_tokens, output_tokens, length_spread,
                 min(PROMPT_CAP, LENGTH_CAP * prompt_tokens),
                 min(OUTPUT_CAP, LENGTH_CAP * output_tokens))
    adds = ((profile.all_reduce_on(chip), profile.step_overhead, profile.request_overhead_s,
             profile.exchange_on(chip, shape, group)) if profile is not None else ())
    scenario = Scenario(chip, shape, group, precision, drawn, policy,
                        Slo(slo_ttft_s, slo_tpot_s, slo_target), space, parallel, *adds)

    saturation = scenario.saturation_rps(prompt_tokens, output_tokens)
    chosen = scenario.run(request_rate)
    p50_ttft, p99_ttft = chosen.ttft_percentiles
    p50_tpot, p99_tpot = chosen.tpot_percentiles
    p99_prompt = round(percentile(sorted(r.prompt_tokens for r in drawn), 0.99))
    step = saturated_step(policy, prompt_tokens, output_tokens)
    regime = step_regime(chip, shape, precision, group, parallel, [step], scenario.exchange)
    summary = {
        "p50_ttft_s": p50_ttft,
        "p99_ttft_s": p99_ttft,
        "p50_tpot_s": p50_tpot,
        "p99_tpot_s": p99_tpot,
        "throughput_rps": chosen.throughput_rps,
        "goodput_rps": chosen.goodput_rps,
        "slo_attainment": chosen.attainment,
        "preemptions": chosen.served.preemptions,
        "capacity_rps": LATER,
        "ttft_capacity_rps": LATER,
        "tpot_capacity_rps": LATER,
        "ttft_attainment": chosen.ttft_attainment,
        "tpot_attainment": chosen.tpot_attainment,
        "peak_goodput_rps": LATER,
        "peak_goodput_rate_rps": LATER,
        "saturation_rps": saturation,
        "prefill_s": prefill(chip, shape, prompt_tokens, tp=group, precision=precision,
                             layout=parallel).time_s,
        "p99_prompt_tokens": p99_prompt,
        "p99_prompt_prefill_s": prefill(chip, shape, p99_prompt, tp=group,
                                        precision=precision, layout=parallel).time_s,
        "kv_capacity_tokens": policy.kv_slots,
        "refused": sum(chosen.served.refused),
        "fits": space.fits,
        "memory": space.reason(chip.name),
        "accuracy": f"Decode step at batch {step.count}, about {step.context_tokens:,} "
                    f"tokens each (the replica saturated): {regime}. "
                    f"{throughput_note(chip, named=False)}"
                    + (f". {accuracy(profile)}." if profile is not None else ""),
    }

    def rest() -> Rest:
        """The rate sweep: the capacities, the peak and the four charts over the rate."""
        runs = [scenario.run(rate) for rate in sweep_rates(saturation)]
        peak = max(runs, key=lambda run: run.goodput_rps)
        figures = {
            "capacity_rps": capacity(runs, slo_target),
            "ttft_capacity_rps": capacity(runs, slo_target, "ttft_attainment"),
            "tpot_capacity_rps": capacity(runs, slo_target, "tpot_attainment"),
            "peak_goodput_rps": peak.goodput_rps,
            "peak_goodput_rate_rps": peak.rate,
        }
        return figures, goodput_charts.sweep_charts(runs, chosen, scenario.slo,
                                                    figures["capacity_rps"],
                                                    saturation * SWEEP_HIGH)

    return Phased(summary, [goodput_charts.requests_chart(chosen)], rest)
