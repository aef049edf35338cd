"""Static against continuous batching: the same requests, the same GPU, two schedulers.

All requests arrive together and wait in one queue. A batch has `batch_size` slots; every
decode step gives each occupied slot one more token, and a step costs what the shared
physics says it costs (`sims.physics.step_cost`) for the work actually in it.

- Static batching admits a new batch only when every member of the previous one has
  finished, so a slot whose request ended early sits idle until the longest one is done.
- Continuous (iteration-level) batching refills a freed slot at the very next step.

A request's first step in a slot computes its prompt (prefill), which also yields its first
output token; each later step decodes one token on top of the prompt and the tokens so far.
Finished slots add no work here (a padded implementation would spend even more on them),
so the idle slots cost nothing in this model except the wait they cause: that is the
honest lower bound for static batching.

Between two events (a request joining or leaving) the occupied slots are fixed and every
context grows by one token a step, so each operator's FLOPs and bytes grow linearly with the
step index and the step's time nearly so: a run of steps is summed as its first and last
step's mean times its length, not priced one step at a time (the tests hold this within
0.1% of pricing every step).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from sims.batching_charts import (
    POLICY_LABELS,
    latency_chart,
    timeline_chart,
    timeline_rows,
)
from sims.kit.contract import Choice, InputError, Number, simulation
from sims.physics import GPUS, Work, memory_fit, precision_for, step_cost
from sims.physics.accuracy import step_regime
from sims.physics.model_choice import model_for, model_inputs

TITLE = "A batch is only as fast as its slowest member"

Price = Callable[[list[Work]], float]  # seconds for one step of this work

POLICIES = ("static", "continuous")

INPUTS = (
    Number("requests", "Requests", default=14, min=1, max=64, unit="requests",
           help="How many requests wait in the queue at the start."),
    Number("batch_size", "Batch size", default=4, min=1, max=32, unit="slots",
           help="How many requests the GPU decodes together in one step."),
    Number("min_output_tokens", "Shortest answer", default=20, min=1, max=1024, unit="tokens",
           help="Each request's answer length is drawn evenly between the shortest and longest."),
    Number("max_output_tokens", "Longest answer", default=400, min=1, max=1024, unit="tokens",
           help="Must be at least the shortest answer."),
    Number("prompt_tokens", "Prompt length", default=512, min=1, max=4096, unit="tokens",
           help="Every request's prompt; computed in the step the request joins a slot."),
    Number("seed", "Random seed", default=7, min=0, max=999,
           help="Draws a different set of answer lengths."),
    *model_inputs("llama-3.1-8b",
                  help="Its weights are read once per step whatever the batch holds."),
    Choice("gpu", "GPU", "h100", tuple(GPUS), help="One GPU serves the batch."),
)

METRICS = {
    "static_makespan_s": "Static batching: time until every request is done (s)",
    "continuous_makespan_s": "Continuous batching: time until every request is done (s)",
    "static_mean_latency_s": "Static batching: mean time to a complete answer (s)",
    "continuous_mean_latency_s": "Continuous batching: mean time to a complete answer (s)",
    "static_idle_fraction": "Static batching: share of slot-steps left idle",
    "continuous_idle_fraction": "Continuous batching: share of slot-steps left idle",
    "static_steps": "Static batching: decode steps run (steps)",
    "continuous_steps": "Continuous batching: decode steps run (steps)",
    "full_step_ms": "One step with every slot decoding, at the prompt's context (ms)",
    "fits": "Weights and every slot's KV cache fit on the GPU",
    "memory": "Memory the GPU needs, against what it can use",
    "accuracy": "Regime of the step with every slot decoding and the measured error there",
}


@dataclass
class _Slot:
    request: int
    output_tokens: int
    generated: int = 0  # tokens produced so far; 0 until its prefill step has run
    joined_step: int = 0


@dataclass(frozen=True)
class Run:
    """One policy's schedule: when each request held which slot and when it finished."""

    steps: int
    makespan_s: float
    idle_slot_steps: int
    finish_s: tuple[float, ...]  # per request, seconds after the common arrival
    spans: tuple[tuple[int, int, int, int], ...]  # (request, slot, first step, end step)


def _step_work(slots: list[_Slot], prompt_tokens: int, ahead: int = 0) -> list[Work]:
    """The work of one step over these slots, `ahead` decode steps from now.

    Newcomers compute their prompt (logits at its last position only, to sample the first
    token); the others decode one token each on top of their context. A step's FLOPs and
    bytes are linear in each context, so the decoders are pooled into at most two groups
    of equal context with the same total: the price is exact and costs O(1) to evaluate.
    """
    generated = [s.generated for s in slots]
    joining = generated.count(0)
    decoding = len(generated) - joining
    work = [Work(prompt_tokens, 0, count=joining, logit_tokens=1)] if joining else []
    if decoding:
        # Each decoder's context is prompt_tokens + generated - 1 + ahead (joiners add 0).
        total = sum(generated) + decoding * (prompt_tokens - 1 + ahead)
        base, extra = divmod(total, decoding)
        work.append(Work(1, base, count=decoding - extra))
        if extra:
            work.append(Work(1, base + 1, count=extra))
    return work


def _run_time(slots: list[_Slot], prompt_tokens: int, steps: int, price: Price) -> float:
    """Seconds for `steps` steps over fixed slots: the mean of the first and last step's
    time, times `steps` (see the module docstring)."""
    first = price(_step_work(slots, prompt_tokens))
    if steps == 1:
        return first
    return steps * (first + price(_step_work(slots, prompt_tokens, steps - 1))) / 2


def schedule(
    policy: str, lengths: list[int], batch_size: int, prompt_tokens: int, price: Price
) -> Run:
    """Serve requests with the given output lengths, in queue order, under one policy;
    `price` is the time of one step over its work."""
    queue = list(range(len(lengths)))
    queue.reverse()  # pop() from the end takes the oldest request first
    slots: list[_Slot | None] = [None] * batch_size
    finish = [0.0] * len(lengths)
    spans: list[tuple[int, int, int, int]] = []
    step, clock, idle = 0, 0.0, 0
    while queue or any(slots):
        may_admit = policy == "continuous" or not any(slots)
        if may_admit:
            for index, slot in enumerate(slots):
                if slot is None and queue:
                    request = queue.pop()
                    slots[index] = _Slot(request, lengths[request], joined_step=step)
        busy = [s for s in slots if s is not None]
        # A step with a newcomer is a step of its own (its prefill); otherwise run until the
        # next request finishes, since nothing changes before then. (Lists, not generators:
        # a list comprehension runs inline, a generator is a frame resumed per item.)
        joining = 0 in [s.generated for s in busy]
        steps = 1 if joining else min([s.output_tokens - s.generated for s in busy])
        clock += _run_time(busy, prompt_tokens, steps, price)
        idle += (batch_size - len(busy)) * steps
        step += steps
        for index, slot in enumerate(slots):
            if slot is None:
                continue
            slot.generated += steps
            if slot.generated == slot.output_tokens:
                finish[slot.request] = clock
                spans.append((slot.request, index, slot.joined_step, step))
                slots[index] = None
    return Run(step, clock, idle, tuple(finish), tuple(spans))


@simulation(INPUTS)
def simulate(
    *,
    requests: int,
    batch_size: int,
    min_output_tokens: int,
    max_output_tokens: int,
    prompt_tokens: int,
    seed: int,
    model: str, model_config: str,
    gpu: str,
) -> dict:
    if max_output_tokens < min_output_tokens:
        raise InputError(
            "max_output_tokens",
            f"expected at least the shortest answer ({min_output_tokens} tokens), "
            f"got {max_output_tokens}",
        )
    rng = random.Random(seed)
    lengths = [rng.randint(min_output_tokens, max_output_tokens) for _ in range(requests)]
    chip, shape = GPUS[gpu], model_for(model, model_config)

    def price(work: list[Work]) -> float:
        return step_cost(chip, shape, work).time_s

    runs = {p: schedule(p, lengths, batch_size, prompt_tokens, price) for p in POLICIES}
    fit = memory_fit(chip, shape, batch_size, prompt_tokens + max_output_tokens)

    summary: dict[str, float | int] = {}
    for policy, run in runs.items():
        summary[f"{policy}_makespan_s"] = round(run.makespan_s, 3)
        summary[f"{policy}_mean_latency_s"] = round(sum(run.finish_s) / requests, 3)
        idle = run.idle_slot_steps / (run.steps * batch_size)
        summary[f"{policy}_idle_fraction"] = round(idle, 3)
        summary[f"{policy}_steps"] = run.steps
    full = [Work(1, prompt_tokens, count=batch_size)]
    summary["full_step_ms"] = round(price(full) * 1e3, 3)
    summary["fits"] = fit.fits
    summary["memory"] = fit.reason
    regime = step_regime(chip, shape, precision_for(chip, shape), 1, "tp", full)
    summary["accuracy"] = f"Decode step with every slot busy: {regime}"
    summary = {key: summary[key] for key in METRICS}  # the page lists them in METRICS order

    timeline = [row for p in POLICIES for row in timeline_rows(p, runs[p], batch_size)]
    latency = [
        {"request": r + 1, "policy": POLICY_LABELS[p], "latency_s": round(runs[p].finish_s[r], 3),
         "output_tokens": lengths[r]}
        for r in range(requests) for p in POLICIES
    ]
    per_request = [
        {"request": r + 1, "output_tokens": lengths[r],
         **{f"{p}_s": round(runs[p].finish_s[r], 3) for p in POLICIES}}
        for r in range(requests)
    ]
    return {
        "summary": summary,
        "charts": [timeline_chart(timeline, fit.note), latency_chart(latency)],
        "tables": [{
            "title": "Each request",
            "columns": [
                {"key": "request", "label": "Request"},
                {"key": "output_tokens", "label": "Answer (tokens)"},
                {"key": "static_s", "label": "Static: done after (s)"},
                {"key": "continuous_s", "label": "Continuous: done after (s)"},
            ],
            "rows": per_request,
        }],
    }
