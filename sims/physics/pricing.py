"""What one forward step costs, operator by operator, on one GPU of a group.

A step is a list of kernels run one after another: each layer's projections, attention,
MLP or experts, norms and activations, then the output head. Each kernel is priced by its
class with the GPU's kernel profile (sims.physics.kernels: a GEMM, the attention operator
over new tokens, decode attention over cached ones, an MoE layer's grouped matmuls, an
element-wise kernel), and the step is their sum plus the collectives it waits for.

What each operator moves: its weights once (an expert's only if some token of the step is
routed to it), its input and output activations once, and for attention the cached K and V
of every sequence (up to a sliding layer's window). Sequences adding at most
DECODE_MAX_NEW_TOKENS tokens (a decode, a speculative verify) run the decode attention
kernel; longer ones (prefill chunks) the prefill one. Latent attention is priced in the
absorbed form engines use for decode (the cache's latents are read, never expanded) and in
the expanded form (latents up-projected to per-head K and V) for prefills.

Parallel layouts over a group of n GPUs:
- "tp": tensor parallel. Each GPU holds 1/n of every matrix and computes 1/n of every
  matmul; the KV heads are split (copied when n exceeds them) and a latent cache is held
  whole by every GPU, as engines do. Two all-reduces per layer (after attention, after the
  MLP), each carrying every token's hidden state in BF16.
- "ep": expert parallel with data-parallel attention, for a mixture of experts: each GPU
  serves whole sequences (attention, dense layers and shared experts with all their
  weights; the busiest GPU has ceil(sequences / n) of them), holds 1/n of the routed
  experts, and each MoE layer dispatches tokens to their experts and combines the results,
  in one of two ways (EXCHANGES). "all_to_all" sends each token only to the GPUs of its k
  experts and brings the results back the same way (DeepEP; TensorRT-LLM across a
  multi-node NVLink domain). "gather", what vLLM, SGLang and TensorRT-LLM do by default
  within a node: every GPU gathers every GPU's tokens (in the activations' format), runs
  its experts on those routed to them, and a reduce-scatter in BF16 returns each GPU its
  tokens' sums. Routing is taken as balanced.

Left out, on purpose: the scheduler's own time, sampling, the CPU launching kernels (engines
replay CUDA graphs), overlap of communication with computation, imbalance between experts.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache

from sims.physics import kernels
from sims.physics.collectives import (
    all_gather_time,
    all_to_all_time,
    allreduce_implementation,
    allreduce_time,
)
from sims.physics.hardware import Gpu
from sims.physics.layers import price_layers
from sims.physics.precision import Precision, bytes_per_value, wider
from sims.physics.reach import reached, reached_pairs
from sims.physics.shapes import EMBEDDING_PRECISION, Model
from sims.physics.step import (
    ATTENTION,
    EDGES,
    ELEMENTWISE,
    EXPERTS,
    MLP,
    PROJECTIONS,
    StepCost,
    Work,
    _Step,
    touched_experts,
)

# A sequence adding at most this many tokens in a step (a decode, a speculative verify) runs
# the decode attention kernel (and latent attention in its absorbed form).
DECODE_MAX_NEW_TOKENS = 32
LAYOUTS = ("tp", "ep")
EXCHANGES = ("all_to_all", "gather")  # how an "ep" step's MoE layers move tokens (see above)
ALLREDUCE_BYTES = 2  # partial sums travel in BF16 whatever the activations' format
MATMULS_KEPT = 4096  # matmul shapes a Pricer remembers (sims.physics.pricing.Pricer.matmul)


class _Attention:
    """The work of one Reach (sims.physics.reach) in a step, split by kernel: decoding
    sequences' cached entries read, (query, entry) pairs, new tokens and count; prefilling
    sequences' pairs, entries held (cached and new, within reach), new tokens and count."""

    __slots__ = ("decode_cached", "decode_pairs", "decode_tokens", "decodes", "pairs",
                 "prefill_held", "prefill_tokens", "prefills")

    def __init__(self) -> None:
        self.decode_cached = self.decode_pairs = self.decode_tokens = self.decodes = 0.0
        self.pairs = self.prefill_held = self.prefill_tokens = self.prefills = 0.0


class Pricer:
    """Everything about a step that does not depend on its work, worked out once for one
    (GPU, model, precision, group): formats, peaks, bytes per value, each GPU's shares.

    `all_reduce` is the implementation a tensor-parallel step's all-reduces run on
    (sims.physics.collectives: auto, nccl, custom or nvls), and `exchange` how an expert-
    parallel step's MoE layers move tokens (EXCHANGES); an engine's profile names both."""

    def __init__(self, gpu: Gpu, model: Model, precision: Precision, gpus: int,
                 layout: str, all_reduce: str = "auto", exchange: str = "all_to_all") -> None:
        if exchange not in EXCHANGES:
            raise ValueError(f"exchange must be one of {EXCHANGES}, not {exchange!r}")
        self.gpu, self.model, self.precision, self.gpus, self.layout = (
            gpu, model, precision, gpus, layout)
        self.all_reduce = allreduce_implementation(gpu, all_reduce)
        self.exchange = exchange
        gpu.flops(precision.activations)  # refuses a format the GPU cannot compute in
        self.profile, self.bandwidth = gpu.kernels, gpu.hbm_bytes_per_s
        self.peaks = gpu.dense_flops
        self.formats = {name: wider(fmt, precision.activations) for name, fmt in (
            ("weights", precision.weights), ("experts", precision.experts),
            ("edges", EMBEDDING_PRECISION))}
        self.attention_format = wider(precision.activations, precision.kv)
        self.w, self.e = (bytes_per_value(precision.weights),
                          bytes_per_value(precision.experts))
        self.a, self.kv = bytes_per_value(precision.activations), bytes_per_value(precision.kv)
        self.edge = bytes_per_value(EMBEDDING_PRECISION)
        tp = gpus if layout == "tp" else 1
        self.tp = tp  # the ways each dense matrix is cut
        self.heads = max(1, model.heads // tp)
        # Each matmul's (FLOPs, bytes, Op) by its shape: steps of one size recur (every
        # decode step of a batch), and pricing them is most of a light sim's run.
        self._matmuls: dict[tuple[float, float, float, str, bool, bool],
                            tuple[float, float, kernels.Op]] = {}

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

    def classes(self, work: Iterable[Work]) -> dict[tuple[str, str], float]:
        """One GPU's time for the step by kernel class and format ("gemm", "fp8"), and its
        collectives by implementation ("all_reduce", "custom"; "all_to_all" or "all_gather",
        "nccl")."""
        classes: dict[tuple[str, str], float] = {}
        cost = self._price(work, None, classes=classes)
        if cost.collective_s:
            classes[self._collective_class()] = cost.collective_s
        return classes

    def series(self, fixed: list[Work], new: int, first: int, stride: int, count: int,
               logit_tokens: int | None = None) -> list[float]:
        """Times (s) of `count` steps, step k over `fixed` plus Work(new, first + k * stride,
        logit_tokens): a prefill sliced into chunks behind the same decodes, where only the
        slice's cached context grows.

        Each operator's compute, memory and fixed times are affine in that context once it
        is past the model's horizon, its longest window, chunk or top-k reach (sliding
        layers stop growing there; full attention grows linearly everywhere; a latent
        prefill up-projects, and may quantize, every cached token): steps from there are
        priced from two exact ones, each operator's overlap taken at every step, as price()
        would (equal to rounding). Steps before it are priced exactly."""
        def work(k: int) -> list[Work]:
            return [*fixed, Work(new, first + k * stride, logit_tokens=logit_tokens)]

        times: list[float] = []
        horizon = self.model.horizon
        k = 0
        while k < count and (first + k * stride < horizon or count - k < 3):
            times.append(self.price(work(k)).time_s)
            k += 1
        if k == count:
            return times
        base: list = []
        nxt: list = []
        collective_s = self._price(work(k), None, base).collective_s
        self._price(work(k + 1), None, nxt)
        ops = [(layers, op.compute_s, op.memory_s, op.fixed_s, op.p,
                after.compute_s - op.compute_s, after.memory_s - op.memory_s,
                after.fixed_s - op.fixed_s)
               for (layers, op), (_, after) in zip(base, nxt, strict=True)]
        overlap = kernels.overlap
        for j in range(count - k):
            total = 0.0
            for layers, c, m, fixed_s, p, dc, dm, df in ops:
                total += layers * (fixed_s + j * df + overlap(c + j * dc, m + j * dm, p))
            times.append(total + collective_s)
        return times

    def _price(self, work: Iterable[Work], parts: dict[str, float] | None,
               record: list | None = None,
               classes: dict[tuple[str, str], float] | None = None) -> StepCost:
        model = self.model
        new = logits = sequences = 0
        windows = {reach: _Attention() for reach in model.all_reaches}
        for n, c, count, logit_tokens in work:
            if not count:
                continue
            new += count * n
            sequences += count
            logits += count * (n if logit_tokens is None else logit_tokens)
            for reach, held in windows.items():
                if n <= DECODE_MAX_NEW_TOKENS:
                    held.decode_cached += count * reached(reach, c + n)
                    held.decode_pairs += count * reached_pairs(reach, n, c)
                    held.decode_tokens += count * n
                    held.decodes += count
                else:
                    held.pairs += count * reached_pairs(reach, n, c)
                    held.prefill_held += count * reached(reach, c + n)
                    held.prefill_tokens += count * n
                    held.prefills += count
        step = _Step(parts, record, classes)
        if new:
            # "ep": the busiest GPU serves ceil(sequences / n) whole sequences.
            share = 1.0 if self.layout == "tp" else math.ceil(sequences / self.gpus) / sequences
            price_layers(self, step, new, share, windows)
            self._edges(step, new * share, logits * share)
        return step.cost(*self._collectives(new))

    def matmul(self, step: _Step, part: str, layers: float, tokens: float, k: float, n: float,
               kind: str = "weights", split_k: bool = False, replicated: bool = False) -> None:
        """`layers` copies of a (tokens x k) @ (k x n) matmul cut `self.tp` ways (n, or k when
        `split_k`: the rows of a matrix whose output is then all-reduced), or run whole by
        every GPU (`replicated`)."""
        key = (tokens, k, n, kind, split_k, replicated)
        known = self._matmuls.get(key)
        if known is None:
            weight_bytes = {"weights": self.w, "experts": self.e, "edges": self.edge}[kind]
            fmt = self.formats[kind]
            ways = 1 if replicated else self.tp
            k_gpu, n_gpu = (k / ways, n) if split_k else (k, n / ways)
            # The activations enter in the matmul's own format: a BF16 matmul (the output
            # head, BF16 weights) reads them in BF16 and quantizes nothing.
            a = bytes_per_value(fmt) if self.a < bytes_per_value(fmt) else self.a
            op = kernels.gemm(self.profile, fmt, self.peaks, self.bandwidth, tokens, k_gpu,
                              n_gpu, weight_bytes, a)
            if len(self._matmuls) >= MATMULS_KEPT:
                self._matmuls.clear()
            known = self._matmuls[key] = (
                2 * tokens * k * n, k * n * weight_bytes + tokens * (k + n) * a, op)
        step.add(part, layers, *known)

    def _edges(self, step: _Step, new: float, logits: float) -> None:
        """The embedding gather and the output head (only at the positions sampled)."""
        model = self.model
        if model.has_embedding:
            moved = new * model.hidden * (self.edge + self.a)
            step.add(EDGES, 1, 0.0, moved, kernels.elementwise(self.profile, self.bandwidth,
                                                               moved, 1))
        if model.has_head and logits:
            self.matmul(step, EDGES, 1, logits, model.hidden, model.vocab, "edges")

    def _collective_class(self) -> tuple[str, str]:
        """The collective a step waits for, and its implementation."""
        if self.layout == "ep":
            return ("all_gather" if self.exchange == "gather" else "all_to_all", "nccl")
        return ("all_reduce", self.all_reduce)

    def _collectives(self, new: int) -> tuple[int, float]:
        model, gpus = self.model, self.gpus
        if gpus == 1 or not new:
            return 0, 0.0
        if self.layout == "tp":
            calls = 2 * model.layers
            return calls, calls * allreduce_time(self.gpu, new * model.hidden * ALLREDUCE_BYTES,
                                                 gpus, self.all_reduce)
        calls = 2 * model.moe_layers  # dispatch and combine
        if self.exchange == "gather":
            # Every GPU ends with every token (each GPU's new / gpus), and sends back the
            # sums for every token, in BF16, keeping its own share.
            gathered = all_gather_time(self.gpu, new * model.hidden * self.a, gpus)
            scattered = all_gather_time(self.gpu, new * model.hidden * ALLREDUCE_BYTES, gpus)
            return calls, model.moe_layers * (gathered + scattered)
        per_gpu = new / gpus * model.experts_per_token * model.hidden * self.a
        return calls, calls * all_to_all_time(self.gpu, per_gpu, gpus)


@lru_cache(maxsize=512)
def pricer(gpu: Gpu, model: Model, precision: Precision, gpus: int, layout: str,
           all_reduce: str = "auto", exchange: str = "all_to_all") -> Pricer:
    """The Pricer for this (GPU, model, precision, group, layout, collectives), made once."""
    return Pricer(gpu, model, precision, gpus, layout, all_reduce, exchange)


__all__ = ["ATTENTION", "DECODE_MAX_NEW_TOKENS", "EDGES", "ELEMENTWISE", "EXCHANGES", "EXPERTS",
           "LAYOUTS", "MLP", "PROJECTIONS", "Pricer", "StepCost", "Work", "pricer",
           "touched_experts"]
