"""Quantization: fewer bytes make decode faster, faster tensor cores make prefill faster.

One deployment (a catalogue model on `tp` GPUs of one kind) is priced twice by the shared
physics: with every tensor in BF16, and with the formats the reader picks for the weights,
the activations and the KV cache. Three things change, each for its own reason:

- A decode step is bound by the bytes it reads (every weight once, every sequence's KV
  cache), so its speedup is bounded by how many fewer bytes it reads: the step's bytes in
  BF16 over its bytes in the chosen formats. It falls short of that bound by the costs that
  do not shrink with the formats: the fixed cost of each kernel and of each all-reduce, and
  any tensor left in BF16 (the KV cache, unless it is quantized too).
- A prefill is bound by arithmetic, so its speedup is bounded by the tensor-core rate of the
  format its matmuls compute in (the wider of the weights' and the activations'), over the
  BF16 rate. Where the GPU has no rate for a format (FP4 on a Hopper), an engine keeps the
  activations in BF16 and the weights are widened as they are read: the bytes shrink, the
  arithmetic does not, and prefill gains almost nothing.
- Memory: smaller weights leave more of each GPU for KV cache, and a smaller cache format
  fits more tokens in it, so more requests can be in flight at once (`sims.physics.capacity`).

Quality is not simulated here: the page cites published accuracy results for the formats.
"""

from __future__ import annotations

from typing import Any

from sims.kit.contract import Choice, InputError, Number, simulation
from sims.physics import (
    GPUS,
    TP_DEGREES,
    Gpu,
    Model,
    Precision,
    StepCost,
    Work,
    check_group,
    decode_step,
    memory_fit,
    precision_for,
    prefill,
)
from sims.physics.accuracy import step_regime
from sims.physics.capacity import sequences_that_fit
from sims.physics.model_choice import model_for, model_inputs
from sims.physics.precision import PRECISIONS, WEIGHT_FORMATS, wider
from sims.quantization_charts import (
    BYTES_LINE,
    DECODE_LINE,
    PREFILL_LINE,
    capacity_chart,
    speedup_chart,
)

TITLE = "Fewer bytes, faster decode; faster tensor cores, faster prefill"
# Issue 19 allows its sims 100 ms at their most expensive inputs (the others get 20).
WORST_MS = 100

BF16 = "bf16"
MAX_BATCH = 256
# Tokens per step the speedup chart sweeps: decode batches up to MAX_BATCH, prompts from a
# short question to a long document.
DECODE_SWEEP = tuple(2**k for k in range(9))  # 1 .. 256 sequences
PREFILL_SWEEP = tuple(2**k for k in range(4, 15))  # 16 .. 16,384 tokens

INPUTS = (
    Choice("weights", "Weights", "fp8", WEIGHT_FORMATS,
           help="The format every weight matrix is stored in (the embedding stays BF16)."),
    Choice("activations", "Activations", "auto", ("auto", *PRECISIONS),
           help="The format matmul inputs are computed in. Auto: the weights' format where "
                "the GPU has a tensor-core rate for it, else BF16."),
    Choice("kv", "KV cache", "bf16", PRECISIONS, help="The format the KV cache is stored in."),
    *model_inputs("llama-3.1-70b"),
    Choice("gpu", "GPU", "h100", tuple(GPUS)),
    Choice("tp", "Tensor-parallel GPUs", "4", tuple(str(t) for t in TP_DEGREES),
           help="GPUs the model is split over."),
    Number("batch_size", "Decode batch", default=32, min=1, max=MAX_BATCH, unit="sequences",
           help="Sequences decoding together in one step."),
    Number("context_tokens", "Context", default=4096, min=128, max=32768, step=128,
           unit="tokens",
           help="Each request's length: the prompt a prefill processes, the context a "
                "decode step reads, the cache a request holds."),
)

METRICS = {
    "decode_step_s": "Decode step in the chosen formats (s)",
    "baseline_decode_step_s": "Decode step, everything in BF16 (s)",
    "decode_speedup": "Decode speedup over BF16 (x)",
    "bytes_ratio": "Bytes each GPU reads in a decode step, BF16 over the chosen formats (x)",
    "prefill_s": "Prefill of one prompt in the chosen formats (s)",
    "baseline_prefill_s": "Prefill of one prompt, everything in BF16 (s)",
    "prefill_speedup": "Prefill speedup over BF16 (x)",
    "tensor_core_ratio": "Tensor-core rate of the matmuls' format over BF16's (x)",
    "max_concurrent_requests": "Requests whose KV cache fits at once, chosen formats (requests)",
    "baseline_max_concurrent_requests": "Requests whose KV cache fits at once, BF16 (requests)",
    "weights_per_gpu_gb": "Weights on each GPU, chosen formats (GB)",
    "baseline_weights_per_gpu_gb": "Weights on each GPU, BF16 (GB)",
    "kv_per_request_gb": "KV cache of one request on each GPU, chosen format (GB)",
    "decode_bound": "What limits the decode step (compute or memory)",
    "prefill_bound": "What limits the prefill (compute or memory)",
    "precision": "Formats of weights, activations and KV",
    "fits": "Weights and the batch's KV cache fit, chosen formats",
    "memory": "Memory each GPU needs, against what it can use",
    "accuracy": "Regime of the decode step in the chosen formats and the measured error there",
}


def baseline(gpu: Gpu, model: Model) -> Precision:
    """Every tensor in BF16, whatever the checkpoint ships in."""
    return precision_for(gpu, model, BF16, BF16, BF16)


def tensor_core_ratio(gpu: Gpu, precision: Precision) -> float:
    """The matmuls' tensor-core rate in these formats over the BF16 rate."""
    return gpu.flops(wider(precision.weights, precision.activations)) / gpu.flops(BF16)


def _speedups(gpu: Gpu, model: Model, tp: int, chosen: Precision, plain: Precision,
              context: int, batch: int) -> list[dict[str, Any]]:
    """The decode step's speedup and its bytes bound against the batch (x = sequences),
    and the prefill's speedup against the prompt's length (x = prompt tokens)."""
    rows = []
    for n in sorted({*DECODE_SWEEP, batch}):
        new = decode_step(gpu, model, n, context, tp, chosen)
        old = decode_step(gpu, model, n, context, tp, plain)
        rows.append({"line": DECODE_LINE, "tokens": n, "speedup": old.time_s / new.time_s,
                     "current": n == batch})
        rows.append({"line": BYTES_LINE, "tokens": n, "speedup": old.memory_s / new.memory_s,
                     "current": False})
    for n in sorted({*PREFILL_SWEEP, context}):
        speed = (prefill(gpu, model, n, tp=tp, precision=plain).time_s
                 / prefill(gpu, model, n, tp=tp, precision=chosen).time_s)
        rows.append({"line": PREFILL_LINE, "tokens": n, "speedup": speed,
                     "current": n == context})
    return rows


def _row(phase: str, formats: str, cost: StepCost) -> dict[str, Any]:
    return {"phase": phase, "formats": formats, "ms": cost.time_s * 1e3,
            "gb": cost.bytes / 1e9, "compute_ms": cost.compute_s * 1e3,
            "memory_ms": cost.memory_s * 1e3, "collective_ms": cost.collective_s * 1e3,
            "bound": cost.bound}


@simulation(INPUTS)
def simulate(*, weights: str, activations: str, kv: str, model: str, model_config: str,
             gpu: str, tp: str,
             batch_size: int, context_tokens: int) -> dict[str, Any]:
    chip, shape, shards = GPUS[gpu], model_for(model, model_config), int(tp)
    check_group(chip, shape, shards)
    if activations != "auto" and activations not in chip.dense_flops:
        has = ", ".join(p for p in PRECISIONS if p in chip.dense_flops)
        raise InputError("activations", f"expected auto or a format the {chip.name} has a "
                                        f"tensor-core rate for ({has}), got {activations!r}")
    chosen = precision_for(chip, shape, weights, activations, kv)
    plain = baseline(chip, shape)
    steps = {
        ("decode", "BF16"): decode_step(chip, shape, batch_size, context_tokens, shards, plain),
        ("decode", "chosen"): decode_step(chip, shape, batch_size, context_tokens, shards,
                                          chosen),
        ("prefill", "BF16"): prefill(chip, shape, context_tokens, tp=shards, precision=plain),
        ("prefill", "chosen"): prefill(chip, shape, context_tokens, tp=shards,
                                       precision=chosen),
    }
    decode, base_decode = steps["decode", "chosen"], steps["decode", "BF16"]
    fill, base_fill = steps["prefill", "chosen"], steps["prefill", "BF16"]
    fit = memory_fit(chip, shape, batch_size, context_tokens + 1, shards, chosen)
    plain_fit = memory_fit(chip, shape, 1, context_tokens, shards, plain)
    one = memory_fit(chip, shape, 1, context_tokens, shards, chosen)
    rate_ratio = tensor_core_ratio(chip, chosen)
    regime = step_regime(chip, shape, chosen, shards, "tp",
        [Work(1, context_tokens, count=batch_size)])
    return {
        "summary": {
            "decode_step_s": decode.time_s,
            "baseline_decode_step_s": base_decode.time_s,
            "decode_speedup": base_decode.time_s / decode.time_s,
            "bytes_ratio": base_decode.memory_s / decode.memory_s,
            "prefill_s": fill.time_s,
            "baseline_prefill_s": base_fill.time_s,
            "prefill_speedup": base_fill.time_s / fill.time_s,
            "tensor_core_ratio": rate_ratio,
            "max_concurrent_requests": sequences_that_fit(chip, shape, context_tokens, shards,
                                                          chosen),
            "baseline_max_concurrent_requests": sequences_that_fit(chip, shape, context_tokens,
                                                                   shards, plain),
            "weights_per_gpu_gb": one.weights_per_gpu_bytes / 1e9,
            "baseline_weights_per_gpu_gb": plain_fit.weights_per_gpu_bytes / 1e9,
            "kv_per_request_gb": one.kv_per_gpu_bytes / 1e9,
            "decode_bound": decode.bound,
            "prefill_bound": fill.bound,
            "precision": chosen.label,
            "fits": fit.fits,
            "memory": fit.reason,
            "accuracy": f"Decode step in {chosen.label}: {regime}",
        },
        "charts": [
            speedup_chart(_speedups(chip, shape, shards, chosen, plain, context_tokens,
                                    batch_size),
                          rate_ratio, chip, chosen, fit.note, PREFILL_SWEEP[-1]),
            capacity_chart(chip, shape, shards, context_tokens, chosen),
        ],
        "tables": [{
            "title": f"The two steps, BF16 against {chosen.label} ({shards} GPU"
                     f"{'s' if shards > 1 else ''})",
            "columns": [
                {"key": "phase", "label": "Step"},
                {"key": "formats", "label": "Formats"},
                {"key": "ms", "label": "Time (ms)"},
                {"key": "gb", "label": "Bytes moved (GB)"},
                {"key": "compute_ms", "label": "Compute time per GPU, summed (ms)"},
                {"key": "memory_ms", "label": "Memory time per GPU, summed (ms)"},
                {"key": "collective_ms", "label": "All-reduces (ms)"},
                {"key": "bound", "label": "Bound"},
            ],
            "rows": [_row(phase, "BF16" if which == "BF16" else chosen.label, cost)
                     for (phase, which), cost in steps.items()],
        }],
    }
