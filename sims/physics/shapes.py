"""Model shapes: a decoder-only transformer as its published config.json describes it.

One class covers the catalogue's models and the layer patterns served in 2026. Each layer has
a kind (LayerKind), read from the family's own fields:

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

from sims.physics.families import (
    EXPERT_COUNTS,
    EXPERTS_PER_TOKEN,
    STATE_BYTES,
    is_moe,
    layer_kinds,
    native,
    shared_ffn,
)
from sims.physics.kinds import CHUNKED, COMPRESSED, FULL, LINEAR, SPARSE, LayerKind, Matmul
from sims.physics.precision import Precision, bytes_per_value
from sims.physics.reach import Reach

EMBEDDING_PRECISION = "bf16"  # embedding and output head stay BF16 in every checkpoint here
INDEXER_PRECISION = "fp8"  # DeepSeek's lightning indexer caches its keys in FP8 (V3.2, V4)
CONV_PRECISION = "bf16"  # a linear layer's convolution keeps its last inputs as activations

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

    # -- what each kind of layer reads -------------------------------------------------

    def reaches(self, kind: LayerKind) -> dict[str, Reach]:
        """The entries a layer's query reads, by part: "attend" (the attention kernel's;
        a compressed layer's window and its "compressed" entries), "index" (the entries its
        indexer scores), and "all" (every token: what a linear layer's scan and a latent
        prefill's up-projection go over)."""
        if kind.attention == LINEAR:
            return {"all": Reach()}
        if kind.attention == CHUNKED:
            return {"attend": Reach(chunk=kind.window)}
        if kind.attention == SPARSE:
            own = {"index": Reach()} if kind.indexer else {}
            return {"attend": Reach(span=kind.topk), **own, "all": Reach()}
        if kind.attention == COMPRESSED:
            parts = {"attend": Reach(span=kind.window),
                     "compressed": Reach(span=kind.topk * kind.ratio, ratio=kind.ratio)}
            if kind.topk:
                parts["index"] = Reach(ratio=kind.ratio)
            return parts
        return {"attend": Reach(span=kind.window), "all": Reach()}

    @cached_property
    def kind_groups(self) -> tuple[tuple[LayerKind, int, dict[str, Reach]], ...]:
        """`groups` with each kind's reaches (worked out once: a step prices every group)."""
        return tuple((kind, count, self.reaches(kind)) for kind, count in self.groups)

    @cached_property
    def projection_groups(self) -> tuple[tuple[tuple[Matmul, ...], int], ...]:
        """(attention projections, layers that have them): layers alike are priced at once
        (one group when every layer's projections are the same). Latent attention's are
        priced in its own forms (sims.physics.layers), so a latent model has none here."""
        if self.latent:
            return ()
        return tuple(Counter(self.attention_matmuls(kind) for kind in self.kinds).items())

    @cached_property
    def latent_groups(self) -> tuple[tuple[LayerKind, int], ...]:
        """A latent model's layers by attention kind (full or sparse): a kind and its count."""
        counts = Counter(kind.attention for kind in self.kinds)
        return tuple((next(k for k in self.kinds if k.attention == attention), count)
                     for attention, count in sorted(counts.items()))

    @cached_property
    def all_reaches(self) -> tuple[Reach, ...]:
        """Every Reach some layer reads (a step works out each one's pairs once)."""
        return tuple(sorted({reach for kind in self.kinds
                             for reach in self.reaches(kind).values()}))

    @cached_property
    def horizon(self) -> int:
        """Context past which every layer's work grows by the same amount per token."""
        return max(reach.horizon for reach in self.all_reaches)

    # -- parameters ------------------------------------------------------------------

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

    # -- the KV cache and the linear layers' state --------------------------------------

    def kv_values(self, kind: LayerKind) -> int:
        """Values one cached entry of a layer of this kind holds: K and V per KV head (one
        vector for DeepSeek V4's shared K=V head), or for latent attention one latent plus
        one shared rotary key; a linear layer: none."""
        if kind.attention == LINEAR:
            return 0
        if self.latent:
            return self.kv_lora_rank + self.rope_head_dim
        kv_heads, hd = self.kind_heads(kind)
        return (1 if self.shared_kv else 2) * kv_heads * hd

    @cached_property
    def linear_state_bytes(self) -> float:
        """One linear layer's state for one sequence: the recurrent state (value heads x key
        dim x value dim) and the convolution's last `linear_conv - 1` inputs."""
        nv, dk, dv = self.linear_value_heads, self.linear_key_dim, self.linear_value_dim
        conv = (2 * self.linear_key_heads * dk + nv * dv) * (self.linear_conv - 1)
        return nv * dk * dv * self.state_bytes + conv * bytes_per_value(CONV_PRECISION)

    def _layer_bytes(self, kind: LayerKind, context: float, kv: str) -> float:
        """Bytes one layer holds for a sequence of `context` tokens."""
        if kind.attention == LINEAR:
            return self.linear_state_bytes
        entry = self.kv_values(kind) * bytes_per_value(kv)
        index = self.index_head_dim * bytes_per_value(INDEXER_PRECISION)
        if kind.attention == SPARSE:
            return context * entry + (context * index if kind.indexer else 0)
        held = min(context, kind.window) if kind.window else context
        if kind.attention != COMPRESSED:
            return held * entry
        pooled = context / kind.ratio if kind.ratio else 0
        return held * entry + pooled * entry + (pooled * index if kind.topk else 0)

    def _split(self, kind: LayerKind, gpus: int) -> int:
        """The GPUs of a tensor-parallel group one layer's cache is split over: its KV heads
        (copied beyond their number), a linear layer's value heads; a latent or a single
        shared head is held whole by each."""
        if gpus == 1 or self.latent:
            return 1
        if kind.attention == LINEAR:
            return min(gpus, self.linear_value_heads)
        return min(gpus, self.kind_heads(kind)[0])

    def kv_bytes(self, context_tokens: int, kv: str = "bf16", gpus: int = 1) -> float:
        """KV (and linear state) bytes one sequence of `context_tokens` holds, on each of
        `gpus` GPUs of a tensor-parallel group: each layer as its kind keeps it."""
        return sum(count * self._layer_bytes(kind, context_tokens, kv) / self._split(kind, gpus)
                   for kind, count in self.groups)

    def kv_bytes_per_token(self, kv: str = "bf16") -> float:
        """Bytes each further token of a long context adds: the layers whose cache grows
        with it (full, sparse with their indexer keys, compressed by their ratio)."""
        return self.kv_bytes(self.horizon + 1, kv) - self.kv_bytes(self.horizon, kv)

    def kv_constant_bytes(self, kv: str = "bf16") -> float:
        """Bytes a sequence holds whatever its length once past every window: full sliding
        windows and chunks, the linear layers' states (kv_bytes(n) is this plus n times
        kv_bytes_per_token for any n past them)."""
        return self.kv_bytes(self.horizon, kv) - self.horizon * self.kv_bytes_per_token(kv)

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
