"""A reader who reads at a steady speed, fed with measured token arrival times.

Streaming only helps as much as the reader can use it: text that arrives faster than it
can be read just waits on the screen. The model is deliberately plain: the reader starts
when the first token is there, spends ``seconds_per_token`` on each token in order, and
when the next token has not arrived yet, waits (a stall). It needs two inputs that are
not measured here: reading speed in words per second, and words per token, which depends
on the tokenizer and the language. Both are parameters of the experiment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Reading:
    """When reading started and finished, and how long the reader waited for text in between.

    All in seconds on the same clock as the arrivals.
    """

    started_s: float
    finished_s: float
    stalled_s: float


def seconds_per_token(reading_words_per_s: float, words_per_token: float) -> float:
    """Time a reader spends on one token."""
    if reading_words_per_s <= 0 or words_per_token <= 0:
        raise ValueError("reading speed and words per token must be positive")
    return words_per_token / reading_words_per_s


def read_along(arrivals_s: Sequence[float], token_s: float) -> Reading:
    """Follow a reader through tokens that arrive at ``arrivals_s`` (in order)."""
    if not arrivals_s:
        raise ValueError("no tokens to read")
    clock = arrivals_s[0]
    stalled = 0.0
    for arrival in arrivals_s:
        if arrival > clock:
            stalled += arrival - clock
            clock = arrival
        clock += token_s
    return Reading(arrivals_s[0], clock, stalled)
