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

    Chunked attention is taken at its mean past the first chunk: a query reads 1 to `chunk`
    tokens as it moves through a chunk, (chunk + 1) / 2 on average, so a long generation's
    steps are right on average and a step's cost stays affine in the context."""
    if reach.chunk:
        return tokens if tokens <= reach.chunk else (reach.chunk + 1) / 2
    held = min(tokens, reach.span) if reach.span else tokens
    return held if reach.ratio == 1 else held / reach.ratio


def reached_pairs(reach: Reach, new: int, context: int) -> float:
    """(query, entry) pairs `new` tokens after `context` cached ones read in all (causal,
    each token itself included; see `reached` for chunks)."""
    if reach.chunk:
        first = max(0, min(context + new, reach.chunk) - context)  # queries in the 1st chunk
        return attended(first, context, 0) + (new - first) * (reach.chunk + 1) / 2
    pairs = attended(new, context, reach.span)
    return pairs if reach.ratio == 1 else pairs / reach.ratio
