"""Model shapes: a decoder-only transformer as its published config.json describes it.

One class covers what the catalogue holds: grouped-query or multi-head attention, latent
attention (DeepSeek's MLA: K and V compressed into one `kv_lora_rank` latent plus a shared
rotary key of `qk_rope_head_dim` per token), sliding-window layers (K and V kept for the
last `sliding_window` tokens only), a gated (SwiGLU) MLP, and mixtures of experts with
shared experts and dense first layers. Parameter counts, KV bytes per token and the
checkpoint's own precision are derived from the config's fields, so a typo in a count
cannot hide; tests compare the totals with the publishers' own.

Counted: every matmul weight, biases where the config says so, the norms, the embedding and
the output head. Left out, each under 0.1% of any model here: query/key norms (Qwen3),
attention sinks (gpt-oss), the experts' biases (gpt-oss), DeepSeek's multi-token-prediction
module (not part of its 671B).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Any, NamedTuple

from sims.physics.precision import Precision, bytes_per_value

EXPERT_COUNTS = ("num_experts", "num_local_experts", "n_routed_experts")
EMBEDDING_PRECISION = "bf16"  # embedding and output head stay BF16 in every checkpoint here


class LayerKind(NamedTuple):
    """What sets one layer's cost apart: its attention window and whether its MLP is MoE."""

    window: int  # tokens of K and V the layer keeps; 0 for full attention
    moe: bool


@dataclass(frozen=True, eq=False)  # one object per model or stage: hashed by identity, fast
class Model:
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
    q_lora_rank: int = 0  # latent attention; 0: queries projected directly
    kv_lora_rank: int = 0  # latent attention; 0: grouped-query attention
    nope_head_dim: int = 0
    rope_head_dim: int = 0
    v_head_dim: int = 0
    attention_bias: bool = False
    tied_embeddings: bool = False
    native: Precision = Precision()  # the checkpoint's weights and experts (activations BF16)
    has_embedding: bool = True  # a pipeline stage holds the embedding only on the first stage
    has_head: bool = True  # ...and the output head only on the last

    @classmethod
    def from_config(cls, key: str, name: str, config: Mapping[str, Any]) -> Model:
        """The shape a config.json (fields as written) describes."""
        heads = config["num_attention_heads"]
        layers = config["num_hidden_layers"]
        experts = next((config[k] for k in EXPERT_COUNTS if k in config), 0)
        moe = [_is_moe(config, experts, index) for index in range(layers)]
        window = config.get("sliding_window") or 0
        types = config.get("layer_types") or ["sliding_attention" if window else
                                              "full_attention"] * layers
        kinds = tuple(LayerKind(window if kind == "sliding_attention" else 0, is_moe)
                      for kind, is_moe in zip(types, moe, strict=True))
        method = (config.get("quantization_config") or {}).get("quant_method")
        native = {"fp8": Precision("fp8", "fp8"), "mxfp4": Precision("bf16", "fp4")}.get(
            method, Precision())
        return cls(
            key=key, name=name, hidden=config["hidden_size"], heads=heads,
            kv_heads=config.get("num_key_value_heads", heads),
            head_dim=config.get("head_dim", config["hidden_size"] // heads),
            vocab=config["vocab_size"], kinds=kinds,
            ffn=config.get("intermediate_size", 0) if not all(moe) else 0,
            experts=experts, experts_per_token=config.get("num_experts_per_tok", 0),
            expert_ffn=(config.get("moe_intermediate_size") or config.get("intermediate_size", 0)
                        if experts else 0),
            shared_experts=config.get("n_shared_experts", 0),
            q_lora_rank=config.get("q_lora_rank") or 0,
            kv_lora_rank=config.get("kv_lora_rank", 0),
            nope_head_dim=config.get("qk_nope_head_dim", 0),
            rope_head_dim=config.get("qk_rope_head_dim", 0),
            v_head_dim=config.get("v_head_dim", 0),
            attention_bias=config.get("attention_bias", False),
            tied_embeddings=config.get("tie_word_embeddings", False),
            native=native,
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
        """The distinct attention windows of the layers (0 for full attention)."""
        return tuple(sorted({kind.window for kind in self.kinds}))

    # -- parameters ------------------------------------------------------------------

    @cached_property
    def attention_params(self) -> int:
        """One layer's attention weights (and biases, norms of the latent projections)."""
        if self.latent:
            qk = self.nope_head_dim + self.rope_head_dim
            query = (self.hidden * self.q_lora_rank + self.q_lora_rank
                     + self.q_lora_rank * self.heads * qk) if self.q_lora_rank else (
                self.hidden * self.heads * qk)
            latent = (self.hidden * (self.kv_lora_rank + self.rope_head_dim) + self.kv_lora_rank
                      + self.kv_lora_rank * self.heads * (self.nope_head_dim + self.v_head_dim))
            return query + latent + self.heads * self.v_head_dim * self.hidden
        q_and_o = 2 * self.hidden * self.heads * self.head_dim
        k_and_v = 2 * self.hidden * self.kv_heads * self.head_dim
        bias = ((self.heads + 2 * self.kv_heads) * self.head_dim + self.hidden
                if self.attention_bias else 0)
        return q_and_o + k_and_v + bias

    @property
    def dense_mlp_params(self) -> int:
        return 3 * self.hidden * self.ffn  # gate, up and down

    @property
    def expert_params(self) -> int:
        """One expert (a routed or a shared one)."""
        return 3 * self.hidden * self.expert_ffn

    @property
    def router_params(self) -> int:
        return self.hidden * self.experts

    @cached_property
    def _classes(self) -> dict[str, int]:
        """Parameters by what stores them: weights (attention, dense, shared experts, router,
        norms), routed experts, and embedding plus head."""
        moe_layers = self.moe_layers
        weights = (self.layers * (self.attention_params + 2 * self.hidden)
                   + (self.layers - moe_layers) * self.dense_mlp_params
                   + moe_layers * (self.shared_experts * self.expert_params + self.router_params))
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

    # -- the KV cache ----------------------------------------------------------------

    @property
    def kv_values_per_token_layer(self) -> int:
        """Values one token adds to one layer's cache: K and V per KV head, or for latent
        attention one latent plus one shared rotary key."""
        if self.latent:
            return self.kv_lora_rank + self.rope_head_dim
        return 2 * self.kv_heads * self.head_dim

    def kv_bytes(self, context_tokens: int, kv: str = "bf16") -> float:
        """KV bytes one sequence of `context_tokens` holds: a sliding layer keeps its window."""
        held = sum(min(context_tokens, kind.window) if kind.window else context_tokens
                   for kind in self.kinds)
        return held * self.kv_values_per_token_layer * bytes_per_value(kv)

    def kv_bytes_per_token(self, kv: str = "bf16") -> float:
        """Bytes each further token of a long context adds: the full-attention layers' share
        (a sliding layer stops growing at its window)."""
        full = sum(1 for kind in self.kinds if not kind.window)
        return full * self.kv_values_per_token_layer * bytes_per_value(kv)

    def kv_window_bytes(self, kv: str = "bf16") -> float:
        """Bytes the sliding layers hold per sequence once their windows are full."""
        held = sum(kind.window for kind in self.kinds)
        return held * self.kv_values_per_token_layer * bytes_per_value(kv)

    # -- pipeline stages -------------------------------------------------------------

    def pipeline_stage(self, stages: int, index: int) -> Model:
        """The slice of this model that pipeline stage `index` of `stages` holds.

        Layers are split evenly (the remainder goes to the first stages); the embedding
        lives on the first stage and the output head on the last.
        """
        if not 0 <= index < stages <= self.layers:
            raise ValueError(f"stage {index} of {stages} is not a stage of {self.layers} layers")
        return _pipeline_stage(self, stages, index)


def _is_moe(config: Mapping[str, Any], experts: int, index: int) -> bool:
    """Whether layer `index` (from 0) routes to experts, as the families' own code decides:
    DeepSeek's first_k_dense_replace and moe_layer_freq, Qwen's mlp_only_layers and
    decoder_sparse_step."""
    if not experts or index < config.get("first_k_dense_replace", 0):
        return False
    if index in config.get("mlp_only_layers", ()) or index % config.get("moe_layer_freq", 1):
        return False
    return (index + 1) % config.get("decoder_sparse_step", 1) == 0


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
