"""Number formats per tensor class: what a value costs in memory, and which rate a matmul gets.

Four classes of tensor each have a format: the weights of attention and dense layers, the
weights of the routed experts (a checkpoint may quantize only those, as gpt-oss does), the
activations, and the KV cache. Formats are BF16 (16 bits), FP8 (8 bits; its scales, one per
tensor or per 128x128 block, cost nothing worth counting) and FP4 (MXFP4: blocks of 32 4-bit
values share one 8-bit scale, 4.25 bits a value; NVFP4's 4.5 bits is not modelled apart).
BF16 stands for either 16-bit format (a float16 checkpoint counts as BF16).

Weights (not activations or the KV cache) may also be stored as integers, as AWQ, GPTQ and
compressed-tensors checkpoints are: INT8 (one 16-bit scale per output channel, nothing worth
counting), INT4 in groups of 128 sharing one 16-bit scale (4.125 bits a value) and INT4 in
groups of 32 (4.5 bits; Kimi K2.5's experts). A GPU has no integer rate in the catalogue, so
an integer weight never computes: its matmul widens it as it reads and computes in the
activations' format (W8A16, W4A16 with BF16 activations, W4A8 with FP8; beside narrower
activations, in the float format of its own width), at that format's rate, with the MoE
layer's weight-only kernel (moe_variant). Asymmetric zero points (4 more bits a group) are
not counted apart.

A matmul runs at the GPU's tensor-core rate for the wider of its weights' and its
activations' formats: FP4 weights with BF16 activations on a Hopper read a quarter of the
bytes but compute at the BF16 rate. The activations' format must be one the GPU has a
rate for; attention runs at the rate of the wider of the activations' and the KV cache's.
"""

from __future__ import annotations

from typing import NamedTuple

PRECISIONS = ("bf16", "fp8", "fp4")  # formats a GPU computes in, widest first
INTEGERS = ("int8", "int4", "int4g32")  # weight-only: stored, never computed in
WEIGHT_FORMATS = (*PRECISIONS, *INTEGERS)  # what a sim's Weights control offers
BITS = {"bf16": 16.0, "fp8": 8.0, "fp4": 4.25,
        "int8": 8.0, "int4": 4 + 16 / 128, "int4g32": 4 + 16 / 32}
COMPUTES_AS = {"int8": "fp8", "int4": "fp4", "int4g32": "fp4"}  # see wider()
LABELS = {"bf16": "BF16", "fp8": "FP8", "fp4": "FP4",
          "int8": "INT8", "int4": "INT4", "int4g32": "INT4 (group 32)"}


def bytes_per_value(precision: str) -> float:
    """Bytes one value of this format occupies (scales included)."""
    return BITS[precision] / 8


def wider(first: str, second: str) -> str:
    """The format with more bits: the one a mixed matmul computes in. An integer weight
    format never computes: it stands for the float format of its width (INT8 for FP8, INT4
    for FP4), so INT4 beside BF16 computes in BF16 (W4A16), beside FP8 in FP8 (W4A8)."""
    first, second = COMPUTES_AS.get(first, first), COMPUTES_AS.get(second, second)
    return first if BITS[first] >= BITS[second] else second


def moe_variant(experts: str, activations: str) -> str:
    """The kind of grouped-matmul kernel an MoE layer runs: its compute format, or for
    experts stored narrower than the activations (gpt-oss's MXFP4 experts beside BF16 or FP8
    activations) a weight-only kernel that widens them as it reads, named as engines name
    them (W4A16, W4A8, W8A16, W8A8 for INT8 beside FP8): a kernel of its own, slower than
    either format's. Integer experts always run such a kernel."""
    compute = wider(experts, activations)
    if compute == experts:
        return compute
    return f"w{int(BITS[experts])}a{int(BITS[compute])}"


class Precision(NamedTuple):
    """The format of each tensor class in one deployment (see the module docstring)."""

    weights: str = "bf16"  # attention, dense MLP, shared experts, router
    experts: str = "bf16"  # routed experts' weights
    activations: str = "bf16"
    kv: str = "bf16"

    @property
    def label(self) -> str:
        """E.g. "weights FP8, activations FP8, KV BF16" (experts named when they differ)."""
        parts = [f"weights {LABELS[self.weights]}"]
        if self.experts != self.weights:
            parts.append(f"experts {LABELS[self.experts]}")
        parts += [f"activations {LABELS[self.activations]}", f"KV {LABELS[self.kv]}"]
        return ", ".join(parts)
