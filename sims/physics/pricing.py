"""What one forward step costs, operator by operator, on one GPU of a group.

A step is a list of kernels run one after another. Each operator (a matmul, the attention
kernel, the element-wise kernels of a layer) is priced on its own from its FLOPs and the
bytes it moves: its compute time c at COMPUTE_EFFICIENCY of the tensor-core rate for its
precision, its memory time m at MEMORY_EFFICIENCY of the memory bandwidth, combined as
sqrt(c^2 + m^2), plus KERNEL_OVERHEAD_S per kernel. The step is the sum over its operators
plus the collectives it waits for. Far from the ridge the combination is the longer of the
two; at the ridge it is 1.41 times either. A plain max(c, m) per operator priced Vidur's
measured Llama 3 8B linear layers on an A100 at 128 tokens 23-33% too fast; this form is
within 12% of them from 1 to 32,768 tokens (the calibration page shows both).

What each operator moves: its weights once (an expert's only if some token of the step is
routed to it), its input and output activations once, and for attention the cached K and V
of every sequence (up to a sliding layer's window). Latent attention is priced in the
absorbed form engines use for decode (the cache's latents are read, never expanded) for a
sequence adding at most LATENT_ABSORB_MAX_NEW_TOKENS tokens, and in the expanded form
(latents up-projected to per-head K and V, then ordinary attention) for longer prefills.

Parallel layouts over a group of n GPUs:
- "tp": tensor parallel. Each GPU holds 1/n of every matrix and computes 1/n of every
  matmul; the KV heads are split (copied when n exceeds them) and a latent cache is held
  whole by every GPU, as engines do. Two all-reduces per layer (after attention, after the
  MLP), each carrying every token's hidden state in BF16.
- "ep": expert parallel, for a mixture of experts: attention, dense layers and shared experts
  run data-parallel (each GPU a 1/n share of the sequences, all their weights), each GPU
  holds 1/n of the routed experts, and each MoE layer dispatches tokens to their experts and
  combines the results with two all-to-alls. Routing is taken as perfectly balanced.

Left out, on purpose: the scheduler's own time, sampling, the CPU launching kernels (engines
replay CUDA graphs), overlap of communication with computation, imbalance between experts.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache

from sims.physics.collectives import all_to_all_time, allreduce_time
from sims.physics.hardware import COMPUTE_EFFICIENCY, MEMORY_EFFICIENCY, Gpu
from sims.physics.precision import Precision, bytes_per_value, wider
from sims.physics.shapes import EMBEDDING_PRECISION, Model
from sims.physics.step import (
    ATTENTION,
    EDGES,
    ELEMENTWISE,
    EXPERTS,
    KERNEL_OVERHEAD_S,
    MLP,
    PROJECTIONS,
    StepCost,
    Work,
    _Step,
    attended,
    touched_experts,
)

# Kernels per layer besides the matmuls and attention: two norms (each with its residual
# add, fused as vLLM does), the rotary embedding and the gated activation.
ELEMENTWISE_KERNELS = 4
# A sequence adding at most this many tokens in a step (a decode, a speculative verify) uses
# latent attention in its absorbed form; a longer one (a prefill chunk) the expanded form.
LATENT_ABSORB_MAX_NEW_TOKENS = 32
LAYOUTS = ("tp", "ep")
ALLREDUCE_BYTES = 2  # partial sums travel in BF16 whatever the activations' format


class Pricer:
    """Everything about a step that does not depend on its work, worked out once for one
    (GPU, model, precision, group): rates, bytes per value, each GPU's shares."""

    def __init__(self, gpu: Gpu, model: Model, precision: Precision, gpus: int,
                 layout: str) -> None:
        self.gpu, self.model, self.precision, self.gpus, self.layout = (
            gpu, model, precision, gpus, layout)
        gpu.flops(precision.activations)  # refuses a format the GPU cannot compute in
        self.rate = {cls: gpu.flops(wider(fmt, precision.activations)) * COMPUTE_EFFICIENCY
                     for cls, fmt in (("weights", precision.weights),
                                      ("experts", precision.experts))}
        self.attention_rate = gpu.flops(wider(precision.activations, precision.kv)) * (
            COMPUTE_EFFICIENCY)
        self.bandwidth = gpu.hbm_bytes_per_s * MEMORY_EFFICIENCY
        self.w, self.e = (bytes_per_value(precision.weights),
                          bytes_per_value(precision.experts))
        self.a, self.kv = bytes_per_value(precision.activations), bytes_per_value(precision.kv)
        self.edge = bytes_per_value(EMBEDDING_PRECISION)
        # Each GPU's fraction of an operator's (FLOPs, first bytes, second bytes): see _Step.
        split = 1 / gpus
        if layout == "tp":
            self.split = (split, split, split)  # a matmul cut n ways
            self.whole = (1.0, 1.0, 1.0)  # replicated: every GPU runs it in full
            self.elementwise = (split, 1.0, split)  # norms on the full hidden state; the rest
            self.experts_split = self.split
            kv_share = 1.0 if model.latent else 1 / min(gpus, model.kv_heads)
        else:  # "ep": data-parallel attention and dense parts, experts spread over the group
            self.split = self.whole = (split, 1.0, split)  # all the weights, 1/n of the tokens
            self.elementwise = self.experts_split = (split, split, split)
            kv_share = split
        self.attention = (split, split, kv_share)  # (FLOPs, activations, cached K and V)

    def price(self, work: Iterable[Work]) -> StepCost:
        """What one step over `work` costs."""
        return self._price(work, None)

    def parts(self, work: Iterable[Work]) -> dict[str, float]:
        """One GPU's time for the step by kind of operator, and its collectives (s)."""
        parts: dict[str, float] = {}
        cost = self._price(work, parts)
        if cost.collective_s:
            parts["collectives"] = cost.collective_s
        return parts

    def series(self, fixed: list[Work], new: int, first: int, stride: int, count: int,
               logit_tokens: int | None = None) -> list[float]:
        """Times (s) of `count` steps, step k over `fixed` plus Work(new, first + k * stride,
        logit_tokens): a prefill sliced into chunks behind the same decodes, where only the
        slice's cached context grows.

        Each operator's FLOPs and bytes are affine in that context once it is past the
        longest attention window (sliding layers stop growing there; full attention grows
        linearly everywhere), so each operator's compute and memory times are too: steps from
        there are priced from two exact ones, each operator's sqrt(c^2 + m^2) taken at every
        step, as price() would (equal to rounding). Steps before it are priced exactly."""
        def work(k: int) -> list[Work]:
            return [*fixed, Work(new, first + k * stride, logit_tokens=logit_tokens)]

        times: list[float] = []
        window = max(self.model.windows)
        k = 0
        while k < count and (first + k * stride < window or count - k < 3):
            times.append(self.price(work(k)).time_s)
            k += 1
        if k == count:
            return times
        base, nxt = [], []
        collective_s = self._record(work(k), base)
        self._record(work(k + 1), nxt)
        ops = [(layers, c, m, kernels * KERNEL_OVERHEAD_S, c2 - c, m2 - m)
               for (layers, c, m, kernels), (_, c2, m2, _) in zip(base, nxt, strict=True)]
        hypot = math.hypot
        for j in range(count - k):
            total = 0.0
            for layers, c, m, fixed_s, dc, dm in ops:
                total += layers * (hypot(c + j * dc, m + j * dm) + fixed_s)
            times.append(total + collective_s)
        return times

    def _record(self, work: list[Work], operators: list[tuple[float, float, float, int]]
                ) -> float:
        """Fill `operators` with the step's (layers, c, m, kernels); its collectives' time."""
        cost = self._price(work, None, operators)
        return cost.collective_s

    def _price(self, work: Iterable[Work], parts: dict[str, float] | None,
               record: list[tuple[float, float, float, int]] | None = None) -> StepCost:
        model = self.model
        new = logits = 0
        pairs = dict.fromkeys(model.windows, 0.0)
        cached = dict.fromkeys(model.windows, 0)
        absorbed = [0, 0.0, 0]  # latent, absorbed: new tokens, attended pairs, cached tokens
        expanded = [0, 0.0, 0]  # latent, expanded: the same
        for n, c, count, logit_tokens in work:
            new += count * n
            logits += count * (n if logit_tokens is None else logit_tokens)
            for window in pairs:
                pairs[window] += count * attended(n, c, window)
                cached[window] += count * (min(c + n, window) if window else c + n)
            if model.latent:
                form = absorbed if n <= LATENT_ABSORB_MAX_NEW_TOKENS else expanded
                form[0] += count * n
                form[1] += count * attended(n, c, 0)
                form[2] += count * (c + n)
        step = _Step(parts, record)
        if new:
            self._layers(step, new, pairs, cached, absorbed, expanded)
            self._edges(step, new, logits)
        return step.cost(*self._collectives(new))

    def _layers(self, step: _Step, new: int, pairs: dict[int, float], cached: dict[int, int],
                absorbed: list, expanded: list) -> None:
        model, a, w, bw = self.model, self.a, self.w, self.bandwidth
        layers, rate = model.layers, self.rate["weights"]
        if model.latent:
            self._latent(step, new, absorbed, expanded)
            rope_width = model.heads * model.rope_head_dim + model.rope_head_dim
        else:
            hd = model.head_dim
            step.matmul(PROJECTIONS, layers, new, model.hidden,
                        (model.heads + 2 * model.kv_heads) * hd, w, a, rate, self.split, bw)
            step.matmul(PROJECTIONS, layers, new, model.heads * hd, model.hidden, w, a, rate,
                        self.split, bw)
            for kind, count in model.groups:
                step.attention(count, model.heads, model.kv_heads, hd, new, pairs[kind.window],
                               cached[kind.window], a, self.kv, self.attention_rate,
                               self.attention, bw)
            rope_width = (model.heads + model.kv_heads) * hd
        dense = layers - model.moe_layers
        if dense:
            step.matmul(MLP, dense, new, model.hidden, 2 * model.ffn, w, a, rate, self.split, bw)
            step.matmul(MLP, dense, new, model.ffn, model.hidden, w, a, rate, self.split, bw)
            self._elementwise(step, dense, new, rope_width, model.ffn)
        if layers - dense:
            self._experts(step, layers - dense, new)
            width = (model.experts_per_token + model.shared_experts) * model.expert_ffn
            self._elementwise(step, layers - dense, new, rope_width, width)

    def _elementwise(self, step: _Step, layers: int, new: int, rope: int, act: int) -> None:
        """Norms (on the full hidden state), the rotary embedding and the gated activation:
        memory-bound kernels, each reading and writing its tensor once."""
        kernels = ELEMENTWISE_KERNELS + (2 if self.model.latent else 0)  # the latents' norms
        step.add(ELEMENTWISE, layers, 0.0, 4 * self.model.hidden * new * self.a,
                 (2 * rope + 3 * act) * new * self.a, 0.0, self.elementwise, self.bandwidth,
                 kernels)

    def _latent(self, step: _Step, new: int, absorbed: list, expanded: list) -> None:
        model, a, w, bw = self.model, self.a, self.w, self.bandwidth
        layers, rate, heads = model.layers, self.rate["weights"], model.heads
        qk, lora = model.nope_head_dim + model.rope_head_dim, model.kv_lora_rank
        step.matmul(PROJECTIONS, layers, new, model.hidden,  # the down-projections: replicated
                    model.q_lora_rank + lora + model.rope_head_dim, w, a, rate, self.whole, bw)
        step.matmul(PROJECTIONS, layers, new, model.q_lora_rank or model.hidden, heads * qk, w,
                    a, rate, self.split, bw)
        kv_up = lora * heads * (model.nope_head_dim + model.v_head_dim)
        latent_bytes = (lora + model.rope_head_dim) * self.kv
        if absorbed[0]:
            tokens, attended_pairs, held = absorbed
            step.add(PROJECTIONS, layers, 2 * kv_up * tokens, kv_up * w,
                     tokens * heads * (model.nope_head_dim + 2 * lora + model.v_head_dim) * a,
                     rate, self.split, bw)
            step.add(ATTENTION, layers,
                     2 * heads * (2 * lora + model.rope_head_dim) * attended_pairs,
                     tokens * heads * (2 * lora + model.rope_head_dim) * a, held * latent_bytes,
                     self.attention_rate, self.attention, bw)
        if expanded[0]:
            tokens, attended_pairs, held = expanded
            full = heads * (qk + model.v_head_dim)
            step.add(PROJECTIONS, layers, 2 * kv_up * held, kv_up * w,
                     held * (latent_bytes + heads * (model.nope_head_dim + model.v_head_dim) * a),
                     rate, self.split, bw)
            step.add(ATTENTION, layers, 2 * full * attended_pairs, (held + tokens) * full * a, 0.0,
                     self.attention_rate, self.split, bw)
        step.matmul(PROJECTIONS, layers, new, heads * model.v_head_dim, model.hidden, w, a, rate,
                    self.split, bw)

    def _experts(self, step: _Step, layers: int, new: int) -> None:
        """Router, routed experts (grouped matmuls over the experts the step's tokens touch,
        about E(1 - (1 - k/E)^T) of them), shared experts."""
        model, a, bw = self.model, self.a, self.bandwidth
        hidden, width, k = model.hidden, model.expert_ffn, model.experts_per_token
        step.matmul(EXPERTS, layers, new, hidden, model.experts, self.w, a,
                    self.rate["weights"], self.whole, bw)
        touched = touched_experts(model, new)
        routed = new * k
        rate = self.rate["experts"]
        step.add(EXPERTS, layers, 4 * routed * hidden * width,
                 touched * 2 * hidden * width * self.e,
                 routed * (hidden + 2 * width) * a, rate, self.experts_split, bw)
        step.add(EXPERTS, layers, 2 * routed * width * hidden, touched * width * hidden * self.e,
                 routed * (width + hidden) * a, rate, self.experts_split, bw)
        if model.shared_experts:
            shared, rate = model.shared_experts * width, self.rate["weights"]
            step.matmul(EXPERTS, layers, new, hidden, 2 * shared, self.w, a, rate, self.split, bw)
            step.matmul(EXPERTS, layers, new, shared, hidden, self.w, a, rate, self.split, bw)

    def _edges(self, step: _Step, new: int, logits: int) -> None:
        """The embedding gather and the output head (only at the positions sampled)."""
        model = self.model
        if model.has_embedding:
            step.add(EDGES, 1, 0.0, new * model.hidden * self.edge,
                     new * model.hidden * self.a, 0.0,
                     self.whole, self.bandwidth)
        if model.has_head and logits:
            rate = self.gpu.flops(wider(EMBEDDING_PRECISION, self.precision.activations))
            step.matmul(EDGES, 1, logits, model.hidden, model.vocab, self.edge, self.a,
                        rate * COMPUTE_EFFICIENCY, self.split, self.bandwidth)

    def _collectives(self, new: int) -> tuple[int, float]:
        model, gpus = self.model, self.gpus
        if gpus == 1 or not new:
            return 0, 0.0
        collectives = self.gpu.collectives
        if self.layout == "tp":
            calls = 2 * model.layers
            return calls, calls * allreduce_time(collectives, new * model.hidden
                                                 * ALLREDUCE_BYTES, gpus)
        moe_layers = model.moe_layers
        per_gpu = new / gpus * model.experts_per_token * model.hidden * self.a
        calls = 2 * moe_layers  # dispatch and combine
        return calls, calls * all_to_all_time(collectives, per_gpu, gpus)


@lru_cache(maxsize=512)
def pricer(gpu: Gpu, model: Model, precision: Precision, gpus: int, layout: str) -> Pricer:
    """The Pricer for this (GPU, model, precision, group, layout), made once."""
    return Pricer(gpu, model, precision, gpus, layout)
