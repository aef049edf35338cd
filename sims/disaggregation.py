"""Disaggregated serving: prefill on one pool of GPUs, decode on another, the KV cache sent
between them, against the same GPUs as one pool with chunked prefill.

The same Poisson stream of requests (`sims.serving.arrivals`) is served two ways by the same engine
(`sims.serving.engine`), every step priced by the shared physics:

- Colocated: (prefill_gpus + decode_gpus) / tp instances, requests dealt round-robin, each
  instance running chunked prefill: every step carries all its decodes plus up to
  `chunk_tokens` prompt tokens. A prompt's slices make the steps they ride in longer, and
  every stream decoding on that instance waits for them (the interference DistServe and
  Splitwise name).
- Disaggregated (DistServe, Zhong et al., OSDI 2024; Splitwise, Patel et al., ISCA 2024):
  prefill_gpus / tp prefill instances run prompts only, each step filled up to the longer of
  one prompt and the GPU's ridge point; a request's first token comes from there. Its KV
  cache then travels to one of decode_gpus / tp decode instances, each of the instance's GPUs
  sending its own shard to its peer at once, over NVLink (both pools in one scale-up domain)
  or the network (each GPU's own NIC), one request after another on each prefill instance's
  links. The decode instance takes it into its batch at the next step boundary, and its
  steps carry decodes only.

Reported: time to first token (p50, p99 over the requests) and the gaps between tokens
(p50, p99 over every gap of every request) in each setup. Splitting pays, in this sim's
terms, when both p99s are lower with two pools; which one a deployment must hold depends on
its targets (DistServe sizes the pools to meet both).
"""

from __future__ import annotations

from typing import Any

from sims.disaggregation_charts import (
    CDF_SHARES,
    COLOCATED,
    DISAGGREGATED,
    arrivals_chart,
    gaps_chart,
)
from sims.kit.contract import Choice, InputError, Number, simulation
from sims.physics import (
    GPUS,
    KV_INPUT,
    TP_DEGREES,
    WEIGHTS_INPUT,
    Gpu,
    Model,
    Precision,
    Work,
    check_group,
    memory_fit,
    p2p_time,
    precision_for,
    prefill,
    ridge_tokens,
    scale_out_time,
)
from sims.physics.accuracy import step_note, throughput_note
from sims.physics.capacity import sequences_that_fit
from sims.physics.model_choice import model_for, model_inputs
from sims.physics.pricing import pricer
from sims.serving.arrivals import Request, percentile, poisson_requests, weighted_quantiles
from sims.serving.engine import Job, Served, StepClock, serve, step_clock

TITLE = "Prefill here, decode there"
# Issue 19 allows its sims 100 ms at their most expensive inputs (the others get 20).
WORST_MS = 100

REQUESTS = 200  # per run: enough that a p99 is the second-worst, few enough to run live
# GPUs that can send a KV cache to another GPU at all: within an NVLink domain or over a
# network the catalogue gives a rate for.
TRANSFER_GPUS = tuple(key for key, gpu in GPUS.items()
                      if gpu.scale_up_gpus > 1 or gpu.scale_out_bytes_per_s)
LINKS = ("network", "nvlink")

INPUTS = (
    Number("request_rate", "Request rate", default=8.0, min=0.5, max=64.0, step=0.5,
           unit="requests/s", help="Requests arriving per second, as a Poisson process."),
    Number("prefill_gpus", "Prefill GPUs", default=2, min=1, max=8, unit="GPUs",
           help="GPUs of the prefill pool (a multiple of the tensor-parallel degree)."),
    Number("decode_gpus", "Decode GPUs", default=2, min=1, max=8, unit="GPUs",
           help="GPUs of the decode pool; one pool gets both together."),
    Choice("link", "KV transfer over", "network", LINKS,
           help="nvlink: both pools in one NVLink domain. network: each GPU's own network "
                "link to a peer in another node."),
    Number("prompt_tokens", "Prompt", default=2048, min=128, max=8192, step=128,
           unit="tokens"),
    Number("output_tokens", "Reply", default=256, min=16, max=1024, step=16, unit="tokens"),
    Number("chunk_tokens", "Chunk (one pool)", default=512, min=256, max=8192, step=256,
           unit="tokens", help="Prompt tokens one step of the single pool may carry."),
    *model_inputs("llama-3.1-8b"),
    Choice("gpu", "GPU", "h100", TRANSFER_GPUS),
    Choice("tp", "Tensor-parallel GPUs per instance", "1",
           tuple(str(t) for t in TP_DEGREES)),
    WEIGHTS_INPUT,
    KV_INPUT,
)

# The most expensive inputs the bench's search found (scripts/bench/native.py tries them
# first): long prompts in the smallest slices, long replies, the fewest instances, so that
# the single pool prices every slice of every prompt beside a changing batch.
WORST_CASE = {"request_rate": 0.5, "prefill_gpus": 1, "decode_gpus": 1, "prompt_tokens": 8192,
              "output_tokens": 1024, "chunk_tokens": 256, "model": "qwen3-32b", "gpu": "b200"}

METRICS = {
    "colocated_p99_ttft_s": "One pool: time to first token, p99 (s)",
    "disaggregated_p99_ttft_s": "Two pools: time to first token, p99 (s)",
    "colocated_p99_itl_s": "One pool: gap between tokens, p99 (s)",
    "disaggregated_p99_itl_s": "Two pools: gap between tokens, p99 (s)",
    "colocated_p50_ttft_s": "One pool: time to first token, median (s)",
    "disaggregated_p50_ttft_s": "Two pools: time to first token, median (s)",
    "colocated_p50_itl_s": "One pool: gap between tokens, median (s)",
    "disaggregated_p50_itl_s": "Two pools: gap between tokens, median (s)",
    "splitting_pays": "Two pools give a lower p99 for both the first token and the gaps",
    "kv_transfer_s": "KV cache of one request, prefill GPUs to decode GPUs (s)",
    "kv_bytes_per_request_gb": "KV cache one request sends, all its shards (GB)",
    "prefill_alone_s": "One prompt's prefill with nothing else in the step (s)",
    "colocated_instances": "One pool: instances (instances)",
    "prefill_instances": "Two pools: prefill instances (instances)",
    "decode_instances": "Two pools: decode instances (instances)",
    "accuracy": "Regime of a decode instance's step and of whole runs, and the measured error",
}


def _instances(name: str, gpus: int, tp: int) -> int:
    if gpus % tp:
        raise InputError(name, f"expected a multiple of the {tp} tensor-parallel GPUs of one "
                               f"instance, got {gpus}")
    return gpus // tp


def transfer_s(gpu: Gpu, link: str, shard_bytes: float, gpus: int) -> float:
    """One GPU's shard of a request's KV cache sent to its peer (the shards go at once)."""
    if link == "nvlink":
        if gpus > gpu.scale_up_gpus:
            raise InputError("link", f"expected the network, or at most {gpu.scale_up_gpus} GPUs "
                                     f"in both pools together for NVLink (the {gpu.name}'s "
                                     f"scale-up domain), got {gpus}")
        return p2p_time(gpu, shard_bytes)
    if gpu.scale_out_bytes_per_s is None:
        raise InputError("link", f"expected nvlink: the catalogue has no network figure for "
                                 f"the {gpu.name}")
    return scale_out_time(gpu, shard_bytes)


def _deal(requests: list[Request], instances: int) -> list[list[Request]]:
    """Round-robin: request i to instance i mod n."""
    return [requests[start::instances] for start in range(instances)]


def colocated(requests: list[Request], clock: StepClock, instances: int, chunk: int,
              capacity: int) -> list[Served]:
    return [serve([Job(r.index, r.arrival_s, r.prompt_tokens, r.prompt_tokens, r.output_tokens)
                   for r in share], clock, chunk, capacity)
            for share in _deal(requests, instances)]


def disaggregated(requests: list[Request], clock: StepClock, prefills: int, decodes: int,
                  budget: int, capacity: int, transfer: float) -> list[Served]:
    """The prefill pool's runs, then the decode pool's, fed by the transfers in between."""
    first: dict[int, float] = {}
    ready: dict[int, float] = {}
    prefilled = []
    for share in _deal(requests, prefills):
        done = serve([Job(r.index, r.arrival_s, r.prompt_tokens, r.prompt_tokens, 1)
                      for r in share], clock, budget, capacity, decode=False)
        prefilled.append(done)
        link_free = 0.0  # one request's shards at a time on this instance's links
        for index, at in sorted(done.first_token_s.items(), key=lambda item: item[1]):
            link_free = max(at, link_free) + transfer
            first[index], ready[index] = at, link_free
    jobs = [Job(r.index, ready[r.index], r.prompt_tokens, 0, r.output_tokens - 1,
                last_token_s=first[r.index]) for r in requests]
    decoded = [serve(share, clock, budget, capacity) for share in _deal(jobs, decodes)]
    for served in decoded:
        served.first_token_s.update({i: first[i] for i in served.finish_s})
    return decoded + [Served(steps=done.steps) for done in prefilled]


class Outcome:
    """Latencies of one setup over the requests: each one's time to first token, and every
    gap between two tokens of one request, with how many gaps took that long."""

    def __init__(self, requests: list[Request], runs: list[Served]) -> None:
        first = {i: t for run in runs for i, t in run.first_token_s.items()}
        self.ttft = [first[r.index] - r.arrival_s for r in requests]
        self.gaps = [gap for run in runs for gap in run.gaps]
        self.gap_quantiles = weighted_quantiles(self.gaps, CDF_SHARES)

    def itl(self, share: float) -> float:
        """The gap between tokens at percentile `share` (a multiple of 0.01)."""
        return self.gap_quantiles[round(share * 100) - 1]


class Setup:
    """Everything both setups share, checked once."""

    def __init__(self, gpu: Gpu, model: Model, tp: int, prefill_gpus: int, decode_gpus: int,
                 link: str, prompt: int, output: int, chunk: int, precision: Precision
                 ) -> None:
        check_group(gpu, model, tp)
        self.prefills = _instances("prefill_gpus", prefill_gpus, tp)
        self.decodes = _instances("decode_gpus", decode_gpus, tp)
        self.colocated = self.prefills + self.decodes
        self.capacity = sequences_that_fit(gpu, model, prompt + output, tp, precision)
        if not self.capacity:
            fit = memory_fit(gpu, model, 1, prompt + output, tp, precision)
            raise InputError("tp", f"expected enough GPUs per instance to hold one request; "
                                   f"on {tp}, it {fit.reason}")
        self.clock = step_clock(gpu, model, tp, precision)
        self.gpu, self.pricer = gpu, pricer(gpu, model, precision, tp, "tp")
        self.prompt, self.output = prompt, output
        self.chunk = chunk
        self.budget = max(prompt, ridge_tokens(gpu, model, precision))
        shard = memory_fit(gpu, model, 1, prompt, tp, precision).kv_per_gpu_bytes
        self.kv_bytes = model.kv_bytes(prompt, precision.kv)
        self.transfer = transfer_s(gpu, link, shard, prefill_gpus + decode_gpus)
        self.prefill_s = prefill(gpu, model, prompt, tp=tp, precision=precision).time_s

    def run(self, requests: list[Request]) -> tuple[Outcome, Outcome]:
        one = colocated(requests, self.clock, self.colocated, self.chunk, self.capacity)
        two = disaggregated(requests, self.clock, self.prefills, self.decodes, self.budget,
                            self.capacity, self.transfer)
        return Outcome(requests, one), Outcome(requests, two)

    def accuracy(self, rate: float, two: Outcome) -> str:
        """The regime of a decode instance's step: by Little's law, each holds its share of
        the arrival rate times the time a request spends decoding (its gaps, at their mean),
        each request holding its prompt and half its reply."""
        gaps = sum(count for _, count in two.gaps)
        mean_gap = sum(s * count for s, count in two.gaps) / gaps if gaps else 0.0
        decoding = rate / self.decodes * (self.output - 1) * mean_gap
        step = Work(1, round(self.prompt + self.output / 2),
                    count=min(self.capacity, max(1, round(decoding))))
        regime = step_note(self.gpu, self.pricer.classes([step]))
        runs = throughput_note(self.gpu, named=False)
        return (f"Decode step at batch {step.count}, about {step.context_tokens:,} tokens each "
                f"(a decode instance at this rate): {regime}. {runs}")


@simulation(INPUTS)
def simulate(*, request_rate: float, prefill_gpus: int, decode_gpus: int, link: str,
             prompt_tokens: int, output_tokens: int, chunk_tokens: int, model: str,
             model_config: str, gpu: str,
             tp: str, weights: str, kv: str) -> dict[str, Any]:
    chip, shape = GPUS[gpu], model_for(model, model_config)
    setup = Setup(chip, shape, int(tp), prefill_gpus, decode_gpus, link, prompt_tokens,
                  output_tokens, chunk_tokens, precision_for(chip, shape, weights, kv=kv))
    requests = poisson_requests(request_rate, REQUESTS, prompt_tokens, output_tokens)
    one, two = setup.run(requests)
    ttft = {name: percentile(outcome.ttft, 0.99) for name, outcome in
            ((COLOCATED, one), (DISAGGREGATED, two))}
    return {
        "summary": {
            "colocated_p99_ttft_s": ttft[COLOCATED],
            "disaggregated_p99_ttft_s": ttft[DISAGGREGATED],
            "colocated_p99_itl_s": one.itl(0.99),
            "disaggregated_p99_itl_s": two.itl(0.99),
            "colocated_p50_ttft_s": percentile(one.ttft, 0.5),
            "disaggregated_p50_ttft_s": percentile(two.ttft, 0.5),
            "colocated_p50_itl_s": one.itl(0.5),
            "disaggregated_p50_itl_s": two.itl(0.5),
            "splitting_pays": (ttft[DISAGGREGATED] < ttft[COLOCATED]
                               and two.itl(0.99) < one.itl(0.99)),
            "kv_transfer_s": setup.transfer,
            "kv_bytes_per_request_gb": setup.kv_bytes / 1e9,
            "prefill_alone_s": setup.prefill_s,
            "colocated_instances": setup.colocated,
            "prefill_instances": setup.prefills,
            "decode_instances": setup.decodes,
            "accuracy": setup.accuracy(request_rate, two),
        },
        "charts": [
            arrivals_chart(requests, {COLOCATED: one, DISAGGREGATED: two}),
            gaps_chart({COLOCATED: one, DISAGGREGATED: two}),
        ],
    }
