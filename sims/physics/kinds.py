"""Layer kinds: what sets one transformer layer's cost apart (its attention kind and
geometry, whether its MLP is a mixture of experts), and the matmuls a layer is made of.
sims.physics.families reads them from a config.json; sims.physics.shapes derives sizes and
caches from them; sims.physics.layers prices them.
"""

from __future__ import annotations

from typing import NamedTuple

FULL, SLIDING, CHUNKED, LINEAR, SPARSE, COMPRESSED = (
    "full", "sliding", "chunked", "linear", "sparse", "compressed")
LAYER_TYPES = {"full_attention": FULL, "sliding_attention": SLIDING,
               "chunked_attention": CHUNKED, "linear_attention": LINEAR}


class LayerKind(NamedTuple):
    """What sets one layer's cost apart: its attention kind and geometry, and whether its
    MLP is a mixture of experts. Zero widths mean the model's own."""

    window: int  # tokens the cache keeps (sliding window, attention chunk); 0: every token
    moe: bool
    attention: str = FULL  # FULL, SLIDING, CHUNKED, LINEAR, SPARSE or COMPRESSED
    head_dim: int = 0  # Gemma 4's global layers have heads of their own width
    kv_heads: int = 0  # ...and fewer KV heads
    ratio: int = 0  # compressed: source tokens pooled into one cached entry
    topk: int = 0  # sparse, compressed at ratio 4: entries an indexer picks for each query
    indexer: bool = True  # sparse: runs its own indexer (GLM-5.2's "shared" layers reuse the
    # picks of the layer before, and neither hold index keys nor score them)


class Matmul(NamedTuple):
    """One weight matrix a layer multiplies its tokens by: (tokens x k) @ (k x n), cut over
    the GPUs along n (or k when `split_k`), or run whole by each (`replicated`)."""

    k: int
    n: int
    split_k: bool = False
    replicated: bool = False
