"""How many sequences a group of GPUs can hold at once: the KV cache that fits beside the weights.

An engine reserves what is left of each GPU's usable memory after the weights for the KV
cache, and a request can run only while its cache has room. So the number of sequences of a
given length a deployment can serve at once is that room over one sequence's share of it.
Quantization (smaller weights, a smaller cache), disaggregation (a decode pool's batch) and
any queueing sim need this number; it lives here once, on top of `sims.physics.memory_fit`,
which holds the rules of who stores what under each layout.
"""

from __future__ import annotations

import math

from sims.physics import Gpu, Model, Precision, memory_fit


def sequences_that_fit(
    gpu: Gpu, model: Model, context_tokens: int, tp: int = 1,
    precision: Precision | None = None, layout: str = "tp",
) -> int:
    """Sequences of `context_tokens` each whose KV fits beside the weights on every GPU of
    the group (0 when the weights alone do not fit)."""
    one = memory_fit(gpu, model, 1, context_tokens, tp, precision, layout)
    room = one.usable_per_gpu_bytes - one.weights_per_gpu_bytes
    if room <= 0:
        return 0
    if one.kv_per_gpu_bytes <= 0:
        raise ValueError(f"a sequence of {context_tokens} tokens holds no KV cache")
    # A hair of slack: room / share is an integer in exact arithmetic at the boundary.
    return math.floor(room / one.kv_per_gpu_bytes * (1 + 1e-12))
