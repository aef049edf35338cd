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

from sims.kit import charts
from sims.kit.contract import Choice, InputError, Number, simulation
from sims.physics import (
    GPUS,
    MODELS,
    TP_DEGREES,
    Gpu,
    Model,
    Precision,
    StepCost,
    check_group,
    decode_step,
    memory_fit,
    precision_for,
    prefill,
)
from sims.physics.capacity import sequences_that_fit
from sims.physics.precision import LABELS, PRECISIONS, wider

TITLE = "Fewer bytes, faster decode; faster tensor cores, faster prefill"
# Issue 19 allows its sims 100 ms at their most expensive inputs (the others get 20).
WORST_MS = 100

BF16 = "bf16"
MAX_BATCH = 256
# Tokens per step the speedup chart sweeps: decode batches up to MAX_BATCH, prompts from a
# short question to a long document.
DECODE_SWEEP = tuple(2**k for k in range(9))  # 1 .. 256 sequences
PREFILL_SWEEP = tuple(2**k for k in range(4, 15))  # 16 .. 16,384 tokens
DECODE_LINE = "decode: speedup"
BYTES_LINE = "decode: bytes read, BF16 / chosen (its bound)"
PREFILL_LINE = "prefill: speedup"
LINES = (DECODE_LINE, BYTES_LINE, PREFILL_LINE)

INPUTS = (
    Choice("weights", "Weights", "fp8", PRECISIONS,
           help="The format every weight matrix is stored in (the embedding stays BF16)."),
    Choice("activations", "Activations", "auto", ("auto", *PRECISIONS),
           help="The format matmul inputs are computed in. Auto: the weights' format where "
                "the GPU has a tensor-core rate for it, else BF16."),
    Choice("kv", "KV cache", "bf16", PRECISIONS, help="The format the KV cache is stored in."),
    Choice("model", "Model", "llama-3.1-70b", tuple(MODELS)),
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


def _speedup_chart(rows: list[dict[str, Any]], rate_ratio: float, gpu: Gpu,
                   precision: Precision, note: str) -> dict[str, Any]:
    top = max(rate_ratio, *(row["speedup"] for row in rows))
    x = {"field": "tokens", "type": "quantitative",
         "title": "Sequences in a decode step, or tokens in a prompt (tokens)",
         "scale": {"type": "log", "base": 2, "domain": [1, PREFILL_SWEEP[-1]]},
         "axis": {"values": [1, 16, 256, 4096, PREFILL_SWEEP[-1]], "format": ","}}
    y = {"field": "speedup", "type": "quantitative", "title": "Speedup over BF16 (x)",
         **charts.value_axis(top)}
    series = {"field": "line", "type": "nominal", "title": None,
              "scale": {"domain": list(LINES), "range": ["#4c78a8", "#4c78a8", "#f58518"]},
              "legend": {"orient": "top", "columns": 1, "labelLimit": 320}}
    dashes = {"field": "line", "type": "nominal", "title": None,
              "scale": {"domain": list(LINES), "range": [[1, 0], [5, 3], [1, 0]]},
              "legend": {"orient": "top", "columns": 1, "labelLimit": 320}}
    tooltip = [{"field": "line", "title": "Series"},
               {"field": "tokens", "type": "quantitative", "title": "Tokens", "format": ","},
               {"field": "speedup", "type": "quantitative", "title": "Ratio (x)",
                "format": ".2f"}]
    rate = f"prefill's bound: tensor-core rate, {rate_ratio:.2f}x"
    return charts.chart(
        charts.titled("Decode gains what the bytes allow, prefill what the tensor cores allow",
                      note),
        f"Speedup of {precision.label} over BF16 on the {gpu.name}: a decode step against "
        f"the number of sequences in it, with the bytes it reads in BF16 over the chosen "
        f"formats as a dashed line (its bound), and a prefill against the prompt's length, "
        f"with the tensor-core rate of its matmuls' format over BF16's ({rate_ratio:.2f}x) "
        f"as a dashed rule (its bound). The current batch and context are the large dots.",
        rows,
        layer=[
            {"mark": {"type": "rule", "strokeDash": [2, 3], "color": "#f58518"},
             "encoding": {"y": {"datum": rate_ratio}}},
            {"mark": {"type": "text", "align": "right", "baseline": "top", "dy": 3,
                      "color": "#f58518"},  # below its rule: nothing sticks out above the plot
             "encoding": {"x": {"value": "width"}, "y": {"datum": rate_ratio},
                          "text": {"value": rate}}},
            {"mark": {"type": "line", "point": True},
             "encoding": {"x": x, "y": y, "tooltip": tooltip, "color": series,
                          "strokeDash": dashes}},
            {"transform": [{"filter": "datum.current"}],
             "mark": {"type": "point", "filled": True, "size": 140, "opacity": 1},
             "encoding": {"x": x, "y": y, "tooltip": tooltip,
                          "color": {**series, "legend": None}}},
        ],
    )


def _capacity_chart(gpu: Gpu, model: Model, tp: int, context: int, chosen: Precision
                    ) -> dict[str, Any]:
    """Requests in flight for every weights x KV format, the current pair marked."""
    rows = []
    for weights in PRECISIONS:
        for kv in PRECISIONS:
            precision = Precision(weights, weights, BF16, kv)
            rows.append({
                "weights": f"weights {LABELS[weights]}", "kv": f"KV {LABELS[kv]}",
                "requests": sequences_that_fit(gpu, model, context, tp, precision),
                "current": (weights, kv) == (chosen.weights, chosen.kv),
            })
    top = max(1, *(row["requests"] for row in rows))
    x = {"field": "weights", "type": "nominal", "title": None,
         "sort": [f"weights {LABELS[p]}" for p in PRECISIONS], "axis": {"labelAngle": 0}}
    y = {"field": "requests", "type": "quantitative",
         "title": "Requests at once (requests)", **charts.value_axis(top)}
    kv_order = [f"KV {LABELS[p]}" for p in PRECISIONS]
    return charts.chart(
        # The context length goes in the chart's title, which a kept view takes as a
        # parameter: in the axis title it would make every context change build a new view.
        f"Smaller weights and cache: more requests of {context:,} tokens in flight",
        f"How many requests of {context:,} tokens can hold their KV cache at once on "
        f"{tp} x {gpu.name} for each format of the weights and of the KV cache; the "
        f"outlined bar is the current choice.",
        rows,
        mark={"type": "bar", "strokeWidth": 2.5},
        encoding={
            "x": x, "y": y,
            "xOffset": {"field": "kv", "sort": kv_order},
            "color": {"field": "kv", "type": "nominal", "title": None, "sort": kv_order,
                      "scale": {"range": ["#4c78a8", "#f58518", "#54a24b"]},
                      "legend": {"orient": "top"}},
            "stroke": {"condition": {"test": "datum.current", "value": "#e45756"},
                       "value": None},
            "tooltip": [{"field": "weights", "title": "Weights"},
                        {"field": "kv", "title": "KV cache"},
                        {"field": "requests", "type": "quantitative", "title": "Requests"}],
        },
    )


def _row(phase: str, formats: str, cost: StepCost) -> dict[str, Any]:
    return {"phase": phase, "formats": formats, "ms": cost.time_s * 1e3,
            "gb": cost.bytes / 1e9, "compute_ms": cost.compute_s * 1e3,
            "memory_ms": cost.memory_s * 1e3, "collective_ms": cost.collective_s * 1e3,
            "bound": cost.bound}


@simulation(INPUTS)
def simulate(*, weights: str, activations: str, kv: str, model: str, gpu: str, tp: str,
             batch_size: int, context_tokens: int) -> dict[str, Any]:
    chip, shape, shards = GPUS[gpu], MODELS[model], int(tp)
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
        },
        "charts": [
            _speedup_chart(_speedups(chip, shape, shards, chosen, plain, context_tokens,
                                     batch_size),
                           rate_ratio, chip, chosen, fit.note),
            _capacity_chart(chip, shape, shards, context_tokens, chosen),
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
