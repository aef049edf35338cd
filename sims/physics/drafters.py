"""Where a speculative step's guesses come from: a draft model the reader describes, or a
drafter built into the target, with the acceptance its measurements report.

- "draft-model": a separate small model, described by hand: its acceptance rate and its cost
  as a share of one target step (the speculative sim's own inputs).
- "mtp": DeepSeek-V3's multi-token-prediction module as the drafter. The model ships one
  module, so it guesses one token a step. Its technical report (arXiv 2412.19437, Section
  5.4.3) puts the acceptance of that second token at 85% to 90% across topics; the low end
  is taken. Only a model trained with such a module can use it.
- "eagle-3": an EAGLE-3 drafter (Li et al., arXiv 2503.01840). The paper reports acceptance
  as tree-drafting lengths we could not read from the stored sources; the figure used is a
  measurement by vLLM's developers of the published EAGLE-3 drafter for Llama 3.1 8B
  Instruct on MT-bench at temperature 0, drafting 7 tokens in a chain: 12,208 of 33,712
  drafted tokens accepted over 4,816 drafts (github.com/vllm-project/vllm/issues/26191),
  turned into the per-guess rate a that gives that mean under independent guesses.

Both built-in drafters are one transformer layer of the target's shape run before its
output head, so their cost is priced by the shared physics as the target's last layer and
head (`Model.pipeline_stage`) against the whole target, at the same batch and context.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from sims.kit.contract import InputError
from sims.physics import Gpu, Model, decode_step

DRAFT_MODEL, MTP, EAGLE3 = "draft-model", "mtp", "eagle-3"
DRAFTERS = (DRAFT_MODEL, MTP, EAGLE3)

MTP_ACCEPTANCE = 0.85  # DeepSeek-V3 report: the second token accepted 85% to 90% of the time
MTP_LOOKAHEAD = 1  # one MTP module: one guess a step
MTP_MODELS = ("deepseek-v3",)  # the catalogue's models trained with an MTP module

# vLLM issue 26191 (EAGLE3-LLaMA3.1-Instruct-8B, MT-bench, temperature 0): accepted tokens,
# drafts, tokens per draft.
EAGLE3_ACCEPTED, EAGLE3_DRAFTS, EAGLE3_DRAFT_TOKENS = 12208, 4816, 7


def acceptance_for(mean_accepted: float, lookahead: int) -> float:
    """The per-guess rate a with a + a^2 + ... + a^k = `mean_accepted` (bisection: the sum
    rises with a from 0 to k)."""
    if not 0 <= mean_accepted <= lookahead:
        raise ValueError(f"{mean_accepted} accepted of {lookahead} guesses is not a mean")
    low, high = 0.0, 1.0
    for _ in range(60):
        middle = (low + high) / 2
        total, power = 0.0, 1.0
        for _ in range(lookahead):
            power *= middle
            total += power
        low, high = (middle, high) if total < mean_accepted else (low, middle)
    return (low + high) / 2


EAGLE3_ACCEPTANCE = acceptance_for(EAGLE3_ACCEPTED / EAGLE3_DRAFTS, EAGLE3_DRAFT_TOKENS)


class Drafter(NamedTuple):
    """A drafter as the speculative step uses it: how often its guesses survive, how many it
    makes, and what one draft step costs as a share of a target step at a given batch."""

    acceptance: float
    lookahead: int
    cost: Callable[[int], float]
    most: int | None = None  # the most guesses it can make a step (None: any)


def layer_cost(gpu: Gpu, model: Model, tp: int, context: int) -> Callable[[int], float]:
    """One layer of `model` and its output head over the whole model, per batch size."""
    head = model.pipeline_stage(model.layers, model.layers - 1)

    def share(batch: int) -> float:
        return (decode_step(gpu, head, batch, context, tp).time_s
                / decode_step(gpu, model, batch, context, tp).time_s)

    return share


def drafter(name: str, acceptance_rate: float, lookahead: int, draft_cost: float, gpu: Gpu,
            model: Model, tp: int, context: int) -> Drafter:
    """The drafter `name` on this target; a draft model takes the reader's figures."""
    if name == DRAFT_MODEL:
        return Drafter(acceptance_rate, lookahead, lambda batch: draft_cost)
    if name == MTP:
        if model.key not in MTP_MODELS:
            raise InputError("drafter", f"expected draft-model or eagle-3 for {model.name}: "
                                        f"multi-token prediction needs a model trained with an "
                                        f"MTP module (in the catalogue, {', '.join(MTP_MODELS)})")
        return Drafter(MTP_ACCEPTANCE, MTP_LOOKAHEAD, layer_cost(gpu, model, tp, context),
                       most=MTP_LOOKAHEAD)
    return Drafter(EAGLE3_ACCEPTANCE, lookahead, layer_cost(gpu, model, tp, context))
