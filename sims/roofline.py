"""The roofline: why prefill is compute-bound and decode is bandwidth-bound.

A step's arithmetic intensity is its FLOPs over the bytes it moves. Below the GPU's ridge
point (FLOP/s over bytes/s) the step waits on memory; above it, on the tensor cores. One
batch of `batch_size` requests goes through both phases here:

- prefill: every prompt of `seq_len` tokens in one step. The weights are read once and
  used by every token, so intensity is in the thousands: compute-bound.
- decode: one step in which each request adds one token after `seq_len` tokens of
  context. The weights are read once for only `batch_size` tokens, and every request's KV
  cache is read too: intensity near the batch size at short context, and falling toward
  heads / KV heads (4 for Llama 3 8B) as context grows, because KV reads grow with the
  batch just as FLOPs do.

Numbers come from `sims.physics`: the catalogue's datasheet peaks at its stated efficiencies,
each step priced operator by operator. The roof is the rate of the step's matmuls: the wider
of the weights' and the activations' formats (FP8 weights on an H100 compute at the FP8
rate, FP4 weights at BF16, since the H100 has no FP4 rate). The batch runs on the fewest
GPUs of one node that hold its weights and KV (tensor parallel); intensity does not depend
on that split, times do. A batch no group of the node can hold is still priced on the
largest group, and the summary and the chart say it does not fit and why.
"""

from __future__ import annotations

from sims.kit import charts
from sims.kit.contract import Choice, Number, simulation
from sims.physics import (
    GPUS,
    KV_INPUT,
    WEIGHTS_INPUT,
    Gpu,
    Model,
    Precision,
    StepCost,
    Work,
    decode_step,
    memory_fit,
    precision_for,
    prefill,
    smallest_fitting_tp,
    tp_degrees,
)
from sims.physics.accuracy import step_regime
from sims.physics.model_choice import model_for, model_inputs
from sims.physics.precision import LABELS, wider

TITLE = "Two phases, two bottlenecks"

INPUTS = (
    Choice("gpu", "GPU", "h100", tuple(GPUS),
           help="Dense peaks and memory bandwidth from the vendor's datasheet (the catalogue)."),
    *model_inputs("llama-3.1-8b"),
    WEIGHTS_INPUT,
    KV_INPUT,
    Number("batch_size", "Batch size", default=8, min=1, max=256, unit="requests",
           help="Requests prefilled together, then decoded together."),
    Number("seq_len", "Sequence length", default=2048, min=16, max=32768, unit="tokens",
           help="Each prompt's length for prefill; each request's context for decode."),
)

METRICS = {
    "ridge_flops_per_byte": "Ridge point at the shares of peak its matmuls reach (FLOP/byte)",
    "peak_ridge_flops_per_byte": "Ridge point at datasheet peaks (FLOP/byte)",
    "prefill_intensity": "Prefill: arithmetic intensity (FLOP/byte)",
    "decode_intensity": "Decode: arithmetic intensity (FLOP/byte)",
    "prefill_bound": "Prefill is bound by",
    "decode_bound": "Decode is bound by",
    "prefill_time_s": "Prefill of the whole batch (s)",
    "decode_step_time_s": "One decode step of the whole batch (s)",
    "decode_tokens_per_s": "Decode throughput of the batch (tokens/s)",
    "decode_kv_share": "Decode: share of bytes moved that are KV cache",
    "gpus": "GPUs the batch needs, tensor parallel (GPUs)",
    "fits": "Weights and KV fit on those GPUs",
    "memory": "Memory each GPU needs, against what it can use",
    "precision": "Formats of weights, activations and KV",
    "accuracy": "Regime of the decode step and the measured error there",
}

X_DOMAIN = (0.5, 65536.0)  # FLOP/byte: from batch-1 decode to the longest prefill
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
CONTEXTS = (512, 4096, 32768)
YOUR_CONTEXT = "your context"


def compute_format(precision: Precision) -> str:
    """The format the step's matmuls compute in: the wider of weights and activations."""
    return wider(precision.weights, precision.activations)


def attainable_tflops(gpu: Gpu, intensity: float, precision: str = "bf16",
                      efficient: bool = True) -> float:
    """The roofline: the lower of the compute roof and bandwidth times intensity."""
    compute, memory = gpu.flops(precision), gpu.hbm_bytes_per_s
    if efficient:  # the shares of them the GPU's matmuls reach (its kernel profile)
        fit = gpu.kernels.for_format(gpu.kernels.gemm, precision, "GEMM")
        compute, memory = compute * fit.compute_efficiency, memory * fit.memory_efficiency
    return min(compute, intensity * memory) / 1e12


def _roofline_chart(gpu: Gpu, phases: dict[str, StepCost], precision: Precision,
                    note: str) -> dict:
    grid = [2.0**k for k in range(-1, 17)]
    fmt = compute_format(precision)
    roofs = []
    for efficient, series in ((False, "datasheet peak"), (True, "as its matmuls reach")):
        ridge = gpu.ridge(fmt, efficient)
        for x in sorted({*grid, ridge}):
            roofs.append({"kind": "roof", "series": series, "intensity": x,
                          "tflops": attainable_tflops(gpu, x, fmt, efficient)})
    points = [
        {"kind": "phase", "phase": name, "intensity": cost.intensity,
         "tflops": attainable_tflops(gpu, cost.intensity, fmt), "bound": f"{cost.bound}-bound"}
        for name, cost in phases.items()
    ]
    x = {"field": "intensity", "type": "quantitative",
         "title": "Arithmetic intensity (FLOP/byte)",
         "scale": {"type": "log", "domain": list(X_DOMAIN)}}
    y = {"field": "tflops", "type": "quantitative",
         "title": "Attainable compute per GPU (TFLOP/s)", "scale": {"type": "log"}}
    return charts.chart(
        charts.titled(f"Roofline of one {gpu.name}, {LABELS[fmt]} matmuls", note),
        f"Log-log roofline: attainable {LABELS[fmt]} compute against arithmetic intensity, at "
        "datasheet peaks and at the efficiencies this model assumes, with the prefill and "
        "decode steps of the current batch as points.",
        roofs + points,
        layer=[
            {"transform": [{"filter": "datum.kind == 'roof'"}],
             "mark": {"type": "line", "clip": True},
             "encoding": {
                 "x": x, "y": y,
                 "strokeDash": {"field": "series", "type": "nominal", "title": None,
                                "scale": {"domain": ["as its matmuls reach",
                                                     "datasheet peak"],
                                          "range": [[1, 0], [4, 4]]},
                                "legend": {"orient": "top"}},
                 "color": {"value": "#7f7f7f"},
             }},
            {"transform": [{"filter": "datum.kind == 'phase'"}],
             "mark": {"type": "point", "filled": True, "size": 120},
             "encoding": {
                 "x": x, "y": y,
                 "color": {"field": "phase", "type": "nominal", "title": None,
                           "scale": {"domain": ["prefill", "decode"]},
                           "legend": {"orient": "top"}},
                 "tooltip": [
                     {"field": "phase", "title": "Phase"},
                     {"field": "intensity", "title": "Intensity (FLOP/byte)", "format": ",.1f"},
                     {"field": "tflops", "title": "Attainable (TFLOP/s)", "format": ",.0f"},
                     {"field": "bound", "title": "Bound"},
                 ],
             }},
            {"transform": [{"filter": "datum.kind == 'phase'"}],
             "mark": {"type": "text", "dy": -14, "fontWeight": "bold"},
             "encoding": {"x": x, "y": y, "text": {"field": "phase"},
                          "color": {"field": "phase", "type": "nominal", "legend": None,
                                    "scale": {"domain": ["prefill", "decode"]}}}},
        ],
    )


def _decode_chart(gpu: Gpu, model: Model, batch_size: int, seq_len: int, tp: int,
                  precision: Precision) -> dict:
    # A line for each fixed context, then one for the reader's: the legend's entries stay the
    # same whatever the inputs, so the page keeps the chart's view as the context moves.
    lines = [(f"{c:,} tokens", c) for c in CONTEXTS] + [(YOUR_CONTEXT, seq_len)]
    rows = [
        {"kind": "curve", "line": i, "batch": b, "context": label, "context_tokens": c,
         "intensity": decode_step(gpu, model, b, c, tp, precision).intensity}
        for i, (label, c) in enumerate(lines) for b in sorted({*BATCHES, batch_size})
    ]
    rows.append({"kind": "ridge", "intensity": gpu.ridge(compute_format(precision), True)})
    rows.append({"kind": "now", "batch": batch_size, "context_tokens": seq_len,
                 "intensity": decode_step(gpu, model, batch_size, seq_len, tp,
                                          precision).intensity})
    x = {"field": "batch", "type": "quantitative", "title": "Batch size (requests)",
         "scale": {"type": "log", "base": 2, "domain": [1, 256]}}
    y = {"field": "intensity", "type": "quantitative",
         "title": "Decode intensity (FLOP/byte)", "scale": {"type": "log"}}
    return charts.chart(
        "Decode climbs toward the ridge with batch size, less so at long context",
        "Arithmetic intensity of one decode step against batch size, one line for each of "
        "three context lengths and one for the context chosen, with the ridge point as a "
        "horizontal rule and the current inputs marked.",
        rows,
        layer=[
            {"transform": [{"filter": "datum.kind == 'curve'"}],
             "mark": {"type": "line", "point": True},
             "encoding": {
                 "x": x, "y": y,
                 "color": {"field": "context", "type": "nominal", "title": "Context",
                           "sort": {"field": "line", "op": "min"},
                           "legend": {"orient": "top"}},
                 "tooltip": [
                     {"field": "batch", "title": "Batch"},
                     {"field": "context_tokens", "title": "Context (tokens)", "format": ","},
                     {"field": "intensity", "title": "Intensity (FLOP/byte)", "format": ",.1f"},
                 ],
             }},
            {"transform": [{"filter": "datum.kind == 'ridge'"}],
             "mark": {"type": "rule", "strokeDash": [4, 4], "color": "#888888"},
             "encoding": {"y": y}},
            {"transform": [{"filter": "datum.kind == 'ridge'"}],
             "mark": {"type": "text", "align": "left", "dy": -8, "x": 4, "color": "#888888"},
             "encoding": {"y": y, "text": {"value": "ridge point"}}},
            {"transform": [{"filter": "datum.kind == 'now'"}],
             "mark": {"type": "point", "shape": "diamond", "size": 160, "filled": False,
                      "strokeWidth": 2},
             "encoding": {"x": x, "y": y}},
        ],
    )


@simulation(INPUTS)
def simulate(*, gpu: str, model: str, model_config: str, weights: str, kv: str, batch_size: int,
             seq_len: int) -> dict:
    device, shape = GPUS[gpu], model_for(model, model_config)
    precision = precision_for(device, shape, weights, kv=kv)
    tp = smallest_fitting_tp(device, shape, batch_size, seq_len + 1, precision)
    tp = tp or max(tp_degrees(device))
    fit = memory_fit(device, shape, batch_size, seq_len + 1, tp, precision)
    phases = {
        "prefill": prefill(device, shape, seq_len, batch=batch_size, tp=tp, precision=precision),
        "decode": decode_step(device, shape, batch_size, seq_len, tp, precision),
    }
    decode = phases["decode"]
    kv_bytes = batch_size * shape.kv_bytes(seq_len + 1, precision.kv)
    fmt = compute_format(precision)
    regime = step_regime(device, shape, precision, tp, "tp",
        [Work(1, seq_len, count=batch_size)])
    summary = {
        "ridge_flops_per_byte": round(device.ridge(fmt, efficient=True), 1),
        "peak_ridge_flops_per_byte": round(device.ridge(fmt), 1),
        "prefill_intensity": round(phases["prefill"].intensity, 1),
        "decode_intensity": round(decode.intensity, 2),
        "prefill_bound": phases["prefill"].bound,
        "decode_bound": decode.bound,
        "prefill_time_s": phases["prefill"].time_s,
        "decode_step_time_s": decode.time_s,
        "decode_tokens_per_s": round(batch_size / decode.time_s, 1),
        "decode_kv_share": round(kv_bytes / decode.bytes, 3),
        "gpus": tp,
        "fits": fit.fits,
        "memory": fit.reason,
        "precision": precision.label,
        "accuracy": f"Decode step: {regime}",
    }
    table = [
        {"phase": name, "tokens": batch_size * (seq_len if name == "prefill" else 1),
         "gflop": cost.flops / 1e9, "gb": cost.bytes / 1e9,
         "intensity": cost.intensity, "compute_ms": cost.compute_s * 1e3,
         "memory_ms": cost.memory_s * 1e3, "ops_ms": cost.ops_s * 1e3,
         "collective_ms": cost.collective_s * 1e3, "bound": cost.bound}
        for name, cost in phases.items()
    ]
    return {
        "summary": summary,
        "charts": [_roofline_chart(device, phases, precision, fit.note),
                   _decode_chart(device, shape, batch_size, seq_len, tp, precision)],
        "tables": [{
            "title": f"The two steps, worked ({tp} GPU{'s' if tp > 1 else ''})",
            "columns": [
                {"key": "phase", "label": "Phase"},
                {"key": "tokens", "label": "New tokens"},
                {"key": "gflop", "label": "Work (GFLOP)"},
                {"key": "gb", "label": "Bytes moved (GB)"},
                {"key": "intensity", "label": "Intensity (FLOP/byte)"},
                {"key": "compute_ms", "label": "Compute time per GPU, summed over operators (ms)"},
                {"key": "memory_ms", "label": "Memory time per GPU, summed over operators (ms)"},
                {"key": "ops_ms", "label": "Operators, each priced on its own (ms)"},
                {"key": "collective_ms", "label": "All-reduces (ms)"},
                {"key": "bound", "label": "Bound"},
            ],
            "rows": table,
        }],
    }
