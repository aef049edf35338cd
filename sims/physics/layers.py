"""A transformer layer's operators, each priced by its kernel class (sims.physics.kernels):
projections, attention (grouped-query, latent, sparse, compressed or linear), the MLP or the
experts, and the norms.

Called by the Pricer (sims.physics.pricing) for every step; `share` is the fraction of the
step's sequences the busiest GPU serves (1 under tensor parallelism, ceil(S / n) / S under
data-parallel attention), and `windows` each Reach's work (sims.physics.reach: which cached
entries a layer kind reads, sims.physics.shapes.Model.reaches).

By kind: a sliding or chunked layer attends within its window or chunk; a sparse layer
(DeepSeek V3.2, GLM-5) reads the top-k latents its indexer picks, and the indexer scans
every cached token's key (FP8); a compressed layer (DeepSeek V4) attends its window and its
compressed entries (top-k of them at ratio 4, with its indexer over every entry); a linear
layer (Gated DeltaNet) reads and writes its state once per decoding sequence and runs a
chunked scan over a prefill's tokens. The indexers, the linear scan and the state update run
at the attention kernels' fitted shares (no measurement of those kernels is in the
catalogue). Left out: the compressor's pooling and a linear layer's short convolution
(element-wise work under 1% of the layer), DeepSeek V4's hyper-connections' mixing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sims.physics import kernels
from sims.physics.cache import INDEXER_PRECISION
from sims.physics.kinds import COMPRESSED, LINEAR, SPARSE, LayerKind
from sims.physics.precision import bytes_per_value, moe_variant
from sims.physics.reach import Reach
from sims.physics.step import (
    ATTENTION,
    ELEMENTWISE,
    EXPERTS,
    MLP,
    PROJECTIONS,
    _Step,
    experts_per_gpu,
    padded_rows,
    touched_experts,
)

if TYPE_CHECKING:
    from sims.physics.pricing import Pricer

# Kernels per layer besides the matmuls, attention and experts: two norms, each with its
# residual add (fused, as engines do), and the gated activation. The rotary embedding runs
# inside the attention operator (sims.physics.kernels.prefill_attention); latent attention
# adds its latents' two norms.
ELEMENTWISE_KERNELS = 3
LATENT_NORMS = 2
# A linear layer's chunked scan (flash-linear-attention's chunk of 64 tokens): per token and
# value head, attention within its chunk (2 x chunk x (key + value dims)) and the state's
# update and read-out (DELTA_FLOPS x key dim x value dim); a decode does the latter only.
LINEAR_CHUNK = 64
DELTA_FLOPS = 6


def price_layers(p: Pricer, step: _Step, new: int, share: float, windows: dict[Reach, Any]
                 ) -> None:
    """Every layer's operators for `new` tokens (the busiest GPU's `share` of them)."""
    model = p.model
    tokens = new * share
    if model.latent:
        for kind, count in model.latent_groups:
            _latent(p, step, count, tokens, share, windows, kind)
    else:
        for shapes, count in model.projection_groups:
            for m in shapes:
                p.matmul(step, PROJECTIONS, count, tokens, m.k, m.n, split_k=m.split_k,
                         replicated=m.replicated)
        for kind, count, reaches in model.kind_groups:
            if kind.attention == LINEAR:
                _linear(p, step, count, windows[reaches["all"]], share)
                continue
            held = windows[reaches["attend"]]
            if kind.attention == COMPRESSED:
                held = _merged(held, windows[reaches["compressed"]])
            _attention(p, step, count, kind, held, share)
            if "index" in reaches:
                _indexer(p, step, count, windows[reaches["index"]], share)
    dense = model.layers - model.moe_layers
    if dense:
        p.matmul(step, MLP, dense, tokens, model.hidden, 2 * model.ffn)
        p.matmul(step, MLP, dense, tokens, model.ffn, model.hidden, split_k=True)
        _elementwise(p, step, dense, tokens, model.ffn)
    if model.layers - dense:
        _experts(p, step, model.layers - dense, new, tokens)
        width = model.experts_per_token * model.expert_ffn + model.shared_width
        _elementwise(p, step, model.layers - dense, tokens, width)


class _Merged:
    """Two Reaches one attention kernel reads together (a compressed layer's window and its
    compressed entries): their entries and pairs add, the sequences and tokens are one."""

    def __init__(self, first: Any, second: Any) -> None:
        self.decode_cached = first.decode_cached + second.decode_cached
        self.decode_pairs = first.decode_pairs + second.decode_pairs
        self.pairs = first.pairs + second.pairs
        self.prefill_held = first.prefill_held + second.prefill_held
        self.decode_tokens, self.decodes = first.decode_tokens, first.decodes
        self.prefill_tokens, self.prefills = first.prefill_tokens, first.prefills


def _merged(first: Any, second: Any) -> _Merged:
    return _Merged(first, second)


def _attention(p: Pricer, step: _Step, layers: int, kind: LayerKind, held: Any,
               share: float) -> None:
    """One group of attention layers with K and V per head (grouped-query, multi-head, or
    DeepSeek V4's one shared K=V head): the prefill kernel over new sequences' attended
    pairs, the decode kernel over decoding sequences' cached entries."""
    model = p.model
    kv_heads, head_dim = model.kind_heads(kind)
    heads, a, kv = p.heads, p.a, p.kv
    kv_heads = max(1, kv_heads // p.tp)
    stored = kv_heads * (1 if model.shared_kv else 2)  # K and V vectors an entry holds
    if held.prefills:
        flops = 4 * heads * head_dim * held.pairs * share
        moved = held.prefill_tokens * share * head_dim * (2 * heads * a + stored * kv)
        op = kernels.prefill_attention(p.profile, p.attention_format, p.peaks, p.bandwidth,
                                       flops, moved, held.prefills * share * heads)
        step.add(ATTENTION, layers, flops * p.tp, moved * p.tp, op)
    if held.decodes:
        # Each new token attends to its sequence's cached ones and the new ones before it.
        flops = 4 * heads * head_dim * held.decode_pairs * share
        cached = held.decode_cached * share * stored * head_dim * kv
        op = kernels.decode_attention(p.profile, p.precision.kv, p.bandwidth, cached,
                                      held.decodes * share, held.decodes * share * kv_heads,
                                      flops, p.attention_format, p.peaks)
        step.add(ATTENTION, layers, flops * p.tp, cached * p.tp, op)


def _indexer(p: Pricer, step: _Step, layers: int, held: Any, share: float) -> None:
    """A lightning indexer's scan: each new token's index heads scored against every cached
    index key within its reach (one FP8 key of index_head_dim per entry), ahead of the top-k
    pick. Its heads are cut over the GPUs as the query heads are; each reads every key."""
    model = p.model
    heads = max(1, model.index_heads // p.tp)
    width, key = model.index_head_dim, bytes_per_value(INDEXER_PRECISION)
    if held.prefills:
        flops = 2 * heads * width * held.pairs * share
        moved = (held.prefill_tokens * heads * width * p.a + held.prefill_held * width * key
                 ) * share
        op = kernels.prefill_attention(p.profile, INDEXER_PRECISION, p.peaks, p.bandwidth,
                                       flops, moved, held.prefills * share)
        step.add(ATTENTION, layers, flops * p.tp, moved * p.tp, op)
    if held.decodes:
        flops = 2 * heads * width * held.decode_pairs * share
        cached = held.decode_cached * share * width * key
        op = kernels.decode_attention(p.profile, INDEXER_PRECISION, p.bandwidth, cached,
                                      held.decodes * share, held.decodes * share, flops,
                                      INDEXER_PRECISION, p.peaks)
        step.add(ATTENTION, layers, flops * p.tp, cached * p.tp, op)


def _linear(p: Pricer, step: _Step, layers: int, held: Any, share: float) -> None:
    """Gated DeltaNet layers: a prefill's chunked scan over its new tokens (linear in them,
    whatever the context), reading each sequence's state once and writing it back; a decode
    reads and writes its sequence's state for each new token. Value heads are cut over the
    GPUs."""
    model = p.model
    heads = max(1, model.linear_value_heads // p.tp)
    key_heads = max(1, model.linear_key_heads // p.tp)
    dk, dv = model.linear_key_dim, model.linear_value_dim
    state = heads * dk * dv * model.state_bytes  # bytes, one sequence, this GPU
    per_token = heads * DELTA_FLOPS * dk * dv
    inputs = (2 * key_heads * dk + 2 * heads * dv) * p.a  # q, k, v in and the output out
    if held.prefills:
        flops = (per_token + heads * 2 * LINEAR_CHUNK * (dk + dv)) * held.prefill_tokens * share
        moved = (held.prefill_tokens * inputs + held.prefills * 2 * state) * share
        op = kernels.prefill_attention(p.profile, p.attention_format, p.peaks, p.bandwidth,
                                       flops, moved, held.prefills * share * heads)
        step.add(ATTENTION, layers, flops * p.tp, moved * p.tp, op)
    if held.decodes:
        flops = per_token * held.decode_tokens * share
        moved = (held.decode_tokens * (inputs + 2 * state)) * share
        op = kernels.decode_attention(p.profile, "bf16", p.bandwidth, moved,
                                      held.decodes * share, held.decodes * share * heads,
                                      flops, p.attention_format, p.peaks)
        step.add(ATTENTION, layers, flops * p.tp, moved * p.tp, op)


def _latent(p: Pricer, step: _Step, layers: int, tokens: float, share: float,
            windows: dict[Reach, Any], kind: LayerKind) -> None:
    """Latent attention: the down-projections (replicated), the query up-projection, the
    decoding sequences in the absorbed form (the cache's latents read, never expanded), the
    prefilling ones in the expanded form, and the output projection. A sparse layer reads
    only the latents its indexer picks (the expanded form up-projects every cached one, as
    for short prompts) and adds the indexer."""
    model = p.model
    reaches = model.reaches(kind)  # once per step and kind: a latent model has one or two
    held, whole = windows[reaches["attend"]], windows[Reach()]
    lora, rope, heads = model.kv_lora_rank, model.rope_head_dim, model.heads
    qk = model.nope_head_dim + rope
    p.matmul(step, PROJECTIONS, layers, tokens, model.hidden, model.q_lora_rank + lora + rope,
             replicated=True)
    p.matmul(step, PROJECTIONS, layers, tokens, model.q_lora_rank or model.hidden, heads * qk)
    latent_bytes = (lora + rope) * p.kv
    if held.decodes:
        decode_tokens = held.decode_tokens * share
        # The query absorbs W_UK and the output W_UV: two per-head matmuls over the new tokens.
        p.matmul(step, PROJECTIONS, layers, decode_tokens, model.nope_head_dim, lora * heads)
        p.matmul(step, PROJECTIONS, layers, decode_tokens, lora * heads, model.v_head_dim)
        cached = held.decode_cached * share * latent_bytes
        # Each new token's query against every latent it attends to, in the absorbed form.
        flops = 2 * p.heads * (2 * lora + rope) * held.decode_pairs * share
        op = kernels.decode_attention(p.profile, p.precision.kv, p.bandwidth, cached,
                                      held.decodes * share, held.decodes * share, flops,
                                      p.attention_format, p.peaks)
        # Totals over the group: each GPU reads the whole latent cache for its own heads.
        step.add(ATTENTION, layers, flops * p.tp, cached * p.tp, op)
    if held.prefills:
        new = held.prefill_tokens * share
        # The cached and new latents up-projected to per-head K and V, then plain attention.
        p.matmul(step, PROJECTIONS, layers, whole.prefill_held * share, lora,
                 heads * (model.nope_head_dim + model.v_head_dim))
        flops = 2 * p.heads * (qk + model.v_head_dim) * held.pairs * share
        moved = new * p.heads * (2 * qk + 2 * model.v_head_dim) * p.a
        op = kernels.prefill_attention(p.profile, p.attention_format, p.peaks, p.bandwidth,
                                       flops, moved, held.prefills * share * p.heads)
        step.add(ATTENTION, layers, flops * p.tp, moved * p.tp, op)
    p.matmul(step, PROJECTIONS, layers, tokens, heads * model.v_head_dim, model.hidden,
             split_k=True)
    if kind.attention == SPARSE and kind.indexer:
        for m in model.indexer_matmuls():
            p.matmul(step, PROJECTIONS, layers, tokens, m.k, m.n, split_k=m.split_k,
                     replicated=m.replicated)
        _indexer(p, step, layers, windows[reaches["index"]], share)


def _experts(p: Pricer, step: _Step, layers: int, new: int, tokens: float) -> None:
    """The router (each GPU for its own tokens), the routed experts this GPU holds (the
    grouped matmuls of the experts the step's tokens touch, about E(1 - (1 - k/E)^T) in all)
    and the shared experts (or the dense MLP every token runs beside them)."""
    model = p.model
    hidden, width, k = model.hidden, model.expert_ffn, model.experts_per_token
    p.matmul(step, EXPERTS, layers, tokens, hidden, model.experts, replicated=True)
    if p.layout == "tp":
        local, routed, width_gpu = model.experts, new * k, width / p.tp
    else:
        local = experts_per_gpu(model.experts, p.gpus)
        routed, width_gpu = new * k / p.gpus, width
    touched = touched_experts(model, new) * local / model.experts
    fmt = p.formats["experts"]
    variant = moe_variant(p.precision.experts, p.precision.activations)
    op = kernels.moe(p.profile, variant, fmt, p.peaks, p.bandwidth, touched, routed,
                     hidden, width_gpu, p.e, p.a, tokens, model.experts,
                     lambda tile: padded_rows(new, model.experts, k, local, tile))
    step.add(EXPERTS, layers, 6 * new * k * hidden * width,
             touched_experts(model, new) * 3 * hidden * width * p.e, op)
    shared = model.shared_width
    if shared:
        p.matmul(step, EXPERTS, layers, tokens, hidden, 2 * shared)
        p.matmul(step, EXPERTS, layers, tokens, shared, hidden, split_k=True)


def _elementwise(p: Pricer, step: _Step, layers: int, tokens: float, act: int) -> None:
    """Two norms (on the full hidden state, with their residual adds) and the gated
    activation: memory-bound kernels, each reading and writing its tensor once."""
    kernel_count = ELEMENTWISE_KERNELS + (LATENT_NORMS if p.model.latent else 0)
    moved = (4 * p.model.hidden + 3 * act / p.tp) * tokens * p.a
    step.add(ELEMENTWISE, layers, 0.0, moved, kernels.elementwise(p.profile, p.bandwidth, moved,
                                                                  kernel_count))
