"""A stand-in for a model's decoder: deterministic tokens at a set rate.

The experiment is about delivery, not about language models, so the source has to be
predictable: the same text every run (tests can compare it token by token) and a fixed
schedule (token ``i`` is due ``(i + 1) / rate`` seconds after generation starts, as if
every decode step, the first included, took one interval). Tokens are whole words with a
leading space after the first, like the word-initial pieces of a subword tokenizer; they
never contain a newline, so each fits on one server-sent-events ``data:`` line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Our own sentence; cycled for as many tokens as a run asks for.
TEXT = (
    "Streaming does not make the model any faster. It changes when the reader can start: "
    "the first words show up while the rest is still being written, and a reader who "
    "reads slower than the model writes never waits again after the first token."
)
WORDS: tuple[str, ...] = tuple(TEXT.split())

# Bounds keep every loop in the server finite however a request is written.
MAX_TOKENS = 100_000
MAX_RATE_TOKENS_PER_S = 100_000.0


@dataclass(frozen=True)
class TokenSource:
    """``count`` tokens of deterministic text, token ``i`` due at ``(i + 1) / rate`` seconds."""

    rate_tokens_per_s: float
    count: int

    def __post_init__(self) -> None:
        if not 0 < self.rate_tokens_per_s <= MAX_RATE_TOKENS_PER_S:
            raise ValueError(
                f"rate_tokens_per_s must be in (0, {MAX_RATE_TOKENS_PER_S:g}], "
                f"got {self.rate_tokens_per_s!r}"
            )
        if not 1 <= self.count <= MAX_TOKENS:
            raise ValueError(f"count must be in [1, {MAX_TOKENS}], got {self.count!r}")

    def token(self, index: int) -> str:
        """The text of token ``index``: a word, with a leading space after the first."""
        word = WORDS[index % len(WORDS)]
        return word if index == 0 else " " + word

    def tokens(self) -> list[str]:
        """Every token in order; what a reader must end up with, whatever the delivery."""
        return [self.token(i) for i in range(self.count)]

    def due_s(self, index: int) -> float:
        """Seconds after generation starts at which token ``index`` is ready."""
        return (index + 1) / self.rate_tokens_per_s

    @property
    def duration_s(self) -> float:
        """Seconds from the start of generation to the last token."""
        return self.due_s(self.count - 1)


_TOKEN = re.compile(r" ?[^ ]+")


def split_tokens(text: str) -> list[str]:
    """Split a whole response back into tokens.

    A whole response carries no token boundaries, but the source puts a space before every
    token except the first, and its words hold no spaces, so the split is exact.
    """
    return _TOKEN.findall(text)
