"""Shared serving physics: GPUs, model shapes, and what one forward step costs.

Every sim that needs a bandwidth, a FLOP rate, a model's size or a step time asks this
module; no sim keeps its own copy. The model is the roofline: a step takes the longer of
its compute time and its memory time, each at a stated efficiency, plus the tensor-parallel
all-reduces it must wait for. It is deliberately small enough to check by hand; the
"check it yourself" sections of the explainers do exactly that from these constants.

Bytes moved are the weights, the KV cache, and each matmul's input and output activations
(read once, written once). What it leaves out, on purpose: element-wise kernels (norms,
residual adds, the SwiGLU product; small, and fused in good engines), FlashAttention's
re-reads of K and V tiles within a long prefill, kernel launch gaps, and the scheduler's
own time. Those are the usual reasons a real engine lands below these numbers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import NamedTuple

GB = 1e9
TB = 1e12
TFLOP = 1e12

# Fraction of peak a well-tuned engine sustains. Large GEMMs in BF16 on Hopper reach about
# 60-75% of dense peak (FlashAttention-3 reports up to 75% for attention, Shah et al. 2024);
# we take 0.7. Streaming weights and KV reaches about 80% of HBM peak in practice.
# These two numbers are assumptions of this model, stated on every page that uses them.
COMPUTE_EFFICIENCY = 0.7
MEMORY_EFFICIENCY = 0.8

# A fixed cost per all-reduce call (launch, synchronisation, NVLink latency), independent
# of message size. NCCL's small-message all-reduce on one NVLink node takes on the order of
# ten microseconds; an assumption the tensor-parallel explainer lets the reader change.
ALLREDUCE_LATENCY_S = 10e-6
# A fixed cost per point-to-point transfer between pipeline stages; same order as above.
P2P_LATENCY_S = 10e-6

# Share of HBM that can hold weights and KV; the rest goes to activations, the CUDA
# context and allocator slack. vLLM's default gpu_memory_utilization is 0.9.
USABLE_MEMORY_FRACTION = 0.9


@dataclass(frozen=True)
class Gpu:
    """One accelerator. Rates are dense (no structured sparsity) BF16 peaks."""

    key: str
    name: str
    bf16_flops: float  # FLOP/s, dense
    hbm_bytes_per_s: float  # HBM bandwidth, bytes/s
    hbm_bytes: float  # HBM capacity, bytes
    nvlink_bytes_per_s: float  # NVLink, total of both directions per GPU, bytes/s

    @property
    def ridge_flops_per_byte(self) -> float:
        """Arithmetic intensity at which compute time equals memory time, at peak rates."""
        return self.bf16_flops / self.hbm_bytes_per_s

    @property
    def effective_ridge_flops_per_byte(self) -> float:
        """The same crossing at the efficiencies this model assumes."""
        return (self.bf16_flops * COMPUTE_EFFICIENCY) / (self.hbm_bytes_per_s * MEMORY_EFFICIENCY)

    @property
    def nvlink_one_way_bytes_per_s(self) -> float:
        """Bandwidth in one direction: what a ring all-reduce step can push."""
        return self.nvlink_bytes_per_s / 2


GPUS: dict[str, Gpu] = {
    # NVIDIA H100 Tensor Core GPU datasheet, SXM5 80 GB column: BF16 1,979 TFLOPS is
    # "with sparsity"; dense is half, 989 TFLOPS. HBM3 3.35 TB/s. NVLink 900 GB/s.
    "h100": Gpu("h100", "NVIDIA H100 SXM 80 GB", 989 * TFLOP, 3.35 * TB, 80 * GB, 900 * GB),
    # NVIDIA H200 Tensor Core GPU datasheet, SXM column: BF16 1,979 TFLOPS with sparsity
    # (989 dense), HBM3e 141 GB at 4.8 TB/s, NVLink 900 GB/s.
    "h200": Gpu("h200", "NVIDIA H200 SXM 141 GB", 989 * TFLOP, 4.8 * TB, 141 * GB, 900 * GB),
    # NVIDIA A100 Tensor Core GPU datasheet, 80 GB SXM column: BF16 312 TFLOPS dense
    # (624 with sparsity), HBM2e 2,039 GB/s, NVLink 600 GB/s.
    "a100": Gpu("a100", "NVIDIA A100 SXM 80 GB", 312 * TFLOP, 2039 * GB, 80 * GB, 600 * GB),
}


@dataclass(frozen=True)
class Model:
    """A decoder-only transformer with grouped-query attention and a gated (SwiGLU) MLP.

    Shapes are the published config.json values. Parameter counts and KV bytes per token
    are derived from the shape, so a typo in a count cannot hide. `has_embedding` and
    `has_head` let a pipeline stage be described as a Model of its own.

    The derived sizes are computed once per model (cached properties: the shape is frozen),
    since every step a sim prices reads several of them.
    """

    key: str
    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    vocab: int
    tied_embeddings: bool = False
    bytes_per_param: int = 2  # BF16 weights
    kv_bytes_per_value: int = 2  # BF16 KV cache
    has_embedding: bool = True
    has_head: bool = True

    @cached_property
    def attention_params_per_layer(self) -> int:
        q_and_o = 2 * self.hidden * self.heads * self.head_dim
        k_and_v = 2 * self.hidden * self.kv_heads * self.head_dim
        return q_and_o + k_and_v

    @cached_property
    def mlp_params_per_layer(self) -> int:
        return 3 * self.hidden * self.ffn  # gate, up and down projections

    @cached_property
    def norm_params_per_layer(self) -> int:
        return 2 * self.hidden

    @cached_property
    def layer_params(self) -> int:
        per_layer = (
            self.attention_params_per_layer + self.mlp_params_per_layer + self.norm_params_per_layer
        )
        return self.layers * per_layer

    @cached_property
    def embedding_params(self) -> int:
        return self.vocab * self.hidden if self.has_embedding else 0

    @cached_property
    def head_params(self) -> int:
        """The output projection, plus the final norm; shared with the embedding when tied."""
        if not self.has_head:
            return 0
        shared = self.tied_embeddings and self.has_embedding
        projection = 0 if shared else self.vocab * self.hidden
        return projection + self.hidden

    @cached_property
    def params(self) -> int:
        return self.layer_params + self.embedding_params + self.head_params

    @cached_property
    def weight_bytes(self) -> float:
        """Bytes the weights occupy in memory."""
        return self.params * self.bytes_per_param

    @cached_property
    def layer_matmul_params(self) -> int:
        """Parameters every new token is multiplied by inside the layers (norms excluded)."""
        return self.layers * (self.attention_params_per_layer + self.mlp_params_per_layer)

    @cached_property
    def head_matmul_params(self) -> int:
        """The output projection, applied only at the positions whose logits are needed."""
        return self.vocab * self.hidden if self.has_head else 0

    @cached_property
    def matmul_params(self) -> int:
        """Parameters of every matmul: the layers' and the output projection's.

        The embedding is a table lookup, not a matmul, so it costs no FLOPs.
        """
        return self.layer_matmul_params + self.head_matmul_params

    @cached_property
    def streamed_weight_bytes(self) -> float:
        """Bytes of weight read by one forward step: every matmul weight, once.

        The embedding table is only gathered a row per token, so it is not streamed.
        """
        return self.matmul_params * self.bytes_per_param

    @cached_property
    def activation_bytes_per_token(self) -> int:
        """Activations one new token moves through the layers' matmuls: each matmul reads
        its input and writes its output once (fused QKV, output, fused gate-up, down)."""
        qkv_out = (self.heads + 2 * self.kv_heads) * self.head_dim
        attention_out = self.heads * self.head_dim
        per_layer = (
            (self.hidden + qkv_out)
            + (attention_out + self.hidden)
            + (self.hidden + 2 * self.ffn)
            + (self.ffn + self.hidden)
        )
        return self.layers * per_layer * self.bytes_per_param

    @cached_property
    def head_activation_bytes_per_logit(self) -> int:
        """The output projection's input (one hidden state) and output (one row of logits)."""
        return (self.hidden + self.vocab) * self.bytes_per_param if self.has_head else 0

    @cached_property
    def kv_bytes_per_token(self) -> int:
        """K and V for one token across all layers: 2 x layers x kv_heads x head_dim x bytes."""
        return 2 * self.layers * self.kv_heads * self.head_dim * self.kv_bytes_per_value

    @cached_property
    def attention_flops_per_context_token(self) -> int:
        """FLOPs one new token spends attending to one earlier token, over all layers.

        Scores (q . k) and the weighted sum of values are each 2 x heads x head_dim.
        """
        return 4 * self.layers * self.heads * self.head_dim

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
    return replace(
        model,
        key=f"{model.key}/stage{index}",
        layers=base + (1 if index < extra else 0),
        has_embedding=model.has_embedding and index == 0,
        has_head=model.has_head and index == stages - 1,
    )


MODELS: dict[str, Model] = {
    # meta-llama/Llama-3.2-1B config.json: 16 layers, hidden 2048, 32 heads, 8 KV heads,
    # head_dim 64, intermediate 8192, vocab 128256, tie_word_embeddings true.
    "llama-3.2-1b": Model("llama-3.2-1b", "Llama 3.2 1B", 16, 2048, 32, 8, 64, 8192, 128256,
                          tied_embeddings=True),
    # meta-llama/Meta-Llama-3-8B config.json: 32 layers, hidden 4096, 32 heads, 8 KV heads,
    # head_dim 128, intermediate 14336, vocab 128256.
    "llama-3-8b": Model("llama-3-8b", "Llama 3 8B", 32, 4096, 32, 8, 128, 14336, 128256),
    # meta-llama/Meta-Llama-3-70B config.json: 80 layers, hidden 8192, 64 heads, 8 KV heads,
    # head_dim 128, intermediate 28672, vocab 128256.
    "llama-3-70b": Model("llama-3-70b", "Llama 3 70B", 80, 8192, 64, 8, 128, 28672, 128256),
    # meta-llama/Llama-3.1-405B config.json: 126 layers, hidden 16384, 128 heads,
    # 8 KV heads, head_dim 128, intermediate 53248, vocab 128256.
    "llama-3.1-405b": Model("llama-3.1-405b", "Llama 3.1 405B", 126, 16384, 128, 8, 128, 53248,
                            128256),
}


class _WorkFields(NamedTuple):
    new_tokens: int
    context_tokens: int = 0
    count: int = 1
    logit_tokens: int | None = None


class Work(_WorkFields):
    """One sequence's share of a step: `new_tokens` computed on top of `context_tokens`
    already in the KV cache. A decode is Work(1, context); a prefill chunk Work(n, done).
    `count` identical sequences can share one Work, so a step over a large batch costs
    one term to evaluate rather than one per sequence (sims must stay fast in a browser).

    `logit_tokens` is how many of each sequence's new positions need logits, that is, go
    through the output projection. None means all of them: right for a decode and for a
    speculative verify, where every guess is scored. A prefill needs only its last position
    (engines such as vLLM gather the sampled positions before the head), so `prefill()`
    passes 1; a prefill chunk that is not the prompt's last needs 0.

    An immutable tuple with its fields checked when made: sims make hundreds per run, and
    this is several times cheaper to build than a frozen dataclass."""

    __slots__ = ()

    def __new__(cls, new_tokens: int, context_tokens: int = 0, count: int = 1,
                logit_tokens: int | None = None) -> Work:
        self = tuple.__new__(cls, (new_tokens, context_tokens, count, logit_tokens))
        if new_tokens < 0 or context_tokens < 0 or count < 0:
            raise ValueError(f"token counts cannot be negative: {self}")
        if logit_tokens is not None and not 0 <= logit_tokens <= new_tokens:
            raise ValueError(f"logit_tokens must lie in [0, new_tokens]: {self}")
        return self

    @property
    def logits(self) -> int:
        """Positions of each sequence that go through the output projection."""
        return self.new_tokens if self.logit_tokens is None else self.logit_tokens


def _totals(model: Model, work: Iterable[Work]) -> tuple[float, int, int, int]:
    """One pass over a step's work: its FLOPs (see `step_flops`), and the tokens whose KV
    it touches, the new tokens, and the positions that need logits (see `step_bytes`)."""
    flops = 0.0
    kv_tokens = new_tokens = logits = 0
    layer_params, head_params = model.layer_matmul_params, model.head_matmul_params
    per_context_token = model.attention_flops_per_context_token
    for n, c, count, logit_tokens in work:
        wanted = n if logit_tokens is None else logit_tokens
        attended = n * c + n * (n + 1) / 2
        matmuls = 2 * layer_params * n + 2 * head_params * wanted
        flops += count * (matmuls + per_context_token * attended)
        kv_tokens += count * (c + n)
        new_tokens += count * n
        logits += count * wanted
    return flops, kv_tokens, new_tokens, logits


def _bytes(model: Model, kv_tokens: int, new_tokens: int, logits: int) -> float:
    return (
        model.streamed_weight_bytes
        + kv_tokens * model.kv_bytes_per_token
        + new_tokens * model.activation_bytes_per_token
        + logits * model.head_activation_bytes_per_logit
    )


def step_flops(model: Model, work: Iterable[Work]) -> float:
    """FLOPs of one forward step: 2 per matmul parameter per token, plus causal attention.

    Every new token goes through the layers; only `logits` positions through the head.
    A token at position p attends to p earlier tokens and itself, so n new tokens after c
    cached ones attend to n*c + n(n+1)/2 positions in all.
    """
    return _totals(model, work)[0]


def step_bytes(model: Model, work: Iterable[Work]) -> float:
    """Bytes moved by one forward step: the weights once, every sequence's cached KV read
    once, the new tokens' KV written, and the matmuls' activations in and out."""
    return _bytes(model, *_totals(model, work)[1:])


def allreduce_time(
    gpu: Gpu, message_bytes: float, tp: int, latency_s: float = ALLREDUCE_LATENCY_S
) -> float:
    """One ring all-reduce over `tp` GPUs: a fixed latency plus the bandwidth term.

    A ring moves 2(tp-1)/tp of the message through each GPU's link, one direction at a time.
    One GPU has nothing to agree with, so it costs nothing.
    """
    if tp == 1:
        return 0.0
    return latency_s + 2 * (tp - 1) / tp * message_bytes / gpu.nvlink_one_way_bytes_per_s


def p2p_time(gpu: Gpu, message_bytes: float, latency_s: float = P2P_LATENCY_S) -> float:
    """Send activations from one pipeline stage to the next over NVLink."""
    return latency_s + message_bytes / gpu.nvlink_one_way_bytes_per_s


class StepCost(NamedTuple):
    """What one forward step costs on one GPU of a tensor-parallel group.

    A tuple rather than a frozen dataclass: sims price hundreds of steps per run, and a
    tuple is several times cheaper to build."""

    flops: float  # whole step, all shards together
    bytes: float  # whole step, all shards together
    compute_s: float  # per shard, at COMPUTE_EFFICIENCY
    memory_s: float  # per shard, at MEMORY_EFFICIENCY
    allreduces: int
    allreduce_s: float  # all calls together

    @property
    def matmul_s(self) -> float:
        """The shard's own work: the roofline maximum of its compute and memory time."""
        return max(self.compute_s, self.memory_s)

    @property
    def time_s(self) -> float:
        return self.matmul_s + self.allreduce_s

    @property
    def bound(self) -> str:
        return "compute" if self.compute_s >= self.memory_s else "memory"

    @property
    def intensity(self) -> float:
        """Arithmetic intensity in FLOP per byte moved."""
        return self.flops / self.bytes


def step_cost(
    gpu: Gpu,
    model: Model,
    work: Iterable[Work],
    tp: int = 1,
    allreduce_latency_s: float = ALLREDUCE_LATENCY_S,
) -> StepCost:
    """Cost of one forward step over the given work, the model split over `tp` GPUs.

    Tensor parallelism divides FLOPs and bytes evenly across shards and adds two
    all-reduces per layer (after attention, after the MLP), each carrying every token's
    hidden state in BF16.
    """
    flops, kv_tokens, tokens, logits = _totals(model, work)
    moved = _bytes(model, kv_tokens, tokens, logits)
    calls = 2 * model.layers if tp > 1 else 0
    message = tokens * model.hidden * model.bytes_per_param
    return StepCost(
        flops=flops,
        bytes=moved,
        compute_s=flops / tp / (gpu.bf16_flops * COMPUTE_EFFICIENCY),
        memory_s=moved / tp / (gpu.hbm_bytes_per_s * MEMORY_EFFICIENCY),
        allreduces=calls,
        allreduce_s=calls * allreduce_time(gpu, message, tp, allreduce_latency_s),
    )


def decode_step(
    gpu: Gpu, model: Model, batch: int, context_tokens: int, tp: int = 1,
    allreduce_latency_s: float = ALLREDUCE_LATENCY_S,
) -> StepCost:
    """One decode step: `batch` sequences each add one token after `context_tokens`."""
    work = [Work(1, context_tokens, count=batch)]
    return step_cost(gpu, model, work, tp, allreduce_latency_s)


def prefill(
    gpu: Gpu, model: Model, tokens: int, batch: int = 1, cached_tokens: int = 0, tp: int = 1
) -> StepCost:
    """A prefill of `tokens` prompt tokens for each of `batch` sequences, as one step.

    Each sequence needs logits at its last position only, to sample its first token.
    """
    work = [Work(tokens, cached_tokens, count=batch, logit_tokens=1 if tokens else 0)]
    return step_cost(gpu, model, work, tp)


@dataclass(frozen=True)
class MemoryFit:
    """Whether weights plus KV fit on each GPU of a group, with the figures that decide it."""

    weights_per_gpu_bytes: float
    kv_per_gpu_bytes: float
    usable_per_gpu_bytes: float

    @property
    def needed_per_gpu_bytes(self) -> float:
        return self.weights_per_gpu_bytes + self.kv_per_gpu_bytes

    @property
    def fits(self) -> bool:
        return self.needed_per_gpu_bytes <= self.usable_per_gpu_bytes


def memory_fit(gpu: Gpu, model: Model, kv_tokens: int, tp: int = 1) -> MemoryFit:
    """Weights and the KV of `kv_tokens` cached tokens, split evenly over `tp` GPUs."""
    return MemoryFit(
        weights_per_gpu_bytes=model.weight_bytes / tp,
        kv_per_gpu_bytes=kv_tokens * model.kv_bytes_per_token / tp,
        usable_per_gpu_bytes=gpu.hbm_bytes * USABLE_MEMORY_FRACTION,
    )


# Tensor-parallel degrees that split every model above evenly: each has 8 KV heads, and
# engines refuse a degree that does not divide the heads (vLLM checks heads % tp == 0).
TP_DEGREES = (1, 2, 4, 8)


def ridge_tokens(gpu: Gpu, model: Model) -> int:
    """Tokens per step at which the weight matmuls turn from memory- to compute-bound.

    A step over n tokens does 2 FLOPs per weight per token and reads each weight once, so
    its intensity is 2n / bytes_per_param FLOP per byte. Setting that equal to the GPU's
    effective ridge gives n: below it the step costs about one read of the weights whatever
    n is; above it every extra token adds time. Attention and KV traffic, left out here,
    move the real crossing a little.
    """
    return round(gpu.effective_ridge_flops_per_byte * model.bytes_per_param / 2)


def smallest_fitting_tp(gpu: Gpu, model: Model, kv_tokens: int) -> int | None:
    """The fewest GPUs (a degree in TP_DEGREES) that hold the weights and `kv_tokens` of KV;
    None when even the largest group cannot."""
    for tp in TP_DEGREES:
        if memory_fit(gpu, model, kv_tokens, tp).fits:
            return tp
    return None
