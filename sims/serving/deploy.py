"""A deployment under load, as a benchmark measures it: `python -m sims serve`.

One replica (a model on `gpus` GPUs of one scale-up domain, tensor parallel, or experts
spread over the GPUs with attention data-parallel) run by one engine profile
(sims.serving.engines) over `requests` requests of `isl` prompt and `osl` output tokens on
average, sent as a Poisson stream at `rate` requests per second or by `concurrency` users
in a closed loop (each sends its next request when its last one ends, as vLLM's
`bench serve --max-concurrency` does). The replica's
scheduler (sims.serving.replica) plans the steps under the engine's token budget, batch
limit and admission policy; the shared physics prices them, plus the engine's per-step
overhead; each request also spends the engine's per-request overhead (HTTP, tokenization)
before it reaches the scheduler.

The figures, each as a benchmark's client computes them:
- `ttft_s`: from a request's sending to its first token (the request overhead included);
- `tpot_s`: per request, (its last token - its first) / (its output tokens - 1), as vLLM's
  benchmark computes time per output token (requests of one token are left out);
- `itl_s`: every gap between two consecutive tokens of one request, each gap one sample
  (vLLM's inter-token latency), so a long request weighs more than in `tpot_s`;
- throughput: output tokens over the run, from the first request sent to the last token;
  per GPU over the replica's GPUs; per user as 1 / the mean TPOT.

`warmup` leaves the first requests sent out of the per-request figures (TTFT, TPOT), as a
client that reports its run's steady state does (genai-perf's stable measurement windows,
AIPerf's warm-up requests): in a closed loop the first round arrives all at once, and its
queue is the start of the run, not its steady state. The token gaps and the throughput
keep the whole run.
"""

from __future__ import annotations

from typing import Any

from sims.kit.contract import Choice, InputError, Number, validate
from sims.physics import (
    GPUS,
    KV_INPUT,
    LAYOUTS,
    WEIGHTS_INPUT,
    Gpu,
    Model,
    Precision,
    check_group,
    precision_for,
)
from sims.physics.model_choice import INPUT, compact, model_for, model_inputs
from sims.physics.precision import PRECISIONS
from sims.serving.arrivals import weighted_quantiles
from sims.serving.engines import ENGINES, Engine
from sims.serving.kv_space import kv_space
from sims.serving.replica import Policy, Served, serve
from sims.serving.step_table import step_table
from sims.serving.workload import draw, percentile

MAX_TOKENS = 131_072
MAX_GPUS = 72  # the largest scale-up domain a GPU may have (an NVL72 rack)
DEFAULT_CONCURRENCY = 16  # the closed loop's users when neither load is given
SHARES = (0.5, 0.9, 0.99)

SERVE_INPUTS = (
    *model_inputs("llama-3.1-8b"),
    Choice("gpu", "GPU", "h100", tuple(GPUS)),
    Number("gpus", "GPUs", default=1, min=1, max=MAX_GPUS, unit="GPUs",
           help="GPUs of one replica, within the GPU's scale-up domain."),
    Choice("parallel", "Parallelism", "tp", LAYOUTS,
           help="tp: tensor parallel; ep: experts spread over the GPUs, attention "
                "data-parallel (mixtures of experts only)."),
    WEIGHTS_INPUT,
    Choice("activations", "Activations", "auto", ("auto", *PRECISIONS),
           help="auto: the weights' format if the GPU computes in it, else BF16."),
    KV_INPUT,
    Choice("engine", "Engine", "vllm", tuple(ENGINES)),
    Number("isl", "Input tokens", default=1000, min=1, max=MAX_TOKENS, unit="tokens",
           help="Prompt length (the mean, with a length spread)."),
    Number("osl", "Output tokens", default=200, min=1, max=MAX_TOKENS, unit="tokens",
           help="Reply length (the mean, with a length spread)."),
    Number("concurrency", "Concurrent users", default=DEFAULT_CONCURRENCY, min=1, max=4096,
           unit="users", help="A closed loop of this many users (the default load)."),
    Number("rate", "Request rate", default=1.0, min=0.001, max=10_000.0, step=0.001,
           unit="requests/s", help="An open loop: Poisson arrivals at this rate."),
    Number("requests", "Requests", default=500, min=1, max=20_000, unit="requests"),
    Number("length_spread", "Length spread", default=0.0, min=0.0, max=2.0, step=0.05,
           help="Coefficient of variation of both lengths (log-normal); 0: all alike."),
    Number("seed", "Seed", default=0, min=0, max=2**31 - 1),
    Number("max_batch", "Batch limit", default=0, min=0, max=4096, unit="requests",
           help="Most requests running at once per attention rank (vLLM's max_num_seqs); "
                "0: the engine's own."),
    Number("token_budget", "Token budget", default=0, min=0, max=MAX_TOKENS, unit="tokens",
           help="Most tokens one step carries per attention rank "
                "(max_num_batched_tokens); 0: the engine's own."),
    Number("warmup", "Warm-up requests", default=0, min=0, max=20_000, unit="requests",
           help="The first requests sent, left out of TTFT and TPOT (a client reporting "
                "the steady state); fewer than the requests."),
)


def _summary(values: list[float]) -> dict[str, float]:
    """Mean and percentiles (numpy's linear interpolation, as vLLM's benchmark reads them)."""
    ordered = sorted(values)
    found = {"mean": sum(ordered) / len(ordered)}
    for share in SHARES:
        found[f"p{round(share * 100)}"] = percentile(ordered, share)
    return found


def _gap_summary(gaps: tuple[tuple[float, int], ...]) -> dict[str, float]:
    """Mean and percentiles of token gaps given as (seconds, how many tokens)."""
    total = sum(count for _, count in gaps)
    found = {"mean": sum(seconds * count for seconds, count in gaps) / total}
    for share, value in zip(SHARES, weighted_quantiles(gaps, SHARES), strict=True):
        found[f"p{round(share * 100)}"] = value
    return found


def _load(given: dict[str, Any], inputs: dict[str, Any]) -> tuple[int, float]:
    """(users in a closed loop or 0, rate of an open one): the one `given`, not both."""
    if "concurrency" in given and "rate" in given:
        raise InputError("rate", "give --concurrency (a closed loop) or --rate (Poisson "
                                 "arrivals), not both")
    if "rate" in given:
        return 0, inputs["rate"]
    return inputs["concurrency"], 1.0


def served_run(gpu: Gpu, model: Model, engine: Engine, gpus: int, layout: str,
               precision: Precision, isl: int, osl: int, count: int, spread: float, seed: int,
               concurrency: int, rate: float, max_batch: int = 0, token_budget: int = 0
               ) -> tuple[Served, list[int]]:
    """One replica's run (the module's docstring says what it is): what it served, and
    each request's output tokens. `max_batch` and `token_budget` (per attention rank)
    replace the engine's own when given (a planner's knobs). The group is the caller's to
    have checked."""
    space = kv_space(gpu, model, gpus, precision, layout)
    if not space.fits:
        raise InputError("gpus", f"{model.name} on {gpus} {gpu.name} {space.reason(gpu.name)}")
    ranks = gpus if layout == "ep" else 1  # attention ranks, each with its own batch and room
    requests = draw(count, seed, "poisson", isl, osl, spread, MAX_TOKENS, MAX_TOKENS)
    room = space.token_slots()
    longest = max(r.prompt_tokens + r.output_tokens for r in requests)
    if longest + space.window_slots(longest) > room:
        raise InputError("isl", f"a request of {longest:,} tokens does not fit in the KV room "
                                f"of one attention rank ({room:,} tokens): "
                                f"{space.reason(gpu.name)}")
    policy = Policy.of_replica(space, ranks, token_budget or engine.token_budget,
                               max_batch or engine.max_batch, chunked=True,
                               reserve=engine.admission == "reserve")
    table = step_table(gpu, model, gpus, precision, layout, engine.all_reduce_on(gpu),
                       engine.step_overhead, engine.exchange_on(gpu, model, gpus))
    served = serve(requests, policy, table, rate, concurrency, engine.request_overhead_s,
                   keep_gaps=True, seed=seed)
    return served, [r.output_tokens for r in requests]


def figures(served: Served, outputs: list[int], gpus: int, warmup: int = 0) -> dict[str, Any]:
    """The benchmark's figures of one run, the first `warmup` requests sent left out of
    the per-request ones (see the module's docstring)."""
    sent = served.sent
    measured = sorted(range(len(sent)), key=sent.__getitem__)[warmup:]
    ttft = [served.first_token[i] - sent[i] for i in measured]
    tpot = [(served.finished[i] - served.first_token[i]) / (outputs[i] - 1)
            for i in measured if outputs[i] > 1]
    duration = max(served.finished) - min(sent)
    tokens = sum(outputs)
    result: dict[str, Any] = {"ttft_s": _summary(ttft)}
    result["tpot_s"] = _summary(tpot) if tpot else None
    result["itl_s"] = _gap_summary(served.gaps) if served.gaps else None
    result["output_tokens_per_s"] = tokens / duration
    result["output_tokens_per_s_per_gpu"] = tokens / duration / gpus
    result["output_tokens_per_s_per_user"] = 1 / result["tpot_s"]["mean"] if tpot else None
    result["requests_per_s"] = len(outputs) / duration
    result["preemptions"] = served.preemptions
    return result


def accuracy(engine: Engine) -> str:
    """How far the engine's served runs were from measured ones: per figure, the held-out
    errors, else the training ones (the engine's profile states them)."""
    parts = []
    for metric in ("ttft", "tpot", "itl", "throughput"):
        for chosen, label in (("held_out", "held-out"), ("training", "training")):
            errors = engine.accuracy.get((metric, chosen))
            if errors is not None:
                parts.append(f"{metric.upper() if metric != 'throughput' else metric} "
                             f"{label} median error {errors.median:.0%} (p90 {errors.p90:.0%},"
                             f" {errors.points} runs)")
                break
    if not parts:
        return f"{engine.name}: no measured runs to compare with"
    return f"{engine.name}, against published runs: " + "; ".join(parts)


def serve_json(given: dict[str, Any]) -> dict[str, Any]:
    """What `python -m sims serve` prints, for the inputs given on its command line."""
    inputs = validate(SERVE_INPUTS, given)
    concurrency, rate = _load(given, inputs)
    gpu, model = GPUS[inputs["gpu"]], model_for(inputs["model"], inputs["model_config"])
    check_group(gpu, model, inputs["gpus"], inputs["parallel"], gpus_input="gpus",
                layout_input="parallel")
    engine = ENGINES[inputs["engine"]]
    precision = precision_for(gpu, model, inputs["weights"], inputs["activations"],
                              inputs["kv"])
    if inputs["warmup"] >= inputs["requests"]:
        raise InputError("warmup", f"the warm-up ({inputs['warmup']:,} requests) leaves none "
                                   f"of the {inputs['requests']:,} requests to measure: give "
                                   f"fewer than --requests")
    served, outputs = served_run(gpu, model, engine, inputs["gpus"], inputs["parallel"],
                                 precision, inputs["isl"], inputs["osl"], inputs["requests"],
                                 inputs["length_spread"], inputs["seed"], concurrency, rate,
                                 inputs["max_batch"], inputs["token_budget"])
    shown = {k: v for k, v in inputs.items() if k not in ("concurrency", "rate", INPUT)}
    if inputs[INPUT]:
        shown[INPUT] = compact(inputs[INPUT])  # the pasted config as a page's URL carries it
    shown.update({"concurrency": concurrency} if concurrency else {"rate": rate})
    return {"inputs": shown, **figures(served, outputs, inputs["gpus"], inputs["warmup"]),
            "accuracy": accuracy(engine)}
