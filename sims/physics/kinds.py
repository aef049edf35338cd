"""Layer kinds: what sets one transformer layer's cost apart (its attention kind and
geometry, whether its MLP is a mixture of experts), and the matmuls a layer is made of.
sims.physics.families reads them from a config.json; sims.physics.shapes derives sizes and
caches from them; sims.physics.layers prices them.

The kinds, as the catalogue's models and the layer patterns served in 2026 have them:

- full: attention over every cached token (grouped-query, multi-head, or DeepSeek's latent
  attention, MLA: K and V compressed into one `kv_lora_rank` latent plus a shared rotary key);
- sliding: K and V kept for the last `sliding_window` tokens only (gpt-oss, Gemma);
- chunked: attention within fixed chunks of `attention_chunk_size` tokens (Llama 4's RoPE
  layers; every fourth layer is global, without RoPE, as HF's Llama4TextConfig defaults);
- linear: Gated DeltaNet (Qwen3.5): a constant-size state per sequence (heads x key dim x
  value dim, in `mamba_ssm_dtype`, plus the short convolution's last inputs), no KV;
- sparse: DeepSeek sparse attention (V3.2, GLM-5): latent attention whose query reads only the
  `index_topk` latents a lightning indexer picks; the indexer's keys (`index_head_dim`, FP8)
  are cached for every token and scored over the whole context;
- compressed: DeepSeek V4: one shared K=V head of `head_dim`, a sliding window on every
  layer, and on layers with a compress ratio one entry per `ratio` tokens besides (ratio 4:
  picked top-k by an indexer; ratio 128: read densely).

Caches, each at the KV format chosen unless said: full and sparse layers grow a token at a
time (a sparse layer also its indexer keys in FP8); sliding and chunked layers stop at their
window or chunk (a chunk is held whole, the most it holds); a linear layer's state never
grows; a compressed layer holds its window plus context / ratio entries (and at ratio 4 an
FP8 indexer key per entry). Left out: the compressors' pending tokens and overlap buffers
(under `ratio` tokens a layer), DeepSeek V4's split of an entry into FP8 and BF16 parts (the
whole entry is in the chosen format), and its hash routing's token-to-expert table (a buffer,
not a weight).
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
