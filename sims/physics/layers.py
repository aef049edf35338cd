"""A transformer layer's operators, each priced by its kernel class (sims.physics.kernels):
projections, attention (grouped-query or latent), the MLP or the experts, and the norms.

Called by the Pricer (sims.physics.pricing) for every step; `share` is the fraction of the
step's sequences the busiest GPU serves (1 under tensor parallelism, ceil(S / n) / S under
data-parallel attention), and `windows` each attention window's work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sims.physics import kernels
from sims.physics.precision import moe_variant
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


def price_layers(p: Pricer, step: _Step, new: int, share: float, windows: dict[int, Any]) -> None:
    """Every layer's operators for `new` tokens (the busiest GPU's `share` of them)."""
    model = p.model
    tokens = new * share
    if model.latent:
        _latent(p, step, tokens, share, windows[0])
    else:
        hd = model.head_dim
        p.matmul(step, PROJECTIONS, model.layers, tokens, model.hidden,
                 (model.heads + 2 * model.kv_heads) * hd)
        p.matmul(step, PROJECTIONS, model.layers, tokens, model.heads * hd, model.hidden,
                 split_k=True)
        for kind, count in model.groups:
            _attention(p, step, count, hd, windows[kind.window], share)
    dense = model.layers - model.moe_layers
    if dense:
        p.matmul(step, MLP, dense, tokens, model.hidden, 2 * model.ffn)
        p.matmul(step, MLP, dense, tokens, model.ffn, model.hidden, split_k=True)
        _elementwise(p, step, dense, tokens, model.ffn)
    if model.layers - dense:
        _experts(p, step, model.layers - dense, new, tokens)
        width = (model.experts_per_token + model.shared_experts) * model.expert_ffn
        _elementwise(p, step, model.layers - dense, tokens, width)


def _attention(p: Pricer, step: _Step, layers: int, head_dim: int, held: Any,
               share: float) -> None:
    """One group of grouped-query attention layers: the prefill kernel over new sequences'
    attended pairs, the decode kernel over decoding sequences' cached K and V."""
    heads, kv_heads, a, kv = p.heads, p.kv_heads, p.a, p.kv
    if held.prefills:
        flops = 4 * heads * head_dim * held.pairs * share
        moved = held.prefill_tokens * share * head_dim * (2 * heads * a + 2 * kv_heads * kv)
        op = kernels.prefill_attention(p.profile, p.attention_format, p.peaks, p.bandwidth,
                                       flops, moved, held.prefills * share * heads)
        step.add(ATTENTION, layers, flops * p.tp, moved * p.tp, op)
    if held.decodes:
        # Each new token attends to its sequence's cached ones and the new ones before it.
        flops = 4 * heads * head_dim * held.decode_pairs * share
        cached = held.decode_cached * share * 2 * kv_heads * head_dim * kv
        op = kernels.decode_attention(p.profile, p.precision.kv, p.bandwidth, cached,
                                      held.decodes * share, held.decodes * share * kv_heads,
                                      flops, p.attention_format, p.peaks)
        step.add(ATTENTION, layers, flops * p.tp, cached * p.tp, op)


def _latent(p: Pricer, step: _Step, tokens: float, share: float, held: Any) -> None:
    """Latent attention: the down-projections (replicated), the query up-projection, the
    decoding sequences in the absorbed form (the cache's latents read, never expanded), the
    prefilling ones in the expanded form, and the output projection."""
    model, layers = p.model, p.model.layers
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
        p.matmul(step, PROJECTIONS, layers, held.prefill_held * share, lora,
                 heads * (model.nope_head_dim + model.v_head_dim))
        flops = 2 * p.heads * (qk + model.v_head_dim) * held.pairs * share
        moved = new * p.heads * (2 * qk + 2 * model.v_head_dim) * p.a
        op = kernels.prefill_attention(p.profile, p.attention_format, p.peaks, p.bandwidth,
                                       flops, moved, held.prefills * share * p.heads)
        step.add(ATTENTION, layers, flops * p.tp, moved * p.tp, op)
    p.matmul(step, PROJECTIONS, layers, tokens, heads * model.v_head_dim, model.hidden,
             split_k=True)


def _experts(p: Pricer, step: _Step, layers: int, new: int, tokens: float) -> None:
    """The router (each GPU for its own tokens), the routed experts this GPU holds (the
    grouped matmuls of the experts the step's tokens touch, about E(1 - (1 - k/E)^T) in all)
    and the shared experts."""
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
    if model.shared_experts:
        shared = model.shared_experts * width
        p.matmul(step, EXPERTS, layers, tokens, hidden, 2 * shared)
        p.matmul(step, EXPERTS, layers, tokens, shared, hidden, split_k=True)


def _elementwise(p: Pricer, step: _Step, layers: int, tokens: float, act: int) -> None:
    """Two norms (on the full hidden state, with their residual adds) and the gated
    activation: memory-bound kernels, each reading and writing its tensor once."""
    kernel_count = ELEMENTWISE_KERNELS + (LATENT_NORMS if p.model.latent else 0)
    moved = (4 * p.model.hidden + 3 * act / p.tp) * tokens * p.a
    step.add(ELEMENTWISE, layers, 0.0, moved, kernels.elementwise(p.profile, p.bandwidth, moved,
                                                                  kernel_count))
