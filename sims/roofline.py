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

Numbers come from `sims.physics` (datasheet peaks times its stated efficiencies). The
batch runs on the fewest GPUs of one node that hold its weights and KV (tensor parallel);
intensity does not depend on that split, times do.
"""

from __future__ import annotations

from sims import charts
from sims.contract import Choice, Number, simulation
from sims.physics import (
    COMPUTE_EFFICIENCY,
    GPUS,
    MEMORY_EFFICIENCY,
    MODELS,
    TP_DEGREES,
    Gpu,
    StepCost,
    decode_step,
    prefill,
    smallest_fitting_tp,
)

TITLE = "Two phases, two bottlenecks"

INPUTS = (
    Choice("gpu", "GPU", "h100", tuple(GPUS),
           help="Dense BF16 peak and HBM bandwidth from the vendor's datasheet."),
    Choice("model", "Model", "llama-3-8b", tuple(MODELS)),
    Number("batch_size", "Batch size", default=8, min=1, max=256, unit="requests",
           help="Requests prefilled together, then decoded together."),
    Number("seq_len", "Sequence length", default=2048, min=16, max=32768, unit="tokens",
           help="Each prompt's length for prefill; each request's context for decode."),
)

METRICS = {
    "ridge_flops_per_byte": "Ridge point at the assumed efficiencies (FLOP/byte)",
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
}

X_DOMAIN = (0.5, 65536.0)  # FLOP/byte: from batch-1 decode to the longest prefill
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
CONTEXTS = (512, 4096, 32768)
YOUR_CONTEXT = "your context"


def attainable_tflops(gpu: Gpu, intensity: float, efficient: bool = True) -> float:
    """The roofline: the lower of the compute roof and bandwidth times intensity."""
    compute, memory = gpu.bf16_flops, gpu.hbm_bytes_per_s
    if efficient:
        compute, memory = compute * COMPUTE_EFFICIENCY, memory * MEMORY_EFFICIENCY
    return min(compute, intensity * memory) / 1e12


def _roofline_chart(gpu: Gpu, phases: dict[str, StepCost]) -> dict:
    grid = [2.0**k for k in range(-1, 17)]
    roofs = []
    for efficient, series in ((False, "datasheet peak"), (True, "at assumed efficiencies")):
        ridge = gpu.effective_ridge_flops_per_byte if efficient else gpu.ridge_flops_per_byte
        for x in sorted({*grid, ridge}):
            roofs.append({"kind": "roof", "series": series, "intensity": x,
                          "tflops": attainable_tflops(gpu, x, efficient)})
    points = [
        {"kind": "phase", "phase": name, "intensity": cost.intensity,
         "tflops": attainable_tflops(gpu, cost.intensity), "bound": f"{cost.bound}-bound"}
        for name, cost in phases.items()
    ]
    x = {"field": "intensity", "type": "quantitative",
         "title": "Arithmetic intensity (FLOP/byte)",
         "scale": {"type": "log", "domain": list(X_DOMAIN)}}
    y = {"field": "tflops", "type": "quantitative",
         "title": "Attainable compute per GPU (TFLOP/s)", "scale": {"type": "log"}}
    return charts.chart(
        f"Roofline of one {gpu.name}",
        "Log-log roofline: attainable compute against arithmetic intensity, at datasheet "
        "peaks and at the efficiencies this model assumes, with the prefill and decode "
        "steps of the current batch as points.",
        roofs + points,
        layer=[
            {"transform": [{"filter": "datum.kind == 'roof'"}],
             "mark": {"type": "line", "clip": True},
             "encoding": {
                 "x": x, "y": y,
                 "strokeDash": {"field": "series", "type": "nominal", "title": None,
                                "scale": {"domain": ["at assumed efficiencies",
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


def _decode_chart(gpu: Gpu, model_key: str, batch_size: int, seq_len: int, tp: int) -> dict:
    model = MODELS[model_key]
    # A line for each fixed context, then one for the reader's: the legend's entries stay the
    # same whatever the inputs, so the page keeps the chart's view as the context moves.
    lines = [(f"{c:,} tokens", c) for c in CONTEXTS] + [(YOUR_CONTEXT, seq_len)]
    rows = [
        {"kind": "curve", "line": i, "batch": b, "context": label, "context_tokens": c,
         "intensity": decode_step(gpu, model, b, c, tp).intensity}
        for i, (label, c) in enumerate(lines) for b in sorted({*BATCHES, batch_size})
    ]
    rows.append({"kind": "ridge", "intensity": gpu.effective_ridge_flops_per_byte})
    rows.append({"kind": "now", "batch": batch_size, "context_tokens": seq_len,
                 "intensity": decode_step(gpu, model, batch_size, seq_len, tp).intensity})
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
def simulate(*, gpu: str, model: str, batch_size: int, seq_len: int) -> dict:
    device, shape = GPUS[gpu], MODELS[model]
    kv_tokens = batch_size * (seq_len + 1)
    tp = smallest_fitting_tp(device, shape, kv_tokens)
    fits = tp is not None
    tp = tp or TP_DEGREES[-1]
    phases = {
        "prefill": prefill(device, shape, seq_len, batch=batch_size, tp=tp),
        "decode": decode_step(device, shape, batch_size, seq_len, tp=tp),
    }
    decode = phases["decode"]
    kv_bytes = batch_size * (seq_len + 1) * shape.kv_bytes_per_token
    summary = {
        "ridge_flops_per_byte": round(device.effective_ridge_flops_per_byte, 1),
        "peak_ridge_flops_per_byte": round(device.ridge_flops_per_byte, 1),
        "prefill_intensity": round(phases["prefill"].intensity, 1),
        "decode_intensity": round(decode.intensity, 2),
        "prefill_bound": phases["prefill"].bound,
        "decode_bound": decode.bound,
        "prefill_time_s": phases["prefill"].time_s,
        "decode_step_time_s": decode.time_s,
        "decode_tokens_per_s": round(batch_size / decode.time_s, 1),
        "decode_kv_share": round(kv_bytes / decode.bytes, 3),
        "gpus": tp,
        "fits": fits,
    }
    table = [
        {"phase": name, "tokens": batch_size * (seq_len if name == "prefill" else 1),
         "gflop": cost.flops / 1e9, "gb": cost.bytes / 1e9,
         "intensity": cost.intensity, "compute_ms": cost.compute_s * 1e3,
         "memory_ms": cost.memory_s * 1e3, "allreduce_ms": cost.allreduce_s * 1e3,
         "bound": cost.bound}
        for name, cost in phases.items()
    ]
    return {
        "summary": summary,
        "charts": [_roofline_chart(device, phases),
                   _decode_chart(device, model, batch_size, seq_len, tp)],
        "tables": [{
            "title": f"The two steps, worked ({tp} GPU{'s' if tp > 1 else ''})",
            "columns": [
                {"key": "phase", "label": "Phase"},
                {"key": "tokens", "label": "New tokens"},
                {"key": "gflop", "label": "Work (GFLOP)"},
                {"key": "gb", "label": "Bytes moved (GB)"},
                {"key": "intensity", "label": "Intensity (FLOP/byte)"},
                {"key": "compute_ms", "label": "Compute time per GPU (ms)"},
                {"key": "memory_ms", "label": "Memory time per GPU (ms)"},
                {"key": "allreduce_ms", "label": "All-reduces (ms)"},
                {"key": "bound", "label": "Bound"},
            ],
            "rows": table,
        }],
    }
