"""The modified rejection sampling rule of speculative decoding, run on a toy vocabulary.

The draft proposes a token x drawn from its distribution q. The target keeps it with
probability min(1, p(x) / q(x)); otherwise it throws x away and draws a replacement from
the leftover distribution norm(max(0, p - q)). The token that comes out is distributed
exactly as p, whatever q is (Leviathan et al., ICML 2023, arXiv 2211.17192; Chen et al.
2023, arXiv 2302.01318). A poor draft costs acceptances, never correctness: the chance of
keeping the guess is sum(min(p, q)), which is 1 minus the total variation between them.

The same guesses, cut into steps of k (the lookahead), also check Leviathan et al.'s count
of tokens per step: every position here has the same p and q, so each guess is kept
independently with probability a = sum(min(p, q)), and a step yields 1 + a + ... + a^k
tokens on average (the kept run of guesses, plus the target's own token).

Standard library only: the sampler is `bisect` over cumulative weights and one
`random.Random(seed)`, so CPython and Pyodide draw the same tokens. The per-draw work runs
in C, as `map` over lists of uniforms, rather than as a Python loop per draw: the same
draws in the same order, several times faster in a browser, where every bytecode counts.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Iterable, Sequence
from itertools import compress, repeat, starmap
from operator import and_, lt
from typing import Any

from sims.kit import charts
from sims.kit.contract import Choice, Number, simulation

TITLE = "Rejection sampling keeps the target's distribution"

# The target: token of rank r (1-based) has weight 1 / r^ZIPF_EXPONENT, the classic
# Zipf shape of word frequencies. A toy stand-in for one next-token distribution.
ZIPF_EXPONENT = 1.0

# How each preset turns the target p into a draft q; `skew` in [0, 1] sets how far.
PRESETS = {
    "flatter": "Draft is the target at a higher temperature: q ~ p^(1 - skew); 1 is uniform",
    "sharper": "Draft is the target at a lower temperature: q ~ p^(1 + 3 skew)",
    "shifted": "Draft moves skew of each token's mass to the next rank: a different favourite",
}

INPUTS = (
    Number("vocab_size", "Vocabulary", default=10, min=2, max=32, unit="tokens",
           help="Tokens the toy distributions are over."),
    Number("samples", "Samples", default=2000, min=100, max=10000, step=100, unit="draws",
           help="Draft tokens proposed and judged."),
    Number("seed", "Seed", default=1, min=0, max=10**6,
           help="Seed of the random generator; the same seed gives the same draws."),
    Choice("preset", "Draft shape", "flatter", tuple(PRESETS),
           help="How the draft differs from the Zipf-shaped target."),
    Number("skew", "Draft mismatch", default=0.5, min=0.0, max=1.0, step=0.05,
           help="0: the draft is the target; 1: as far as the preset goes."),
    Number("lookahead", "Lookahead", default=4, min=1, max=16, unit="tokens",
           help="Guesses per step when the same draws are run as speculative steps."),
)

METRICS = {
    "acceptance_rate_theory": "Acceptance rate, sum of min(p, q) (share of drafts)",
    "acceptance_rate_measured": "Acceptance rate, measured (share of drafts)",
    "total_variation_draft_vs_target": "Total variation, draft q vs target p (0 to 1)",
    "total_variation_output_vs_target": "Total variation, sampled output vs target p (0 to 1)",
    "total_variation_direct_vs_target": (
        "Total variation, as many draws straight from p vs p: sampling noise (0 to 1)"
    ),
    "tokens_per_step_theory": "Tokens per step, 1 + a + ... + a^lookahead (tokens)",
    "tokens_per_step_measured": "Tokens per step, measured over speculative steps (tokens)",
    "accuracy": "Regime and measured error",
}

# No GPU time is priced here, so no calibration applies: the sim says so rather than
# borrowing an error from a regime it never enters.
ACCURACY = ("No regime: this sim prices no GPU time, so no measured error applies. The "
            "theoretical figures are exact probabilities computed from p and q; the measured "
            "ones are counts over seeded draws, off the theory by sampling noise alone.")


def _normalise(weights: Sequence[float]) -> list[float]:
    total = sum(weights)
    return [w / total for w in weights]


def distributions(vocab_size: int, preset: str, skew: float) -> tuple[list[float], list[float]]:
    """The target p (Zipf-like) and the preset's draft q over `vocab_size` tokens."""
    p = _normalise([1 / rank**ZIPF_EXPONENT for rank in range(1, vocab_size + 1)])
    if preset == "flatter":
        q = _normalise([x ** (1 - skew) for x in p])
    elif preset == "sharper":
        q = _normalise([x ** (1 + 3 * skew) for x in p])
    elif preset == "shifted":
        q = _normalise([(1 - skew) * p[i] + skew * p[i - 1] for i in range(vocab_size)])
    else:
        raise ValueError(f"preset: expected one of {', '.join(PRESETS)}, got {preset!r}")
    return p, q


def total_variation(a: Sequence[float], b: Sequence[float]) -> float:
    """Half the L1 distance: the most probability any event can differ by."""
    return sum(abs(x - y) for x, y in zip(a, b, strict=True)) / 2


def _cumulative(weights: Sequence[float]) -> list[float]:
    running, out = 0.0, []
    for w in weights:
        running += w
        out.append(running)
    return out


def _uniforms(n: int, rng: random.Random) -> list[float]:
    """n calls of rng.random(), in order (starmap makes the calls from C)."""
    return list(starmap(rng.random, repeat((), n)))


def _least_scaled(target: float, factor: float) -> float:
    """The least u >= 0 whose product u * factor, rounded as floats round, reaches `target`
    (inf if no u up to 1 does).

    Rounding is monotone, so u * factor >= target holds exactly for the u at or above this
    threshold: a test or a search on u * factor, made for thousands of draws u, can be made
    on u alone, which saves a multiplication per draw and gives the same answer bit for bit.
    target / factor is within an ulp or two of it; the loops step to the exact float.
    """
    if target <= 0.0:
        return 0.0
    if factor < target:  # even u = 1 falls short (and so does every smaller u)
        return math.inf
    u = min(target / factor, 1.0)
    while u > 0.0 and math.nextafter(u, 0.0) * factor >= target:
        u = math.nextafter(u, 0.0)
    while u * factor < target:
        u = math.nextafter(u, math.inf)
    return u


def _sample(cumulative: list[float], n: int, rng: random.Random) -> list[int]:
    """n draws from the weights behind `cumulative` (inverse CDF by bisection).

    Draw i is the number of bounds at or below u_i x total. The last bound (the total) is
    left out of the search, so a product that rounds up to the total still gives the last
    token rather than one past it. Searched as u_i among each bound's least u (the same
    count, see `_least_scaled`).
    """
    total = cumulative[-1]
    least = [_least_scaled(bound, total) for bound in cumulative[:-1]]
    draws = starmap(rng.random, repeat((), n))  # n calls of rng.random(), in order
    return list(map(bisect.bisect_right, repeat(least), draws))


def _kept(drafts: list[int], p: Sequence[float], q: Sequence[float],
          uniforms: list[float]) -> list[bool]:
    """The rule's test on each draft x, with its own uniform u: keep x with probability
    min(1, p(x) / q(x)), written u q(x) < p(x) so that q(x) = 0 needs no special case;
    tested as u below x's least u with u q(x) >= p(x) (the same answer, see `_least_scaled`)."""
    least = [_least_scaled(target, factor) for target, factor in zip(p, q, strict=True)]
    return list(map(lt, uniforms, map(least.__getitem__, drafts)))


def _counts(tokens: Iterable[int], size: int) -> list[int]:
    """How many times each of `size` tokens occurs.

    Counted in C: a token of a vocabulary this small (at most 32, see INPUTS) is a byte,
    and bytes.count scans thousands of draws at memory speed."""
    return list(map(bytes(tokens).count, range(size)))


def speculative_sample(
    p: Sequence[float], q: Sequence[float], n: int, rng: random.Random
) -> tuple[list[int], list[bool]]:
    """Run the rule n times: counts of each output token, and whether each draft, in the
    order drawn, was kept.

    Draws: n drafts from q, then one uniform per draft for its test, then one draw per
    rejection from the residual."""
    drafts = _sample(_cumulative(q), n, rng)
    kept = _kept(drafts, p, q, _uniforms(n, rng))
    counts = _counts(compress(drafts, kept), len(p))
    rejected = n - sum(kept)
    residual = [max(0.0, a - b) for a, b in zip(p, q, strict=True)]
    if rejected and sum(residual) > 0:
        replacements = _sample(_cumulative(residual), rejected, rng)
    elif rejected:
        # p and q agree to rounding, so no residual mass exists: a rejection here came
        # from a last-bit difference, and p's own draw is as good as any.
        replacements = _sample(_cumulative(p), rejected, rng)
    else:
        replacements = []
    for token, extra in enumerate(_counts(replacements, len(p))):
        counts[token] += extra
    return counts, kept


def tokens_per_step(kept: Sequence[bool], lookahead: int) -> float:
    """Average tokens per speculative step, the guesses judged in `kept` cut into steps of
    `lookahead` (a last, shorter remainder is left out).

    A step keeps its guesses up to the first rejection, and the target adds one token of
    its own: the replacement for the rejected guess, or a bonus token if all were kept.
    An engine never judges the guesses after a rejection; here they were judged, but the
    step ignores them, and since every test is independent the count has the same law.

    Counted column by column rather than step by step (the loops run in C): a step's
    kept run reaches its guess j when it is still whole after guess j - 1 and guess j is
    kept, and the run lengths add up to the number of (step, guess) pairs reached.
    """
    steps = len(kept) // lookahead
    whole = [True] * steps  # per step: every guess so far kept
    kept_runs = 0
    for guess in range(lookahead):
        whole = list(map(and_, whole, kept[guess:steps * lookahead:lookahead]))
        kept_runs += sum(whole)
    return (steps + kept_runs) / steps


def _chart(p: list[float], q: list[float], output: list[float]) -> dict[str, Any]:
    series = {"Target p": p, "Draft q": q, "Output (sampled)": output}
    rows = [
        {"token": rank, "series": name, "probability": values[rank - 1]}
        for name, values in series.items()
        for rank in range(1, len(p) + 1)
    ]
    order = list(series)
    return charts.chart(
        "Target, draft and what the rule outputs",
        "Probability of each token, ranked by the target: the target p, the draft q, and "
        "the share of each token among the rule's outputs. Output bars track the target.",
        rows,
        mark={"type": "bar", "tooltip": True},
        encoding={
            "x": {"field": "token", "type": "ordinal", "title": "Token (rank in the target)",
                  "axis": {"labelAngle": 0, "labelOverlap": "greedy"}},
            "xOffset": {"field": "series", "sort": order},
            "y": {"field": "probability", "type": "quantitative",
                  "title": "Probability (fraction of draws)"},
            "color": {"field": "series", "type": "nominal", "sort": order, "title": None,
                      "legend": {"orient": "top"}},
        },
    )


@simulation(INPUTS)
def simulate(
    *, vocab_size: int, samples: int, seed: int, preset: str, skew: float, lookahead: int
) -> dict[str, Any]:
    p, q = distributions(vocab_size, preset, skew)
    rng = random.Random(seed)
    counts, kept = speculative_sample(p, q, samples, rng)
    output = [c / samples for c in counts]
    direct = [c / samples for c in _counts(_sample(_cumulative(p), samples, rng), vocab_size)]
    acceptance = sum(min(a, b) for a, b in zip(p, q, strict=True))
    table_rows = [
        {"token": i + 1, "target": p[i], "draft": q[i], "kept": min(p[i], q[i]),
         "output": output[i]}
        for i in range(vocab_size)
    ]
    return {
        "summary": {
            "acceptance_rate_theory": acceptance,
            "acceptance_rate_measured": sum(kept) / samples,
            "total_variation_draft_vs_target": total_variation(q, p),
            "total_variation_output_vs_target": total_variation(output, p),
            "total_variation_direct_vs_target": total_variation(direct, p),
            "tokens_per_step_theory": sum(acceptance**i for i in range(lookahead + 1)),
            "tokens_per_step_measured": tokens_per_step(kept, lookahead),
            "accuracy": ACCURACY,
        },
        "charts": [_chart(p, q, output)],
        "tables": [{
            "title": "Per token",
            "columns": [
                {"key": "token", "label": "Token (rank)"},
                {"key": "target", "label": "Target p"},
                {"key": "draft", "label": "Draft q"},
                {"key": "kept", "label": "min(p, q): kept from the draft"},
                {"key": "output", "label": "Output share (sampled)"},
            ],
            "rows": table_rows,
        }],
    }
