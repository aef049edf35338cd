"""An explainer page as a reader gets it, and the hand pricing its worked example walks through.

Pages type some figures by hand in their "check it yourself" sections; tests compare those
with the shared physics, and need the page text exactly as staging writes it (`rendered`).
The figures come from the live physics, never from constants copied here: a refit of the
kernel profiles (make fit) moves the expected figures with it, and the page's test then
names each one the page must retype.

`hand_priced` prices a dense grouped-query model's step kernel by kernel with the physics'
own kernel formulas (sims.physics.kernels), the way a worked example walks through it; its
tests hold its total to the step the sims price (sims.physics.step_cost).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

import yaml

from ridgepoint.prose.figures import FigureSource, render_figures
from ridgepoint.sims.blocks import iter_blocks
from sims.physics import Gpu, Model, Work
from sims.physics import kernels as kernel_classes
from sims.physics.collectives import link_bytes_per_s
from sims.physics.kernels import Op
from sims.physics.precision import LABELS
from sims.physics.pricing import ALLREDUCE_BYTES, DECODE_MAX_NEW_TOKENS
from sims.physics.profile import TRAFFIC
from sims.physics.reach import attended
from tests.repo import LAYOUT


@functools.cache
def rendered(slug: str) -> str:
    """content/explainers/<slug>.md with its figures filled in, on one line."""
    page = LAYOUT.content / "explainers" / f"{slug}.md"
    text = render_figures(page.read_text(encoding="utf-8"), str(page), FigureSource(LAYOUT))
    return " ".join(text.split())


def opens_at_the_defaults(slug: str, module: str) -> bool:
    """content/explainers/<slug>.md embeds `module` in one ```sim block that sets no starting
    inputs (`start:`): the page opens at the sim's defaults, which its prose derives from.
    The block may say which inputs come first (`first:`) and which are shown (`show:`)."""
    page = LAYOUT.content / "explainers" / f"{slug}.md"
    blocks = [yaml.safe_load(fenced.body) for fenced in iter_blocks(page.read_text("utf-8"))]
    return (len(blocks) == 1 and blocks[0].get("module") == module
            and "start" not in blocks[0])


Claim = tuple[str, float, str]
"""(phrase with {} for the figure, value, format): `phrase.format(format(value, spec))`
must appear in the rendered page."""

PROFILE = ".3g"  # a profile's constants as pages print them: 79.7%, 3.16 µs, 56.7 ns


def hardware_claims(gpu: Gpu, name: str, bandwidth_format: str, fmt: str = "bf16"
                    ) -> list[Claim]:
    """The opening of a "check it yourself" section: the GPU's datasheet rates for `fmt`,
    the shares of them its kernel profile's GEMMs reach in that format, and the rates that
    leaves the matmuls."""
    fit = gpu.kernels.for_format(gpu.kernels.gemm, fmt, "GEMM")
    label = LABELS[fmt]
    peak, bandwidth = gpu.flops(fmt), gpu.hbm_bytes_per_s
    return [
        (f"an {name} does {{}} TFLOP/s of dense {label}", peak / 1e12, ".0f"),
        ("and reads {} TB/s from HBM", bandwidth / 1e12, bandwidth_format),
        (f"has {label} GEMMs reach {{}}% of the first", fit.compute_efficiency * 100, PROFILE),
        ("and {}% of the second", fit.memory_efficiency * 100, PROFILE),
        ("so {} TFLOP/s and", peak * fit.compute_efficiency / 1e12, ".1f"),
        ("and {} TB/s for its matmuls", bandwidth * fit.memory_efficiency / 1e12, ".2f"),
    ]


def profile_claims(gpu: Gpu, *classes: str, fmt: str = "bf16") -> list[Claim]:
    """The kernel profile's constants for each named class, as the pages' worked examples
    state them: "overlap", "gemm", "decode_attention", "prefill_attention", "elementwise"."""
    profile = gpu.kernels
    claims: dict[str, list[Claim]] = {
        "overlap": [("(c^p + m^p)^(1/p) with p = {}", profile.overlap_exponent, "g")],
        "gemm": [("a GEMM pays {} µs to start",
                  profile.for_format(profile.gemm, fmt, "GEMM").fixed_s * 1e6, PROFILE)],
    }
    decode = profile.for_format(profile.decode_attention, fmt, "decode attention")
    claims["decode_attention"] = [
        ("Decode attention reads the cache at {}% of the bandwidth",
         decode.memory_efficiency * 100, PROFILE),
        ("pays {} µs a call", decode.fixed_s * 1e6, PROFILE),
        ("plus {} ns per sequence", decode.per_sequence_s * 1e9, PROFILE),
    ]
    fill = profile.for_format(profile.prefill_attention, fmt, "prefill attention")
    claims["prefill_attention"] = [
        ("Prefill attention reaches {}% of peak arithmetic", fill.compute_efficiency * 100,
         PROFILE),
        ("moves its tensors {} times over", fill.memory_passes, PROFILE),
        ("costs {} µs a call", fill.fixed_s * 1e6, PROFILE),
        ("plus {} ns per sequence and head", fill.per_sequence_head_s * 1e9, PROFILE),
    ]
    claims["elementwise"] = [
        ("An element-wise kernel moves its bytes at {}% of the bandwidth",
         profile.elementwise.memory_efficiency * 100, PROFILE),
        ("after {} µs to start", profile.elementwise.fixed_s * 1e6, PROFILE),
    ]
    return [claim for name in classes for claim in claims[name]]


ASSUMED = "assumed, not fitted"  # how a profile's YAML sources a constant no fit has set


def unfitted(gpu: Gpu) -> set[str]:
    """The parts of the GPU's kernel profile that no fit has set, by their source in its YAML
    (content/catalogue/kernels/): the pages call those constants assumed, and their tests
    hold them to it, so a fit that sets one sends the words back to be rewritten."""
    path = LAYOUT.content / "catalogue" / "kernels" / f"{gpu.kernels.key}.yaml"
    entry = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {name for name in ("overlap_exponent", "elementwise")
            if entry[name]["source"].startswith(ASSUMED)}


def shape_claims(model: Model, number: str = "d") -> list[Claim]:
    """A model's published shape, as the pages spell it out (`number` ",d" for 4,096)."""
    return [
        (f"{model.name} has {{}} layers", model.layers, "d"),
        ("hidden size {}, ", model.hidden, number),
        ("{} query heads", model.heads, "d"),
        ("and {} KV heads of", model.kv_heads, "d"),
        ("KV heads of {} dimensions", model.head_dim, "d"),
        ("an MLP of {} and", model.ffn, number),
        ("a vocabulary of {}.", model.vocab, number),
    ]


@dataclass
class Kernels:
    """One kernel class's share of a step on one GPU: how many kernels it launches, the
    bytes they move and their times (compute and memory before they combine, fixed costs,
    and the total each kernel's formula gives)."""

    count: int = 0
    moved: float = 0.0
    compute_s: float = 0.0
    memory_s: float = 0.0
    fixed_s: float = 0.0
    time_s: float = 0.0

    def add(self, layers: int, op: Op, moved: float, kernels: int = 1) -> None:
        self.count += layers * kernels
        self.moved += layers * moved
        self.compute_s += layers * op.compute_s
        self.memory_s += layers * op.memory_s
        self.fixed_s += layers * op.fixed_s
        self.time_s += layers * op.time_s


CLASSES = ("gemm", "prefill_attention", "decode_attention", "elementwise")
ELEMENTWISE_PER_LAYER = 3  # two norms with their residual adds, and the gated activation


def hand_priced(gpu: Gpu, model: Model, work: Iterable[Work], tp: int = 1
                ) -> dict[str, Kernels]:
    """One GPU's share of a step of a dense grouped-query model in BF16 (Llama 3.1), split
    over `tp` GPUs, priced kernel by kernel with the physics' kernel formulas: four GEMMs a
    layer (QKV, output, gate and up, down), the attention kernels, three element-wise
    kernels a layer, the embedding lookup and the output head (a pipeline stage has them
    only if it holds them)."""
    assert not model.latent and not model.experts and model.windows == (0,)
    profile, bandwidth, peaks = gpu.kernels, gpu.hbm_bytes_per_s, gpu.dense_flops
    work = [w for w in work if w.count]
    new = sum(w.count * w.new_tokens for w in work)
    logits = sum(w.count * w.logits for w in work)
    heads, kv_heads, hd = model.heads // tp, max(1, model.kv_heads // tp), model.head_dim
    layers, value = model.layers, 2  # bytes per BF16 value
    out = {name: Kernels() for name in CLASSES}

    def gemm(count: int, tokens: float, k: float, n: float) -> None:
        op = kernel_classes.gemm(profile, "bf16", peaks, bandwidth, tokens, k, n, value, value)
        out["gemm"].add(count, op, k * n * value + tokens * (k + n) * value)

    for k, n, split_k in ((model.hidden, (model.heads + 2 * model.kv_heads) * hd, False),
                          (model.heads * hd, model.hidden, True),
                          (model.hidden, 2 * model.ffn, False),
                          (model.ffn, model.hidden, True)):
        gemm(layers, new, k / tp if split_k else k, n if split_k else n / tp)
    decodes = [w for w in work if w.new_tokens <= DECODE_MAX_NEW_TOKENS]
    if decodes:
        sequences = sum(w.count for w in decodes)
        cached = sum(w.count * (w.context_tokens + w.new_tokens) for w in decodes
                     ) * 2 * kv_heads * hd * value
        pairs = sum(w.count * attended(w.new_tokens, w.context_tokens, 0) for w in decodes)
        op = kernel_classes.decode_attention(profile, "bf16", bandwidth, cached, sequences,
                                             sequences * kv_heads, 4 * heads * hd * pairs,
                                             "bf16", peaks)
        out["decode_attention"].add(layers, op, cached)
    fills = [w for w in work if w.new_tokens > DECODE_MAX_NEW_TOKENS]
    if fills:
        pairs = sum(w.count * attended(w.new_tokens, w.context_tokens, 0) for w in fills)
        tokens = sum(w.count * w.new_tokens for w in fills)
        moved = tokens * hd * (2 * heads + 2 * kv_heads) * value
        op = kernel_classes.prefill_attention(profile, "bf16", peaks, bandwidth,
                                              4 * heads * hd * pairs, moved,
                                              sum(w.count for w in fills) * heads)
        out["prefill_attention"].add(layers, op, moved)
    moved = (4 * model.hidden + 3 * model.ffn / tp) * new * value
    out["elementwise"].add(layers, kernel_classes.elementwise(
        profile, bandwidth, moved, ELEMENTWISE_PER_LAYER), moved, ELEMENTWISE_PER_LAYER)
    if model.has_embedding:  # a pipeline's first stage, or the whole model
        lookup = new * model.hidden * 2 * value  # the row read, the activation written
        out["elementwise"].add(1, kernel_classes.elementwise(profile, bandwidth, lookup, 1),
                               lookup)
    if model.has_head and logits:  # its last stage, or the whole model
        gemm(1, logits, model.hidden, model.vocab / tp)
    return out


def total_s(priced: dict[str, Kernels]) -> float:
    """The step's kernels, one after another (s)."""
    return sum(kernels.time_s for kernels in priced.values())


@dataclass(frozen=True)
class AllReduce:
    """One tensor-parallel all-reduce of a step, priced by hand from the kernel profile: the
    algorithm that runs (the fastest its implementation has), its fixed latency, the bytes it
    puts through each GPU's links and the rate they move at, the whole call, and the
    message's own rate beyond the fixed part (what the tensor-parallel sim reports)."""

    message: float
    algorithm: str
    latency_s: float
    traffic: float
    link_bytes_per_s: float
    time_s: float

    @property
    def bytes_per_s(self) -> float:
        return self.message / (self.time_s - self.latency_s)


def allreduce_options(gpu: Gpu, message: float, tp: int) -> dict[str, AllReduce]:
    """Every algorithm the GPU's engine kernels (or NCCL, without them) could run for this
    message over `tp` GPUs of its switch, by name: one_shot, ring (or two-shot), in_switch."""
    fits = gpu.kernels.all_reduce
    fit = fits["custom" if "custom" in fits else "nccl"]
    options = {}
    for algorithm in fit.algorithms:
        if algorithm.traffic == "in_switch" and gpu.topology != "switch":
            continue
        traffic = TRAFFIC[algorithm.traffic](tp) * message
        rate = algorithm.bus_efficiency * link_bytes_per_s(gpu, tp)
        latency = algorithm.latency_s[tp]
        options[algorithm.traffic] = AllReduce(message, algorithm.traffic, latency, traffic,
                                               rate, latency + traffic / rate)
    return options


def step_allreduce(gpu: Gpu, model: Model, tokens: int, tp: int) -> AllReduce:
    """The all-reduce a step of `tokens` new tokens makes after attention and after the MLP
    of every layer (every token's hidden state, in BF16): the fastest algorithm runs."""
    options = allreduce_options(gpu, tokens * model.hidden * ALLREDUCE_BYTES, tp)
    return min(options.values(), key=lambda option: option.time_s)
