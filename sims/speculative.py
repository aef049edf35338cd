"""Speculative decoding: a cheap draft guesses ahead, the target checks every guess in one pass.

Per step each sequence runs `lookahead` draft steps, then one target step over the last
accepted token plus the `lookahead` guesses. With each guess accepted independently with
probability a, the step yields 1 + a + ... + a^k tokens on average (Leviathan et al., ICML
2023, arXiv 2211.17192): the accepted prefix of the guesses, plus one token the
target adds itself (a correction at the first rejection, or a bonus after the last guess).

What the step costs is where the batch matters. The verify pass is priced by the shared
physics in `sims.physics`, operator by operator: a step with batch x (lookahead + 1) new
tokens. While decode
is memory-bound that costs about one plain decode step, so the extra tokens are almost
free; once the batch alone fills the GPU's compute, verifying k + 1 tokens costs about
k + 1 steps and speculation loses. With the verify pass costing exactly one step, the
speedup reduces to Leviathan et al.'s (1 - a^(k+1)) / ((1 - a)(ck + 1)).
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

from sims.kit import charts
from sims.kit.contract import Choice, Number, simulation
from sims.physics import (
    GPUS,
    TP_DEGREES,
    Model,
    StepCost,
    Work,
    check_group,
    decode_step,
    drafters,
    memory_fit,
    precision_for,
    step_cost,
)
from sims.physics.accuracy import step_regime
from sims.physics.drafters import DRAFT_MODEL, DRAFTERS
from sims.physics.model_choice import model_for, model_inputs

TITLE = "Verifying five tokens costs the same as making one"

# Every sequence in the batch is this far into its conversation: enough for a short chat
# turn. The KV cache it reads grows with it; the page states this figure.
CONTEXT_TOKENS = 512

# The batch sizes the batch chart sweeps, plus whatever batch the reader picked.
BATCH_SWEEP = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)

TP_CHOICES = tuple(str(degree) for degree in TP_DEGREES)
MAX_LOOKAHEAD = 16

INPUTS = (
    Number("acceptance_rate", "Acceptance rate", default=0.8, min=0.0, max=1.0, step=0.01,
           help="Chance that the target accepts each drafted token (alpha in Leviathan et al.)."),
    Number("lookahead", "Lookahead", default=4, min=1, max=MAX_LOOKAHEAD, unit="tokens",
           help="Tokens the draft guesses before the target checks them (gamma in the paper)."),
    Number("draft_cost", "Draft cost", default=0.05, min=0.0, max=1.0, step=0.01,
           unit="x target step",
           help="A draft step's time over a target decode step's at the same batch "
                "(c in the paper)."),
    Number("batch_size", "Batch size", default=8, min=1, max=512, unit="sequences",
           help=f"Sequences decoding together, each {CONTEXT_TOKENS} tokens into its context."),
    *model_inputs("llama-3.1-70b", label="Target model"),
    Choice("gpu", "GPU", "h100", tuple(GPUS)),
    Choice("tp", "Tensor-parallel GPUs", "4", TP_CHOICES,
           help="GPUs the target is split over."),
    Choice("drafter", "Drafter", DRAFT_MODEL, DRAFTERS,
           help="draft-model: the acceptance rate and draft cost above. mtp (DeepSeek-V3's own "
                "module, one guess a step) and eagle-3 bring their measured acceptance and "
                "cost one layer of the target (sims/physics/drafters.py)."),
)

METRICS = {
    "expected_tokens_per_step": "Tokens per sequence per step, on average (tokens)",
    "speedup": "Speedup over plain decoding at this batch (x)",
    "best_lookahead": "Lookahead with the highest speedup (tokens)",
    "best_speedup": "Speedup at that lookahead (x)",
    "target_step_time_s": "Plain decode step of the target (s)",
    "verify_step_time_s": "Verify pass over lookahead + 1 tokens (s)",
    "draft_time_s": "Drafting, all lookahead steps (s)",
    "verify_bound": "What limits the verify pass (compute or memory)",
    "fits_in_memory": "Target weights and KV cache fit on the GPUs",
    "memory": "Memory each GPU needs, against what it can use",
    "acceptance_rate_used": "Acceptance rate of the drafter (per guess)",
    "draft_cost_used": "One draft step over one target step at this batch (x target step)",
    "lookahead_used": "Guesses the drafter makes each step (tokens)",
    "accuracy": "Regime of the verify pass and the measured error there",
}


def expected_tokens(acceptance_rate: float, lookahead: int) -> float:
    """Tokens one step yields on average: sum of a^i for i = 0..k.

    This is (1 - a^(k+1)) / (1 - a) written without the division, so a = 1 (every guess
    accepted: k + 1 tokens) and a = 0 (only the target's own token: 1) need no special case.
    """
    return sum(map(pow, repeat(acceptance_rate, lookahead + 1), range(lookahead + 1)))


def speedup(
    acceptance_rate: float, lookahead: int, draft_cost: float, target_s: float, verify_s: float
) -> float:
    """Plain decoding's time per token over speculative decoding's.

    A speculative step takes k draft steps plus one verify pass and yields
    `expected_tokens` tokens; plain decoding yields one token per target step.
    """
    step_s = lookahead * draft_cost * target_s + verify_s
    return expected_tokens(acceptance_rate, lookahead) * target_s / step_s


def _verify(gpu: str, model: Model, tp: int, batch: int, lookahead: int) -> StepCost:
    """The target's pass over each sequence's last token plus its `lookahead` guesses."""
    work = [Work(lookahead + 1, CONTEXT_TOKENS, count=batch)]
    return step_cost(GPUS[gpu], model, work, tp)


def _verify_note(gpu: str, shape: Model, tp: int, batch: int, lookahead: int) -> str:
    """The kernels `_verify`'s pass spends its time in, and the error measured there."""
    chip = GPUS[gpu]
    work = [Work(lookahead + 1, CONTEXT_TOKENS, count=batch)]
    return step_regime(chip, shape, precision_for(chip, shape), tp, "tp", work)


def _target_s(gpu: str, model: Model, tp: int, batch: int) -> float:
    return decode_step(GPUS[gpu], model, batch, CONTEXT_TOKENS, tp).time_s


def _speedup_chart(
    title: str, description: str, rows: list[dict[str, Any]], x: dict[str, Any],
    detail: dict[str, Any],
) -> dict[str, Any]:
    """Speedup against `x`: a line, a dashed break-even rule at 1, a large dot at the
    current inputs (rows flagged `current`); `detail` is one more field for the tooltip."""
    # The break-even rule at 1 is always in view.
    top = max(1.0, *(row["speedup"] for row in rows))
    y = {"field": "speedup", "type": "quantitative", "title": "Speedup (x)",
         **charts.value_axis(top)}
    tooltip = [x, y, detail]
    return charts.chart(
        title,
        description,
        rows,
        layer=[
            {"mark": {"type": "rule", "strokeDash": [4, 4], "color": "#888"},
             "encoding": {"y": {"datum": 1}}},
            {"mark": {"type": "line", "point": True},
             "encoding": {"x": x, "y": y, "tooltip": tooltip}},
            {"transform": [{"filter": "datum.current"}],
             "mark": {"type": "point", "filled": True, "size": 160, "color": "#f58518",
                      "opacity": 1},
             "encoding": {"x": x, "y": y, "tooltip": tooltip}},
        ],
    )


@simulation(INPUTS)
def simulate(
    *,
    acceptance_rate: float,
    lookahead: int,
    draft_cost: float,
    batch_size: int,
    model: str, model_config: str,
    gpu: str,
    tp: str,
    drafter: str,
) -> dict[str, Any]:
    shards, target = int(tp), model_for(model, model_config)
    check_group(GPUS[gpu], target, shards)
    target_s = _target_s(gpu, target, shards, batch_size)
    # A built-in drafter replaces the reader's acceptance, cost (and for MTP, lookahead).
    chosen = drafters.drafter(drafter, acceptance_rate, lookahead, draft_cost, GPUS[gpu],
                              target, shards, CONTEXT_TOKENS)
    acceptance_rate, lookahead = chosen.acceptance, chosen.lookahead
    draft_cost = chosen.cost(batch_size)

    by_lookahead = []
    for k in range(1, (chosen.most or MAX_LOOKAHEAD) + 1):
        verify_s = _verify(gpu, target, shards, batch_size, k).time_s
        by_lookahead.append({
            "lookahead": k,
            "speedup": speedup(acceptance_rate, k, draft_cost, target_s, verify_s),
            "expected_tokens": expected_tokens(acceptance_rate, k),
            "current": k == lookahead,
        })
    # Ties go to the shorter lookahead: same speed for less drafting work.
    best = max(by_lookahead, key=lambda row: (row["speedup"], -row["lookahead"]))

    by_batch = []
    for batch in sorted({*BATCH_SWEEP, batch_size}):
        plain_s = _target_s(gpu, target, shards, batch)
        verify = _verify(gpu, target, shards, batch, lookahead)
        by_batch.append({
            "batch_size": batch,
            "speedup": speedup(acceptance_rate, lookahead, chosen.cost(batch), plain_s,
                               verify.time_s),
            "verify_bound": verify.bound,
            "current": batch == batch_size,
        })

    verify = _verify(gpu, target, shards, batch_size, lookahead)
    fit = memory_fit(GPUS[gpu], target, batch_size, CONTEXT_TOKENS + lookahead + 1, shards)
    return {
        "summary": {
            "expected_tokens_per_step": expected_tokens(acceptance_rate, lookahead),
            "speedup": speedup(acceptance_rate, lookahead, draft_cost, target_s, verify.time_s),
            "best_lookahead": best["lookahead"],
            "best_speedup": best["speedup"],
            "target_step_time_s": target_s,
            "verify_step_time_s": verify.time_s,
            "draft_time_s": lookahead * draft_cost * target_s,
            "verify_bound": verify.bound,
            "fits_in_memory": fit.fits,
            "memory": fit.reason,
            "acceptance_rate_used": acceptance_rate,
            "draft_cost_used": draft_cost,
            "lookahead_used": lookahead,
            "accuracy": f"Verify pass of {batch_size} x {lookahead + 1} tokens: "
                        f"{_verify_note(gpu, target, shards, batch_size, lookahead)}",
        },
        "charts": [
            _speedup_chart(
                charts.titled("Speedup against lookahead", fit.note),
                "Speedup over plain decoding for each lookahead, other inputs as set. The "
                "dashed line is break-even; the orange dot is the current lookahead.",
                by_lookahead,
                {"field": "lookahead", "type": "quantitative", "title": "Lookahead k (tokens)",
                 "axis": {"tickMinStep": 1}},
                {"field": "expected_tokens", "type": "quantitative",
                 "title": "Tokens per step", "format": ".2f"},
            ),
            _speedup_chart(
                "Speedup against batch size",
                "Speedup over plain decoding as the batch grows, other inputs as set. The "
                "dashed line is break-even; the orange dot is the current batch.",
                by_batch,
                {"field": "batch_size", "type": "quantitative",
                 "title": "Batch size (sequences)", "scale": {"type": "log", "base": 2},
                 "axis": {"values": list(BATCH_SWEEP)}},
                {"field": "verify_bound", "type": "nominal", "title": "Verify pass is"},
            ),
        ],
    }
