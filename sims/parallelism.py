"""Three ways to cut one model over eight GPUs, decoding the same requests.

- `tp8`: tensor parallelism over all eight. Every GPU holds 1/8 of every matrix; each step
  all eight work on every request, then wait at two all-reduces per layer.
- `pp8`: a pipeline of eight stages, 1/8 of the layers each. The requests are split into
  micro-batches that follow one another down the pipeline; a micro-batch's next token can
  only start once its last one has left the last stage.
- `tp4_pp2`: two pipeline stages, each a tensor-parallel group of four.

Each stage's step is priced by the shared physics (`sims.physics.step_cost` over that
stage's slice of the model, `Model.pipeline_stage`), and a pipeline hands activations to
the next stage with `p2p_time`. The schedule is played out event by event from a cold
start: a stage takes micro-batches in order, each as soon as both the stage and the
micro-batch's input are ready. Figures in the summary are from the steady state, once
the start-up has washed out.

Simplifications, all small next to a stage's step: a stage's all-reduces are drawn as one
block after its matmuls (they are interleaved with them in a real engine); a stage hands
its activations to the link and moves on, and a stage waiting for them counts as idle in
the bubble (the transfer takes microseconds); the sampled tokens return to the first stage
for free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sims.kit import timeline
from sims.kit.charts import titled
from sims.kit.contract import Choice, Number, simulation
from sims.kit.timeline import Mark, Span, timeline_chart
from sims.physics import (
    GPUS,
    Gpu,
    Model,
    StepCost,
    Work,
    memory_fit,
    p2p_time,
    precision_for,
    step_cost,
)
from sims.physics.accuracy import step_note
from sims.physics.model_choice import model_for, model_inputs
from sims.physics.pricing import pricer

ACTIVATION_BYTES = 2  # a stage hands on each request's hidden state in BF16

TITLE = "Cut every matrix, or cut the stack"

GPU_COUNT = 8
MAX_MICROBATCHES = GPU_COUNT  # more than one per stage adds nothing but re-reads of weights


@dataclass(frozen=True)
class Layout:
    """How the eight GPUs are arranged: `pp` stages, each a tensor-parallel group of `tp`."""

    key: str
    label: str
    tp: int
    pp: int


LAYOUTS = (
    Layout("tp8", "tensor parallel over 8 GPUs", 8, 1),
    Layout("pp8", "a pipeline of 8 stages", 1, 8),
    Layout("tp4_pp2", "2 pipeline stages, each tensor parallel over 4 GPUs", 4, 2),
)

# Tokens each micro-batch receives before the clock is cut; the slowest layout sets it.
# Two show the start-up and one full interval of the slowest layout; each token more would
# add a third to every chart's rows (sent, laid out and drawn on every change) and show
# only what the previous interval already did. The summary is read from later rounds.
TOKENS_SHOWN = 2
# Rounds played before the steady-state figures are read off.
MIN_ROUNDS = 4

BUSY = "busy: matmuls"
COMM = "waiting on communication"
BUBBLE = "idle: pipeline bubble"
TOKEN = "tokens delivered"
STATES = {
    BUSY: timeline.WORK, COMM: timeline.COMMUNICATION, BUBBLE: timeline.IDLE,
    TOKEN: timeline.TOKEN,
}

INPUTS = (
    Number("requests_in_flight", "Requests in flight", default=32, min=1, max=256,
           unit="requests", help="Requests decoding at once, one token each per round."),
    Number("context_tokens", "Context per request", default=2048, min=0, max=32768, step=256,
           unit="tokens", help="Tokens already in each request's KV cache."),
    Number("microbatches", "Micro-batches", default=4, min=1, max=MAX_MICROBATCHES,
           unit="micro-batches",
           help="Groups the requests are split into for the pipelined layouts."),
    *model_inputs("llama-3.1-70b"),
    Choice("gpu", "GPU", "h100", tuple(key for key, gpu in GPUS.items()
                                       if gpu.scale_up_gpus >= GPU_COUNT),
           help=f"GPUs whose scale-up domain holds all {GPU_COUNT}."),
)

METRICS = {
    "fits": "Weights and KV cache fit on eight GPUs",
    "memory": "Memory each GPU needs, against what it can use",
    **{
        f"{layout.key}_{name}": f"{layout.key}: {label}"
        for layout in LAYOUTS
        for name, label in (
            ("token_interval_s", "time between two tokens of one request (s)"),
            ("throughput_tokens_per_s", "tokens delivered per second, all requests (tokens/s)"),
            ("busy_fraction", "GPU time spent on matmuls, averaged over GPUs (fraction)"),
            ("microbatches", "micro-batches used (micro-batches)"),
        )
    },
    "accuracy": "Regime of tp8's decode step and the measured error there",
}


def _stage_row(layout: Layout, stage: int) -> str:
    """A stage's row in the chart, named by its GPUs: "GPU 3", or "GPUs 5-8" for a
    tensor-parallel group. The GPUs of a group do the same thing at the same time, so one
    row shows them all (a row per GPU drew every bar `tp` times over)."""
    first = stage * layout.tp + 1
    return f"GPU {first}" if layout.tp == 1 else f"GPUs {first}-{first + layout.tp - 1}"


@dataclass
class Run:
    """One layout played out: what each stage did, and when each micro-batch got tokens.

    The schedule's state (when each stage is free, when each micro-batch is ready) is kept,
    so that `advance` can play it further: the clock the charts share is known only once
    every layout has played a few rounds, and they carry on from there to reach it.
    """

    layout: Layout
    sizes: list[int]
    costs: list[dict[int, StepCost]]  # per stage: one step's cost by micro-batch size
    sends: dict[int, float]  # by micro-batch size: handing activations to the next stage
    stage_spans: list[list[Span]]  # per stage; every GPU of the stage does the same
    tokens: list[list[float]]  # per micro-batch, the times its requests got a token
    free: list[float]  # per stage: when it can take its next micro-batch
    ready: list[float]  # per micro-batch: when it can enter the first stage
    rounds: int = 0

    @property
    def busy_per_round(self) -> list[float]:
        """Per stage, seconds of matmuls in one round (every micro-batch once)."""
        return [sum(costs[size].ops_s for size in self.sizes) for costs in self.costs]

    @property
    def flops_per_round(self) -> float:
        return sum(costs[size].flops for costs in self.costs for size in self.sizes)

    @property
    def labels(self) -> list[str]:
        """Each micro-batch named by the requests it holds: "requests 9-16"."""
        firsts = [1 + sum(self.sizes[:j]) for j in range(len(self.sizes))]
        return [
            f"request {first}" if size == 1 else f"requests {first}-{first + size - 1}"
            for first, size in zip(firsts, self.sizes, strict=True)
        ]

    @property
    def interval_s(self) -> float:
        """Steady-state time between two tokens of one request."""
        times = self.tokens[0]
        return times[-1] - times[-2]

    @property
    def busy_fraction(self) -> float:
        busy = self.busy_per_round
        return sum(busy) / len(busy) / self.interval_s

    @property
    def throughput(self) -> float:
        return sum(self.sizes) / self.interval_s

    def advance(self, until: float = 0.0) -> None:
        """Play on for at least MIN_ROUNDS rounds in all and until every micro-batch has a
        token at or after `until`: a stage takes micro-batches in order, each as soon as
        both the stage and the micro-batch's input are ready."""
        last = len(self.costs) - 1
        rows = [_stage_row(self.layout, s) for s in range(last + 1)]
        labels = self.labels
        # Per stage and size: (matmul time, step time, whether it waits on all-reduces).
        timings = [{size: (cost.ops_s, cost.time_s, cost.collective_s > 0)
                    for size, cost in costs.items()} for costs in self.costs]
        while self.rounds < MIN_ROUNDS or min(self.ready) < until:
            for j, size in enumerate(self.sizes):
                arrives = self.ready[j]
                work = labels[j]
                for s, stage in enumerate(timings):
                    matmul_s, time_s, communicates = stage[size]
                    start = max(self.free[s], arrives)
                    busy_until = start + matmul_s
                    end = start + time_s
                    spans = self.stage_spans[s]
                    spans.append(Span(rows[s], start, busy_until, BUSY, work))
                    if communicates:
                        spans.append(Span(rows[s], busy_until, end, COMM, work))
                    self.free[s] = end
                    # The activations travel to the next stage while this one moves on.
                    arrives = end + self.sends[size] if s < last else end
                self.ready[j] = arrives
                self.tokens[j].append(arrives)
            self.rounds += 1


def split(requests: int, parts: int) -> list[int]:
    """Requests shared as evenly as possible among `parts` micro-batches."""
    base, extra = divmod(requests, parts)
    return [base + (1 if j < extra else 0) for j in range(parts)]


def play(
    layout: Layout, gpu: Gpu, model: Model, requests: int, context_tokens: int,
    microbatches: int, until: float = 0.0,
) -> Run:
    """Play the schedule from a cold start for at least MIN_ROUNDS rounds and until every
    micro-batch has a token at or after `until`."""
    parts = min(microbatches, requests) if layout.pp > 1 else 1
    sizes = split(requests, parts)
    stages = [model.pipeline_stage(layout.pp, s) for s in range(layout.pp)]
    costs = [
        {size: step_cost(gpu, stage, [Work(1, context_tokens, count=size)], layout.tp)
         for size in set(sizes)}
        for stage in stages
    ]
    sends = {size: p2p_time(gpu, size * model.hidden * ACTIVATION_BYTES)
             for size in set(sizes)}
    run = Run(layout, sizes, costs, sends, [[] for _ in stages], [[] for _ in sizes],
              free=[0.0] * layout.pp, ready=[0.0] * parts)
    run.advance(until)
    return run


def _with_bubbles(spans: list[Span], row: str, end: float) -> list[Span]:
    """A stage's spans, with every idle gap before `end` as a bubble."""
    out, clock = [], 0.0
    for span in spans:
        if span.start > clock:
            out.append(Span(row, clock, span.start, BUBBLE))
        out.append(span)
        clock = span.end
    if clock < end:
        out.append(Span(row, clock, end, BUBBLE))
    return out


def _chart(run: Run, domain: tuple[float, float], note: str) -> dict[str, Any]:
    layout = run.layout
    stage_rows = [_stage_row(layout, s) for s in range(layout.pp)]
    spans = []
    for row, stage_spans in zip(stage_rows, run.stage_spans, strict=True):
        spans += _with_bubbles(stage_spans, row, domain[1])
    token_rows = run.labels
    marks = [Mark(row, t, TOKEN) for row, times in zip(token_rows, run.tokens, strict=True)
             for t in times]
    return timeline_chart(
        titled(f"{layout.key}: {layout.label}", note),
        f"The model as {layout.label}, decoding {sum(run.sizes)} requests in {len(run.sizes)} "
        f"micro-batch(es) from a cold start: one row per pipeline stage, named by its GPUs "
        f"(busy, waiting on communication, idle in the pipeline bubble; the GPUs of a "
        f"tensor-parallel group do the same thing at the same time), and one per group of "
        f"requests, ticked when they receive a token. Same clock as the other layouts.",
        rows=[*stage_rows, *token_rows], spans=spans, marks=marks,
        states=STATES, domain=domain, unit="ms", scale=1000.0,
    )


@simulation(INPUTS)
def simulate(*, requests_in_flight: int, context_tokens: int, microbatches: int, model: str,
             model_config: str, gpu: str) -> dict[str, Any]:
    chip, shape = GPUS[gpu], model_for(model, model_config)
    args = (chip, shape, requests_in_flight, context_tokens, microbatches)
    runs = [play(layout, *args) for layout in LAYOUTS]
    # One clock for all: long enough for the slowest layout to hand every request
    # TOKENS_SHOWN tokens; then play the others on up to it.
    end = max(run.tokens[-1][TOKENS_SHOWN - 1] for run in runs)
    for run in runs:
        run.advance(end)

    fit = memory_fit(chip, shape, requests_in_flight, context_tokens + 1, GPU_COUNT)
    summary: dict[str, Any] = {"fits": fit.fits, "memory": fit.reason}
    for run in runs:
        key = run.layout.key
        summary[f"{key}_token_interval_s"] = run.interval_s
        summary[f"{key}_throughput_tokens_per_s"] = run.throughput
        summary[f"{key}_busy_fraction"] = run.busy_fraction
        summary[f"{key}_microbatches"] = len(run.sizes)
    # tp8's step holds every kind of kernel the three layouts run: the pipelines' stages
    # run the same GEMMs and attention on fewer layers, with fewer all-reduces or none.
    tp8 = pricer(chip, shape, precision_for(chip, shape), GPU_COUNT, "tp")
    regime = step_note(chip, tp8.classes([Work(1, context_tokens, count=requests_in_flight)]))
    summary["accuracy"] = f"tp8 decode step at batch {requests_in_flight}: {regime}"
    return {"summary": summary,
            "charts": [_chart(run, (0.0, end), fit.note) for run in runs]}
