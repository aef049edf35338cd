"""Tokens per speculative step, measured by running the rule, match Leviathan et al.'s count.

With the same p and q at every position each guess is kept independently with probability
a = sum(min(p, q)), so a step of lookahead k yields T tokens, where T - 1 is the number of
guesses kept before the first rejection (at most k). Its mean is 1 + a + ... + a^k; the
tests compare the sim's measurement with that mean, within a tolerance set from T's exact
variance, so they test the rule and the step bookkeeping rather than a chosen seed.
"""

from __future__ import annotations

import math
import random

import pytest

from sims import spec_sampling
from sims.spec_sampling import speculative_sample, tokens_per_step

# Tolerance in standard errors: about a hundred comparisons run with fixed seeds, so a
# correct sim fails one of them with probability far below one in a million.
SIGMAS = 5


def step_distribution(a: float, k: int) -> dict[int, float]:
    """P(T = j): j - 1 guesses kept then one rejected, or all k kept (T = k + 1)."""
    law = {j: a ** (j - 1) * (1 - a) for j in range(1, k + 1)}
    law[k + 1] = a**k
    return law


def mean_and_sd(a: float, k: int) -> tuple[float, float]:
    law = step_distribution(a, k)
    mean = sum(j * w for j, w in law.items())
    return mean, math.sqrt(sum(j * j * w for j, w in law.items()) - mean**2)


@pytest.mark.parametrize("preset", list(spec_sampling.PRESETS))
@pytest.mark.parametrize("skew", [0.3, 0.7, 1.0])
@pytest.mark.parametrize("lookahead", [1, 4, 9])
@pytest.mark.parametrize("seed", [1, 2])
def test_measured_tokens_per_step_match_the_geometric_sum(
    preset: str, skew: float, lookahead: int, seed: int
) -> None:
    summary = spec_sampling.simulate(
        vocab_size=12, samples=10_000, seed=seed, preset=preset, skew=skew, lookahead=lookahead
    )["summary"]
    a = summary["acceptance_rate_theory"]
    mean, sd = mean_and_sd(a, lookahead)
    steps = 10_000 // lookahead
    assert summary["tokens_per_step_theory"] == pytest.approx(mean, rel=1e-5)
    assert abs(summary["tokens_per_step_measured"] - mean) < SIGMAS * sd / math.sqrt(steps)


def test_the_closed_form_equals_the_sum() -> None:
    """(1 - a^(k+1)) / (1 - a), Leviathan et al.'s form, is the sum the sim reports."""
    for lookahead in (1, 3, 8, 16):
        summary = spec_sampling.simulate(preset="shifted", skew=0.6, lookahead=lookahead)[
            "summary"
        ]
        a = summary["acceptance_rate_theory"]
        closed = (1 - a ** (lookahead + 1)) / (1 - a)
        assert summary["tokens_per_step_theory"] == pytest.approx(closed, rel=1e-5)


@pytest.mark.parametrize("lookahead", [1, 5, 16])
def test_a_perfect_draft_yields_lookahead_plus_one(lookahead: int) -> None:
    summary = spec_sampling.simulate(skew=0.0, lookahead=lookahead)["summary"]
    assert summary["tokens_per_step_measured"] == lookahead + 1
    assert summary["tokens_per_step_theory"] == pytest.approx(lookahead + 1)


def test_a_draft_that_is_always_wrong_yields_the_targets_token_only() -> None:
    """p and q share no token: every first guess is rejected, each step yields one token."""
    _, kept = speculative_sample([1.0, 0.0], [0.0, 1.0], 4000, random.Random(3))
    assert tokens_per_step(kept, 8) == 1


@pytest.mark.parametrize(
    ("kept", "lookahead", "tokens"),
    [
        # Steps of 4: two kept then a rejection (3 tokens), all four kept (4 + the bonus),
        # rejected at once (1); the last, incomplete step is left out.
        ("KKRK KKKK RKKK K", 4, (3 + 5 + 1) / 3),
        ("KRKK", 1, (2 + 1 + 2 + 2) / 4),
        ("RRRRRR", 3, 1),
        ("KKKKKKKKK", 3, 4),
    ],
)
def test_steps_end_at_their_first_rejection(kept: str, lookahead: int, tokens: float) -> None:
    verdicts = [mark == "K" for mark in kept.replace(" ", "")]
    assert tokens_per_step(verdicts, lookahead) == pytest.approx(tokens)


def test_more_lookahead_never_lowers_the_expected_count() -> None:
    theory = [
        spec_sampling.simulate(lookahead=k)["summary"]["tokens_per_step_theory"]
        for k in range(1, 17)
    ]
    assert theory == sorted(theory)
    gains = [b - a for a, b in zip(theory, theory[1:], strict=False)]
    assert gains == sorted(gains, reverse=True), "each extra guess adds less than the last"
