"""Model shapes: a decoder-only transformer as its published config.json describes it.

One class covers the catalogue's models and the layer patterns served in 2026: each layer
has a kind (sims.physics.kinds says which there are, and how each caches), read from the
family's own fields (sims.physics.families). What a layer's query reads is
sims.physics.reads', its attention weights sims.physics.attention_weights', its caches
sims.physics.cache's: each a part of Model.

MLPs: gated (SwiGLU), or a mixture of experts with shared experts (or, as Gemma 4 and Llama
4 have, a dense MLP every token runs beside the experts), dense first layers (DeepSeek) or
interleaved dense layers (Llama 4 Maverick). Parameter counts, KV bytes and the checkpoint's
own precision are derived from the config's fields, so a typo in a count cannot hide; tests
compare the totals with the publishers' own.

Counted: every matmul weight, biases where the config says so, the norms, the embedding and
the output head, the indexers and compressors, the linear layers' convolutions, DeepSeek
V4's hyper-connections. Left out, each under 0.1% of any model here: query/key norms (Qwen3,
Gemma), attention sinks (gpt-oss), the experts' biases (gpt-oss), per-layer scalars and
extra norms (Gemma 4), the multi-token-prediction module (not part of DeepSeek's 671B), and
a vision tower (the sims serve text; Llama 4's and Qwen3.5's published totals include
theirs, which tests/sims/test_model_kinds.py allows for).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Any

from sims.physics.attention_weights import AttentionWeights
from sims.physics.cache import KvCache
from sims.physics.families import (
    EXPERT_COUNTS,
    EXPERTS_PER_TOKEN,
    STATE_BYTES,
    is_moe,
    layer_kinds,
    native,
    shared_ffn,
)
from sims.physics.kinds import LayerKind
from sims.physics.precision import Precision, bytes_per_value
from sims.physics.reads import LayerReads

EMBEDDING_PRECISION = "bf16"  # embedding and output head stay BF16 in every checkpoint here

@dataclass(frozen=True, eq=False)  # one object per model or stage: hashed by identity, fast
class Model(LayerReads, AttentionWeights, KvCache):
    """A model's shape. Widths are per token; `kinds` has one entry per layer."""

    key: str
    name: str
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    kinds: tuple[LayerKind, ...]
    ffn: int = 0  # dense MLP width (0 when every layer is MoE)
    experts: int = 0
    experts_per_token: int = 0
    expert_ffn: int = 0
    shared_experts: int = 0
    shared_ffn: int = 0  # width of the MLP every token of an MoE layer also runs (0: none)
    q_lora_rank: int = 0  # latent attention; 0: queries projected directly
    kv_lora_rank: int = 0  # latent attention; 0: grouped-query attention
    nope_head_dim: int = 0
    rope_head_dim: int = 0
    v_head_dim: int = 0
    attention_bias: bool = False
    tied_embeddings: bool = False
    output_gate: bool = False  # Qwen3.5: the query projection also gives a gate per value
    k_eq_v: bool = False  # Gemma 4's global layers: V comes from K's projection, both cached
    shared_kv: bool = False  # DeepSeek V4: one tensor is K and V, cached once
    linear_key_heads: int = 0  # Gated DeltaNet layers (Qwen3.5)
    linear_value_heads: int = 0
    linear_key_dim: int = 0
    linear_value_dim: int = 0
    linear_conv: int = 0  # the short convolution's kernel, in tokens
    state_bytes: int = 4  # a linear layer's recurrent state, bytes a value
    index_heads: int = 0  # DeepSeek's lightning indexer (sparse and compressed layers)
    index_head_dim: int = 0
    o_groups: int = 0  # DeepSeek V4's grouped output projection
    o_lora_rank: int = 0
    hc_mult: int = 0  # DeepSeek V4's hyper-connections: residual streams
    native: Precision = Precision()  # the checkpoint's weights and experts (activations BF16)
    has_embedding: bool = True  # a pipeline stage holds the embedding only on the first stage
    has_head: bool = True  # ...and the output head only on the last

    @classmethod
    def from_config(cls, key: str, name: str, config: Mapping[str, Any]) -> Model:
        """The shape a config.json (fields as written, a multimodal one's language model's:
        sims.physics.model_config.language_fields) describes."""
        heads = config["num_attention_heads"]
        layers = config["num_hidden_layers"]
        experts = next((config[k] for k in EXPERT_COUNTS if k in config), 0)
        moe = [is_moe(config, experts, index) for index in range(layers)]
        expert_ffn = (config.get("moe_intermediate_size") or config.get("intermediate_size", 0)
                      if experts else 0)
        return cls(
            key=key, name=name, hidden=config["hidden_size"], heads=heads,
            kv_heads=config.get("num_key_value_heads", heads),
            head_dim=config.get("head_dim", config["hidden_size"] // heads),
            vocab=config["vocab_size"], kinds=layer_kinds(config, moe),
            ffn=(config.get("intermediate_size_mlp") or config.get("intermediate_size", 0)
                 if not all(moe) else 0),
            experts=experts,
            experts_per_token=next((config[k] for k in EXPERTS_PER_TOKEN if k in config), 0),
            expert_ffn=expert_ffn,
            shared_experts=config.get("n_shared_experts", 0),
            shared_ffn=shared_ffn(config, expert_ffn) if experts else 0,
            q_lora_rank=config.get("q_lora_rank") or 0,
            kv_lora_rank=config.get("kv_lora_rank", 0),
            nope_head_dim=config.get("qk_nope_head_dim", 0),
            rope_head_dim=config.get("qk_rope_head_dim", 0),
            v_head_dim=config.get("v_head_dim", 0),
            attention_bias=config.get("attention_bias", False),
            tied_embeddings=config.get("tie_word_embeddings", False),
            output_gate=config.get("attn_output_gate", False),
            k_eq_v=config.get("attention_k_eq_v", False),
            shared_kv="compress_ratios" in config,
            linear_key_heads=config.get("linear_num_key_heads", 0),
            linear_value_heads=config.get("linear_num_value_heads", 0),
            linear_key_dim=config.get("linear_key_head_dim", 0),
            linear_value_dim=config.get("linear_value_head_dim", 0),
            linear_conv=config.get("linear_conv_kernel_dim", 0),
            state_bytes=STATE_BYTES[config.get("mamba_ssm_dtype", "float32")],
            index_heads=config.get("index_n_heads", 0),
            index_head_dim=config.get("index_head_dim", 0),
            o_groups=config.get("o_groups", 0), o_lora_rank=config.get("o_lora_rank", 0),
            hc_mult=config.get("hc_mult", 0),
            native=native(config),
        )

    # -- the layers ------------------------------------------------------------------

    @property
    def layers(self) -> int:
        return len(self.kinds)

    @property
    def latent(self) -> bool:
        """Latent (MLA) attention rather than grouped-query attention."""
        return self.kv_lora_rank > 0

    @cached_property
    def groups(self) -> tuple[tuple[LayerKind, int], ...]:
        """(kind, number of layers of that kind): layers of one kind cost the same."""
        return tuple(sorted(Counter(self.kinds).items()))

    @cached_property
    def moe_layers(self) -> int:
        """Layers whose MLP is a mixture of experts (the rest are dense)."""
        return sum(kind.moe for kind in self.kinds)

    @cached_property
    def windows(self) -> tuple[int, ...]:
        """The distinct cache windows of the layers (0: the layer keeps every token)."""
        return tuple(sorted({kind.window for kind in self.kinds}))

    @property
    def shared_width(self) -> int:
        """The width of the MLP each token of an MoE layer runs besides its experts."""
        return self.shared_ffn or self.shared_experts * self.expert_ffn

    def kind_heads(self, kind: LayerKind) -> tuple[int, int]:
        """(KV heads, head width) of a layer of this kind."""
        return kind.kv_heads or self.kv_heads, kind.head_dim or self.head_dim

    # -- parameters ------------------------------------------------------------------

    @property
    def dense_mlp_params(self) -> int:
        return 3 * self.hidden * self.ffn  # gate, up and down

    @property
    def expert_params(self) -> int:
        """One routed expert."""
        return 3 * self.hidden * self.expert_ffn

    @property
    def router_params(self) -> int:
        return self.hidden * self.experts

    @property
    def hyper_params(self) -> int:
        """DeepSeek V4's hyper-connections: two per layer (before attention and before the
        MLP), each mapping the `hc_mult` streams to their mixing weights, and the head's."""
        m, h = self.hc_mult, self.hidden
        if not m:
            return 0
        per_layer = 2 * ((2 + m) * m * m * h + (2 + m) * m + 3)
        return self.layers * per_layer + (m * m * h + m + 1 if self.has_head else 0)

    @cached_property
    def _classes(self) -> dict[str, int]:
        """Parameters by what stores them: weights (attention, dense, shared experts, router,
        norms), routed experts, and embedding plus head."""
        moe_layers = self.moe_layers
        attention = sum(count * self.attention_params_of(kind) for kind, count in self.groups)
        weights = (attention + self.layers * 2 * self.hidden
                   + (self.layers - moe_layers) * self.dense_mlp_params
                   + moe_layers * (3 * self.hidden * self.shared_width + self.router_params)
                   + self.hyper_params)
        edges = (self.vocab * self.hidden if self.has_embedding else 0) + (
            self.hidden + (0 if self.tied_embeddings and self.has_embedding else
                           self.vocab * self.hidden) if self.has_head else 0)
        return {"weights": weights, "experts": moe_layers * self.experts * self.expert_params,
                "edges": edges}

    @property
    def params(self) -> int:
        """Every parameter."""
        return sum(self._classes.values())

    @cached_property
    def params_active(self) -> int:
        """Parameters one token is multiplied by: all but the routed experts it is not sent
        to, and the embedding (a lookup, not a matmul); the output head counts."""
        moe_layers = self.moe_layers
        head = self.vocab * self.hidden if self.has_head else 0
        return (self._classes["weights"] + moe_layers * self.experts_per_token
                * self.expert_params + head)

    def expert_weight_bytes(self, precision: Precision | None = None) -> float:
        """Bytes the routed experts occupy (what expert parallelism spreads over the GPUs)."""
        return self._classes["experts"] * bytes_per_value((precision or self.native).experts)

    def weight_bytes(self, precision: Precision | None = None) -> float:
        """Bytes the weights occupy, each class in its format (the checkpoint's by default)."""
        precision = precision or self.native
        return (self._classes["weights"] * bytes_per_value(precision.weights)
                + self._classes["experts"] * bytes_per_value(precision.experts)
                + self._classes["edges"] * bytes_per_value(EMBEDDING_PRECISION))

    # -- pipeline stages -------------------------------------------------------------

    def pipeline_stage(self, stages: int, index: int) -> Model:
        """The slice of this model that pipeline stage `index` of `stages` holds.

        Layers are split evenly (the remainder goes to the first stages); the embedding
        lives on the first stage and the output head on the last.
        """
        if not 0 <= index < stages <= self.layers:
            raise ValueError(f"stage {index} of {stages} is not a stage of {self.layers} layers")
        return _pipeline_stage(self, stages, index)


@lru_cache(maxsize=256)
def _pipeline_stage(model: Model, stages: int, index: int) -> Model:
    """Model.pipeline_stage, made once per (model, stages, index): a stage is a fixed fact
    of the shape, and kept, its cached sizes are not worked out again on every run."""
    base, extra = divmod(model.layers, stages)
    first = index * base + min(index, extra)
    count = base + (1 if index < extra else 0)
    return replace(
        model,
        key=f"{model.key}/stage{index}",
        kinds=model.kinds[first:first + count],
        has_embedding=model.has_embedding and index == 0,
        has_head=model.has_head and index == stages - 1,
    )


def build_models(entries: Mapping[str, Mapping[str, Any]]) -> dict[str, Model]:
    """Every catalogue entry ({name, config}) as a Model."""
    return {key: Model.from_config(key, entry["name"], entry["config"])
            for key, entry in entries.items()}
