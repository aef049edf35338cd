"""What a sequence holds in a model's caches, layer by layer as its kind keeps it: K and V
(or a latent, or DeepSeek V4's shared K=V entries and pooled ones), an indexer's keys, a
linear layer's state; and how a tensor-parallel group splits them.

Mixed into sims.physics.shapes.Model, whose fields and layer kinds these read; memory_fit
and the KV sims (sims.serving.kv_space) ask for these sizes.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from sims.physics.kinds import COMPRESSED, LINEAR, SPARSE, LayerKind
from sims.physics.precision import bytes_per_value

if TYPE_CHECKING:
    from sims.physics.shapes import Model

    _Base = Model
else:
    _Base = object

INDEXER_PRECISION = "fp8"  # DeepSeek's lightning indexer caches its keys in FP8 (V3.2, V4)
CONV_PRECISION = "bf16"  # a linear layer's convolution keeps its last inputs as activations


class KvCache(_Base):
    """The cache part of Model (see the module docstring)."""

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
