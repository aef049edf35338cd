"""The rejection rule's output is the target's distribution, checked by chi-square tests.

scipy is not available, so the critical value comes from the Wilson-Hilferty
approximation (E. B. Wilson and M. M. Hilferty, "The distribution of chi-square",
PNAS 17, 1931): (X/df)^(1/3) is close to normal with mean 1 - 2/(9 df) and variance
2/(9 df). The approximation is itself checked against numpy's chi-square generator below.
"""

from __future__ import annotations

import itertools
import math
import random
from statistics import NormalDist

import numpy as np
import pytest

from sims import spec_sampling
from sims.spec_sampling import distributions, speculative_sample

# Per-test false-alarm rate. About a hundred distribution tests run, so the chance that a
# correct sampler fails any of them is about 1%; the seeds are fixed, so it is decided
# once, not on every run.
ALPHA = 1e-4


def chi_square_critical(df: int, alpha: float) -> float:
    """Upper alpha quantile of chi-square with df degrees of freedom (Wilson-Hilferty)."""
    z = NormalDist().inv_cdf(1 - alpha)
    spread = 2 / (9 * df)
    return df * (1 - spread + z * math.sqrt(spread)) ** 3


def chi_square(counts: np.ndarray, probabilities: np.ndarray) -> float:
    expected = counts.sum() * probabilities
    return float(((counts - expected) ** 2 / expected).sum())


def fits(counts: list[int] | np.ndarray, p: list[float]) -> bool:
    """Goodness of fit at ALPHA: do these counts look like draws from p?"""
    statistic = chi_square(np.asarray(counts, dtype=float), np.asarray(p))
    return statistic < chi_square_critical(len(p) - 1, ALPHA)


@pytest.mark.parametrize("df", [1, 2, 9, 31])
@pytest.mark.parametrize("alpha", [0.05, 0.01])
def test_wilson_hilferty_critical_value_has_the_stated_tail(df: int, alpha: float) -> None:
    draws = np.random.default_rng(df).chisquare(df, size=400_000)
    tail = float((draws > chi_square_critical(df, alpha)).mean())
    # Wilson-Hilferty is loosest at df = 1; a relative error under a quarter is plenty
    # for a test whose failures are orders of magnitude away from the threshold.
    assert tail == pytest.approx(alpha, rel=0.25)


CASES = list(itertools.product([2, 10, 32], list(spec_sampling.PRESETS), [0.5, 1.0]))


@pytest.mark.parametrize(("vocab", "preset", "skew"), CASES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_output_follows_the_target(vocab: int, preset: str, skew: float, seed: int) -> None:
    p, q = distributions(vocab, preset, skew)
    counts, _ = speculative_sample(p, q, 10_000, random.Random(seed))
    assert sum(counts) == 10_000
    assert fits(counts, p)


@pytest.mark.parametrize(("vocab", "preset"), [(10, "sharper"), (32, "flatter"), (32, "shifted")])
def test_output_follows_the_target_at_large_sample(vocab: int, preset: str) -> None:
    p, q = distributions(vocab, preset, 0.8)
    counts, _ = speculative_sample(p, q, 200_000, random.Random(7))
    assert fits(counts, p)


@pytest.mark.parametrize(("vocab", "preset", "skew"), CASES)
def test_the_draft_alone_does_not(vocab: int, preset: str, skew: float) -> None:
    """Power: the same test, at the same sample size, rejects the draft's own draws."""
    p, q = distributions(vocab, preset, skew)
    counts = np.random.default_rng(vocab).multinomial(10_000, q)
    assert not fits(counts, p)


@pytest.mark.parametrize("preset", list(spec_sampling.PRESETS))
def test_a_common_mistake_is_caught(preset: str) -> None:
    """Power: resampling a rejected token from p instead of max(0, p - q) is biased."""
    p, q = distributions(10, preset, 0.8)
    rng = np.random.default_rng(5)
    drafts = rng.choice(10, size=10_000, p=q)
    keep = rng.random(10_000) < np.minimum(1, np.asarray(p)[drafts] / np.asarray(q)[drafts])
    wrong = np.where(keep, drafts, rng.choice(10, size=10_000, p=p))
    assert not fits(np.bincount(wrong, minlength=10), p)


@pytest.mark.parametrize(("vocab", "preset", "skew"), CASES)
@pytest.mark.parametrize("seed", [1, 2])
def test_measured_acceptance_is_close_to_theory(
    vocab: int, preset: str, skew: float, seed: int
) -> None:
    summary = spec_sampling.simulate(
        vocab_size=vocab, preset=preset, skew=skew, samples=10_000, seed=seed
    )["summary"]
    theory = summary["acceptance_rate_theory"]
    sigma = math.sqrt(theory * (1 - theory) / 10_000)
    assert abs(summary["acceptance_rate_measured"] - theory) < 4.5 * sigma


def test_acceptance_is_one_minus_total_variation() -> None:
    for vocab, preset, skew in CASES:
        summary = spec_sampling.simulate(vocab_size=vocab, preset=preset, skew=skew)["summary"]
        assert summary["total_variation_draft_vs_target"] == pytest.approx(
            1 - summary["acceptance_rate_theory"], abs=2e-6
        )


@pytest.mark.parametrize(
    ("preset", "q", "acceptance"),
    [
        ("flatter", [1 / 2, 1 / 2], 1 / 2 + 1 / 3),  # skew 1: uniform
        ("shifted", [1 / 3, 2 / 3], 1 / 3 + 1 / 3),  # skew 1: the two tokens swap
        ("sharper", [16 / 17, 1 / 17], 2 / 3 + 1 / 17),  # skew 1: p^4 renormalised
    ],
)
def test_two_token_hand_values(preset: str, q: list[float], acceptance: float) -> None:
    """Zipf over two tokens is p = (2/3, 1/3); sharper at skew 1 is (16/81, 1/81) / (17/81)."""
    p, drafted = distributions(2, preset, 1.0)
    assert p == pytest.approx([2 / 3, 1 / 3])
    assert drafted == pytest.approx(q)
    summary = spec_sampling.simulate(vocab_size=2, preset=preset, skew=1.0)["summary"]
    assert summary["acceptance_rate_theory"] == pytest.approx(acceptance, abs=1e-6)


@pytest.mark.parametrize("preset", list(spec_sampling.PRESETS))
def test_a_perfect_draft_is_always_kept(preset: str) -> None:
    p, q = distributions(10, preset, 0.0)
    assert q == pytest.approx(p)
    result = spec_sampling.simulate(vocab_size=10, preset=preset, skew=0.0)
    assert result["summary"]["acceptance_rate_measured"] == 1
    assert result["summary"]["acceptance_rate_theory"] == pytest.approx(1)


def test_output_is_much_closer_to_the_target_than_the_draft() -> None:
    for vocab, preset, skew in CASES:
        summary = spec_sampling.simulate(
            vocab_size=vocab, preset=preset, skew=skew, samples=10_000
        )["summary"]
        assert summary["total_variation_output_vs_target"] < 0.05
        assert (
            summary["total_variation_output_vs_target"]
            < summary["total_variation_draft_vs_target"] / 4
        )


def test_the_page_table_holds_the_sampled_output() -> None:
    result = spec_sampling.simulate(vocab_size=12, samples=8000, seed=4, preset="shifted")
    rows = result["tables"][0]["rows"]
    counts = [round(row["output"] * 8000) for row in rows]
    assert sum(counts) == 8000
    assert fits(counts, [row["target"] for row in rows])


def test_deterministic_given_the_seed() -> None:
    assert spec_sampling.simulate(seed=9) == spec_sampling.simulate(seed=9)
    assert spec_sampling.simulate(seed=9) != spec_sampling.simulate(seed=10)


def test_metrics_label_every_summary_key() -> None:
    assert set(spec_sampling.METRICS) == set(spec_sampling.simulate()["summary"])


@pytest.mark.parametrize(
    ("name", "value"), [("vocab_size", 1), ("samples", 10_001), ("preset", "uniform")]
)
def test_bad_inputs_name_the_input(name: str, value: object) -> None:
    with pytest.raises(ValueError, match=name):
        spec_sampling.simulate(**{name: value})


class AlmostOne(random.Random):
    """A generator whose every draw is the largest float below 1."""

    def random(self) -> float:
        return 1 - 2**-53


def test_a_rounding_rejection_with_no_residual_still_yields_a_token() -> None:
    """q a few ulps above p everywhere: a draw can be rejected although max(0, p - q) is 0."""
    p = [0.5, 0.5]
    q = [0.5 * (1 + 2**-50), 0.5 * (1 + 2**-50)]
    counts, kept = speculative_sample(p, q, 100, AlmostOne())
    assert not any(kept) and sum(counts) == 100


def test_least_scaled_decides_as_the_product_does() -> None:
    """The sampler tests u against a threshold instead of u * factor against a target:
    the same answer for every u in [0, 1), the floats either side of the threshold too."""
    rng = random.Random(11)
    pairs = [(rng.random(), rng.random()) for _ in range(3000)]
    pairs += [(0.0, 0.5), (0.5, 0.0), (0.5, 0.5), (0.3, 0.3 * (1 + 2**-50)), (1e-9, 1.0)]
    for target, factor in pairs:
        least = spec_sampling._least_scaled(target, factor)
        near = [least, math.nextafter(least, 0.0), math.nextafter(least, 2.0)]
        for u in [rng.random(), 0.0, 1 - 2**-53, *near]:
            if 0.0 <= u < 1.0:
                assert (u * factor >= target) == (u >= least), (target, factor, u)
