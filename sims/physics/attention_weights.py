"""A model's attention weights, as matmuls and as parameter counts, for every layer kind:
grouped-query and multi-head attention (with Qwen3.5's output gate and Gemma 4's K=V global
layers), Gated DeltaNet, DeepSeek V4's low-rank queries and grouped output with its
compressors and indexers, and latent attention with DeepSeek's lightning indexer.

Mixed into sims.physics.shapes.Model, whose fields (widths, heads, the latent ranks) these
read; sims.physics.layers prices the matmuls, Model counts the parameters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sims.physics.kinds import FULL, LINEAR, SPARSE, LayerKind, Matmul

if TYPE_CHECKING:
    from sims.physics.shapes import Model

    _Base = Model
else:
    _Base = object


class AttentionWeights(_Base):
    """The attention part of Model (see the module docstring)."""

    def attention_matmuls(self, kind: LayerKind) -> tuple[Matmul, ...]:
        """One layer's attention projections (for any kind but latent attention's, which
        sims.physics.layers prices in its own two forms)."""
        h = self.hidden
        if kind.attention == LINEAR:
            nk, nv = self.linear_key_heads, self.linear_value_heads
            dk, dv = self.linear_key_dim, self.linear_value_dim
            # q, k, v and the output gate z; then beta and the decay a, one per value head
            return (Matmul(h, 2 * nk * dk + 2 * nv * dv + 2 * nv),
                    Matmul(nv * dv, h, split_k=True))
        kv_heads, hd = self.kind_heads(kind)
        if self.o_groups:  # DeepSeek V4: low-rank queries, one K=V head, grouped output
            side = 0  # the compressor's K=V and gate, and the indexer's (ratio 4)
            if kind.ratio:
                overlap = 2 if kind.topk else 1  # ratio 4 pools overlapping windows
                side = 2 * overlap * hd
                if kind.topk:
                    side += 2 * 2 * self.index_head_dim + self.index_heads
            index_q = self.index_heads * self.index_head_dim if kind.topk else 0
            return (Matmul(h, self.q_lora_rank + hd + side, replicated=True),
                    Matmul(self.q_lora_rank, self.heads * hd + index_q),
                    Matmul(self.heads * hd, self.o_lora_rank, split_k=True),
                    Matmul(self.o_groups * self.o_lora_rank, h, split_k=True))
        query = self.heads * hd * (2 if self.output_gate else 1)
        keys = kv_heads * hd * (1 if self.k_eq_v and kind.attention == FULL else 2)
        return (Matmul(h, query + keys), Matmul(self.heads * hd, h, split_k=True))

    def indexer_matmuls(self) -> tuple[Matmul, ...]:
        """A sparse latent layer's lightning indexer: its queries from the query latent, its
        key and per-head weights from the hidden state."""
        return (Matmul(self.q_lora_rank, self.index_heads * self.index_head_dim),
                Matmul(self.hidden, self.index_head_dim + self.index_heads, replicated=True))

    def attention_params_of(self, kind: LayerKind) -> int:
        """One layer's attention weights (and biases, norms of the latent projections,
        indexers, compressors, a linear layer's convolution and decays)."""
        if self.latent:
            qk = self.nope_head_dim + self.rope_head_dim
            query = (self.hidden * self.q_lora_rank + self.q_lora_rank
                     + self.q_lora_rank * self.heads * qk) if self.q_lora_rank else (
                self.hidden * self.heads * qk)
            latent = (self.hidden * (self.kv_lora_rank + self.rope_head_dim) + self.kv_lora_rank
                      + self.kv_lora_rank * self.heads * (self.nope_head_dim + self.v_head_dim))
            total = query + latent + self.heads * self.v_head_dim * self.hidden
            if kind.attention == SPARSE and kind.indexer:  # the indexer, its key's LayerNorm
                total += sum(m.k * m.n for m in self.indexer_matmuls()) + 2 * self.index_head_dim
            return total
        total = sum(m.k * m.n for m in self.attention_matmuls(kind))
        if kind.attention == LINEAR:
            nv, dv = self.linear_value_heads, self.linear_value_dim
            conv = (2 * self.linear_key_heads * self.linear_key_dim + nv * dv) * self.linear_conv
            return total + conv + 2 * nv + dv  # convolution, decay and step biases, norm
        kv_heads, hd = self.kind_heads(kind)
        if self.o_groups:  # query and K=V norms, sinks; a compressor's pooling bias, norm
            total += self.q_lora_rank + hd + self.heads
            if kind.ratio:
                width = (2 if kind.topk else 1) * hd
                total += kind.ratio * width + hd
            if kind.topk:
                total += kind.ratio * 2 * self.index_head_dim + self.index_head_dim
            return total
        bias = ((self.heads + 2 * kv_heads) * hd + self.hidden if self.attention_bias else 0)
        return total + bias
