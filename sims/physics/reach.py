"""Which cached positions a layer's queries read, and how many (query, position) pairs that
makes: the geometry of attention that both the KV cache's size (sims.physics.shapes) and a
step's attention work (sims.physics.pricing) are worked out from.
"""

from __future__ import annotations

from typing import NamedTuple


def attended(new: int, context: int, window: int) -> float:
    """Positions `new` tokens after `context` cached ones attend to in all (causal, each
    token itself included; a window of 0 means no window)."""
    if not window or context + new <= window:
        return new * context + new * (new + 1) / 2
    if context >= window:
        return new * window
    return (window * (window + 1) - context * (context + 1)) / 2 + (context + new - window) * window


class Reach(NamedTuple):
    """Which cached entries a layer's query reads (sims.physics.shapes says which a layer
    kind has): the last `span` source tokens (0: all of them), each `ratio` source tokens
    pooled into one entry (a compressed layer's), or only the tokens of the query's own
    `chunk` (chunked local attention)."""

    span: int = 0
    ratio: int = 1
    chunk: int = 0

    @property
    def horizon(self) -> int:
        """Source tokens past which each further token reads the same number more (or as
        many) entries: past it, a step's cost is affine in the context."""
        return self.chunk or self.span


def reached(reach: Reach, tokens: int) -> float:
    """Entries a sequence of `tokens` tokens holds within its last token's reach.

    Chunked attention is taken as a window of half a chunk: a query reads 1 to `chunk`
    tokens as it moves through a chunk, (chunk + 1) / 2 on average, so a long generation's
    steps are right on average, and a step's cost still grows with the context and is affine
    in it past the window (the first chunk's second half is priced low)."""
    span = (reach.chunk + 1) // 2 if reach.chunk else reach.span
    held = min(tokens, span) if span else tokens
    return held if reach.ratio == 1 else held / reach.ratio


def reached_pairs(reach: Reach, new: int, context: int) -> float:
    """(query, entry) pairs `new` tokens after `context` cached ones read in all (causal,
    each token itself included; see `reached` for chunks)."""
    span = (reach.chunk + 1) // 2 if reach.chunk else reach.span
    pairs = attended(new, context, span)
    return pairs if reach.ratio == 1 else pairs / reach.ratio
