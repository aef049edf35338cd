"""Chunked prefill: a long prompt's prefill cut into slices that ride in the decode steps.

Some streams are mid-reply, one token per step each, when a long prompt arrives. Two ways
to schedule it, both iteration-level:

- Prefill alone: the next step is the whole prompt's prefill, with no decode work in it.
  Every stream waits for it; the prompt gets its first token at the end of that step.
- Chunked (Sarathi-Serve, Agrawal et al., OSDI 2024): every step carries all the decode
  tokens plus a slice of `chunk_tokens` prompt tokens, so the step's token budget is the
  decode tokens plus one chunk. The streams keep getting a token each step; the prompt's
  first token comes at the end of the step holding its last slice.

Why the ridge point is the natural chunk: a step is priced operator by operator by the
shared physics (`sims.physics.step_cost`). Below the GPU's ridge in tokens the step costs
about one read of the weights however many tokens it carries, so prompt tokens ride for
little; above it each extra token adds compute time, and the streams' gap grows with the
chunk.
Smaller chunks keep the gap at a plain decode step but need more steps, each paying the
weight read again, so the prompt waits longer for its first token.

The prompt arrives at a step boundary (time 0). Contexts are held fixed while decoding:
the streams' at `context_tokens`, the prompt's at its length once it has its first token
(a few dozen tokens more or less change a step by a fraction of a percent). The prompt's
own KV is read by each later slice, and its attention to earlier slices is counted, so
later slices cost more. Every decoding stream gets its tokens at the same instants, so the
charts draw them as one row.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from sims.chunked_prefill_charts import DECODE, MIXED, PREFILL, sweep_chart, timelines
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
    precision_for,
    ridge_tokens,
    step_cost,
    step_series,
)
from sims.physics.accuracy import step_regime
from sims.physics.model_choice import model_for, model_inputs

TITLE = "A long prompt should not stall everyone else"

# The smallest chunk the reader may pick. Each step re-reads the weights, so a tiny chunk
# means hundreds of steps; this bound keeps the sim well inside its time budget in the
# browser while still reaching below every GPU's BF16 ridge point (the lowest is the A100's).
# A ridge below it (weight-only FP4 or FP8 lowers it) is run at this size.
MIN_CHUNK_TOKENS = 128
MAX_PROMPT_TOKENS = 32768
MAX_CHUNK_TOKENS = 16384

# Decode steps drawn before the prompt arrives and after both schedules have answered it.
LEAD_STEPS = 3
TAIL_STEPS = 3


INPUTS = (
    Number("streams", "Decoding streams", default=16, min=1, max=64, unit="streams",
           help="Requests already mid-reply, one token per step each."),
    Number("context_tokens", "Context per stream", default=2048, min=0, max=32768, step=256,
           unit="tokens", help="Tokens already in each decoding stream's KV cache."),
    Number("prompt_tokens", "Long prompt", default=16384, min=1024, max=MAX_PROMPT_TOKENS,
           step=1024, unit="tokens", help="The prompt that arrives while they decode."),
    Number("chunk_tokens", "Chunk size", default=0, min=0, max=MAX_CHUNK_TOKENS, step=128,
           unit="tokens",
           help=f"Prompt tokens per step: 0 for the GPU's ridge point, else at least "
                f"{MIN_CHUNK_TOKENS}."),
    *model_inputs("llama-3.1-70b"),
    Choice("gpu", "GPU", "h200", tuple(GPUS)),
    Choice("tp", "Tensor-parallel GPUs", "2", tuple(str(t) for t in TP_DEGREES),
           help="GPUs the model is split over."),
    WEIGHTS_INPUT,
    KV_INPUT,
)

METRICS = {
    "ridge_chunk_tokens": "Ridge point of the GPU, in tokens per step (tokens)",
    "chunk_tokens_used": "Chunk size this run used (tokens)",
    "chunks": "Steps the chunked prefill takes (chunks)",
    "decode_step_s": "One decode step with no prompt in it (s)",
    "unchunked_stall_s": "Prefill alone: longest gap between a stream's tokens (s)",
    "chunked_max_gap_s": "Chunked: longest gap between a stream's tokens (s)",
    "unchunked_ttft_s": "Prefill alone: time to the prompt's first token (s)",
    "chunked_ttft_s": "Chunked: time to the prompt's first token (s)",
    "fits": "Weights and every KV cache fit on the GPUs",
    "memory": "Memory each GPU needs, against what it can use",
    "accuracy": "Regime of a chunked step and the measured error there",
}


class Step(NamedTuple):
    """One iteration of the engine: when it ran, what it held, and who got a token.
    (A tuple: the chunk-size sweep makes hundreds per run.)"""

    start: float
    end: float
    kind: str
    streams_served: bool  # did the decoding streams get a token at its end?
    prompt_answered: bool  # is this the step that gives the prompt its first token?


@dataclass(frozen=True)
class Setup:
    """Everything a schedule needs to price its steps."""

    gpu: Gpu
    model: Model
    tp: int
    precision: Precision
    streams: int
    context_tokens: int
    prompt_tokens: int

    def step_s(self, work: list[Work]) -> float:
        return step_cost(self.gpu, self.model, work, self.tp, self.precision).time_s

    def decodes(self) -> Work:
        return Work(1, self.context_tokens, count=self.streams)

    @functools.cached_property
    def decode_s(self) -> float:
        """A decode step of the streams alone."""
        return self.step_s([self.decodes()])

    @functools.cached_property
    def decode_with_prompt_s(self) -> float:
        """A decode step of the streams and the answered prompt (every schedule ends so)."""
        return self.step_s([self.decodes(), Work(1, self.prompt_tokens)])


def _lead_in(setup: Setup) -> list[Step]:
    """Plain decode steps before the prompt arrives, ending at time 0."""
    step = setup.decode_s
    return [
        Step(-(LEAD_STEPS - i) * step, -(LEAD_STEPS - i - 1) * step, DECODE, True, False)
        for i in range(LEAD_STEPS)
    ]


def decode_after(setup: Setup, steps: list[Step], more: int) -> list[Step]:
    """`more` decode steps after `steps`, the prompt (answered by now) decoding too."""
    step = setup.decode_with_prompt_s
    start = steps[-1].end
    return [Step(start + i * step, start + (i + 1) * step, DECODE, True, False)
            for i in range(more)]


def prefill_alone(setup: Setup) -> list[Step]:
    """The prompt's prefill as one step of its own, then one decode step."""
    work = Work(setup.prompt_tokens, logit_tokens=1)  # logits only to sample its first token
    prefill = [Step(0.0, setup.step_s([work]), PREFILL, False, True)]
    return prefill + decode_after(setup, prefill, 1)


def slice_times(setup: Setup, chunk: int) -> list[float]:
    """How long each step of the chunked prefill takes, in order.

    Step k carries every decode plus prompt tokens [k*chunk, (k+1)*chunk); only the last
    slice needs logits (its final position samples the first token). Later slices cost more:
    they attend to, and read the KV of, the slices already done.
    """
    full = (setup.prompt_tokens - 1) // chunk  # slices before the last one
    final = setup.prompt_tokens - full * chunk
    decodes = setup.decodes()
    times = step_series(setup.gpu, setup.model, [decodes], chunk, 0, chunk, full, setup.tp,
                        setup.precision, logit_tokens=0)
    times.append(setup.step_s([decodes, Work(final, full * chunk, logit_tokens=1)]))
    return times


def chunked(setup: Setup, chunk: int) -> list[Step]:
    """Every step: all decode tokens plus the next `chunk` prompt tokens; then one decode."""
    times = slice_times(setup, chunk)
    ends = list(itertools.accumulate(times))
    steps = [
        Step(end - time, end, MIXED, True, k == len(times) - 1)
        for k, (time, end) in enumerate(zip(times, ends, strict=True))
    ]
    return steps + decode_after(setup, steps, 1)


def longest_gap(steps: list[Step]) -> float:
    """Longest wait between two tokens of a decoding stream; its last token came at 0.

    Schedules end one decode step after the prompt's first token, which covers every gap
    the prompt causes (the first step it decodes in is a little slower than the rest).
    """
    return _widest_gap(step.end for step in steps if step.streams_served)


def _widest_gap(token_times: Iterable[float]) -> float:
    """The longest wait between successive token times, the first counted from 0."""
    times = list(token_times)
    return max(0.0, max(map(operator.sub, times, [0.0, *times]), default=0.0))


def sweep_point(setup: Setup, chunk: int) -> tuple[float, float]:
    """(longest gap, time to first token) of `chunked(setup, chunk)`, the same numbers
    without building its steps: the chunk-size sweep needs only these two."""
    ends = list(itertools.accumulate(slice_times(setup, chunk)))
    after = ends[-1] + setup.decode_with_prompt_s  # the decode step `chunked` ends with
    return _widest_gap([*ends, after]), ends[-1]


def ttft(steps: list[Step]) -> float:
    return next(step.end for step in steps if step.prompt_answered)


@simulation(INPUTS)
def simulate(
    *, streams: int, context_tokens: int, prompt_tokens: int, chunk_tokens: int, model: str,
    model_config: str, gpu: str, tp: str, weights: str, kv: str,
) -> dict[str, Any]:
    if 0 < chunk_tokens < MIN_CHUNK_TOKENS:
        raise InputError(
            "chunk_tokens",
            f"expected 0 (the ridge point) or from {MIN_CHUNK_TOKENS} to {MAX_CHUNK_TOKENS} "
            f"tokens, got {chunk_tokens}",
        )
    chip, shape = GPUS[gpu], model_for(model, model_config)
    check_group(chip, shape, int(tp))
    setup = Setup(chip, shape, int(tp), precision_for(chip, shape, weights, kv=kv), streams,
                  context_tokens, prompt_tokens)
    ridge = ridge_tokens(setup.gpu, setup.model, setup.precision)
    # "0" is the ridge, but never a chunk below the smallest the reader may pick: FP4
    # weights on a GPU without an FP4 rate bring the ridge down to a few dozen tokens, and
    # a schedule of a thousand slices would not fit the sim's time budget.
    chunk = chunk_tokens or max(ridge, MIN_CHUNK_TOKENS)

    alone = prefill_alone(setup)
    sliced = chunked(setup, chunk)
    decode_s = setup.decode_s

    sizes = {max(ridge, MIN_CHUNK_TOKENS), chunk}
    size = MIN_CHUNK_TOKENS
    while size < prompt_tokens:
        sizes.add(size)
        size *= 2
    sizes.add(prompt_tokens)
    sweep = []
    for size in sorted(s for s in sizes if s <= prompt_tokens):
        gap, first = (longest_gap(sliced), ttft(sliced)) if size == chunk \
            else sweep_point(setup, size)
        sweep.append({"chunk_tokens": size, "gap_ms": gap * 1000, "ttft_s": first})

    # Both timelines on one clock, from a few steps before the prompt to a few after the
    # later of the two first tokens.
    end = max(ttft(alone), ttft(sliced)) + TAIL_STEPS * decode_s
    lead = _lead_in(setup)
    domain = (lead[0].start, end)
    # Steps after the prompt's answer are a little slower than decode_s, so this many
    # reach the end of the clock; the chart clips what runs past it.
    drawn = [
        lead + steps + decode_after(setup, steps, int((end - steps[-1].end) / decode_s) + 1)
        for steps in (alone, sliced)
    ]
    fit = memory_fit(setup.gpu, setup.model, streams, context_tokens + 1, setup.tp,
                     setup.precision, more=[(1, prompt_tokens + 1)])
    # The first slice's step, as slice_times prices it: the streams plus one chunk.
    first = min(chunk, prompt_tokens)
    regime = step_regime(chip, shape, setup.precision, setup.tp, "tp",
        [setup.decodes(), Work(first, 0, logit_tokens=int(first == prompt_tokens))])
    return {
        "summary": {
            "ridge_chunk_tokens": ridge,
            "chunk_tokens_used": chunk,
            "chunks": sum(step.kind == MIXED for step in sliced),
            "decode_step_s": decode_s,
            "unchunked_stall_s": longest_gap(alone),
            "chunked_max_gap_s": longest_gap(sliced),
            "unchunked_ttft_s": ttft(alone),
            "chunked_ttft_s": ttft(sliced),
            "fits": fit.fits,
            "memory": fit.reason,
            "accuracy": f"Chunked step, {first:,} prompt tokens beside a decode batch of "
                        f"{streams}: {regime}",
        },
        "charts": [
            *timelines(drawn, (ttft(alone), ttft(sliced)), streams, prompt_tokens, chunk,
                       LEAD_STEPS, domain, fit.note),
            sweep_chart(sweep, max(ridge, MIN_CHUNK_TOKENS), prompt_tokens),
        ],
    }
