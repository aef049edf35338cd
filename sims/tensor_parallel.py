"""Tensor parallelism: every matrix cut across GPUs, and the price of putting it back together.

With the model split over `tp` GPUs, each GPU holds 1/tp of every weight matrix and of the
KV cache, so in a memory-bound decode step each reads 1/tp of the bytes and finishes about
tp times sooner. But every layer has two points (after attention, after the MLP) where
the partial results on each GPU must be summed across all of them before the next matmul
can start: an all-reduce, two per layer, every step.

An all-reduce costs a fixed time per call (launch, synchronisation, the link's own latency)
plus a part that grows with its message; both come from the GPU's kernel profile, fitted to
measured all-reduces (`sims.physics.allreduce_time`): engines' own kernels for small
messages, NCCL's for large ones. In decode the message is one hidden state per sequence, a
few kilobytes to a few megabytes, so the fixed part is most of it, and it does not shrink
when the shards do.
That is why the all-reduce share of a step grows with tp, and why its cost barely moves
with the batch.

A configuration whose weights plus KV cache do not fit in the GPUs' usable memory is
still priced (as if it fitted), and the result says it does not fit and why.
"""

from __future__ import annotations

from typing import Any

from sims.kit import charts
from sims.kit.contract import Choice, Number, simulation
from sims.physics import (
    GPUS,
    KV_INPUT,
    TP_DEGREES,
    WEIGHTS_INPUT,
    Gpu,
    Precision,
    StepCost,
    Work,
    allreduce_fit,
    check_group,
    decode_step,
    memory_fit,
    precision_for,
    tp_degrees,
)
from sims.physics.accuracy import step_regime
from sims.physics.model_choice import model_for, model_inputs

TITLE = "Every layer stops to agree, twice"

# The two batch sizes the comparison chart sets side by side: one sequence, and a batch
# large enough that the all-reduce message is a few megabytes.
SMALL_BATCH, LARGE_BATCH = 1, 256
ALLREDUCE_BYTES = 2  # a hidden state's partial sums travel in BF16 (sims.physics.pricing)

SHARD = "shard work (matmuls)"
FIXED = "all-reduce: fixed latency"
DATA = "all-reduce: moving data"
PARTS = (SHARD, FIXED, DATA)
COLOURS = ("#4c78a8", "#e45756", "#f58518")

INPUTS = (
    Choice("tp", "Tensor-parallel GPUs", "8", tuple(str(t) for t in TP_DEGREES),
           help="GPUs the model is split over."),
    Number("batch_size", "Batch size", default=16, min=1, max=LARGE_BATCH, unit="sequences",
           help="Sequences decoding together, one new token each per step."),
    Number("context_tokens", "Context per sequence", default=2048, min=0, max=32768, step=256,
           unit="tokens", help="Tokens already in each sequence's KV cache."),
    *model_inputs("llama-3.1-70b"),
    Choice("gpu", "GPU", "h100", tuple(GPUS)),
    WEIGHTS_INPUT,
    KV_INPUT,
)

METRICS = {
    "fits": "Weights and KV cache fit in the GPUs' usable memory",
    "memory": "Memory each GPU needs, against what it can use",
    "weights_per_gpu_gb": "Weights held by each GPU (GB)",
    "kv_per_gpu_gb": "KV cache held by each GPU (GB)",
    "usable_per_gpu_gb": "Usable memory per GPU (GB)",
    "allreduces_per_token": "All-reduces in each decode step (calls)",
    "step_time_s": "One decode step (s)",
    "matmul_time_s": "Shard work: the step's matmuls on one GPU (s)",
    "bound": "What limits the shard work (compute or memory)",
    "allreduce_time_s": "All-reduces of the step, together (s)",
    "allreduce_fraction": "Share of the step spent in all-reduce (fraction)",
    "allreduce_fixed_fraction": "Share of all-reduce time that is fixed latency (fraction)",
    "allreduce_latency_us": "Fixed part of one all-reduce, from the kernel profile (µs)",
    "allreduce_gb_per_s": "Message rate of one all-reduce beyond the fixed part (GB/s)",
    "precision": "Formats of weights, activations and KV",
    "accuracy": "Regime of the decode step and the measured error there",
}


def _parts(gpu: Gpu, cost: StepCost, tp: int, message_bytes: float) -> dict[str, float]:
    """The step split three ways: shard work, all-reduce latency, all-reduce data (s)."""
    fixed = cost.collectives * allreduce_fit(gpu, message_bytes, tp)[0] if tp > 1 else 0.0
    return {SHARD: cost.ops_s, FIXED: fixed, DATA: cost.collective_s - fixed}


def _label(tp: int, fits: bool) -> str:
    gpus = "1 GPU" if tp == 1 else f"{tp} GPUs"
    return gpus if fits else f"{gpus} (no fit)"


def _split_chart(
    title: str, description: str, rows: list[dict[str, Any]], offset: bool
) -> dict[str, Any]:
    """Stacked bars of the step's three parts per TP degree; `offset` groups by batch."""
    # Groups in GPU order, batches in size order: sorted by a number in the rows, not by a
    # list of labels, so a label that changes ("(no fit)") keeps the page's chart view.
    stacks: dict[tuple[int, int], float] = {}
    for row in rows:  # added in order (not sum(), whose rounding differs across Pythons)
        key = (row["gpus"], row["batch"])
        stacks[key] = stacks.get(key, 0.0) + row["ms"]
    encoding: dict[str, Any] = {
        "x": {"field": "group", "type": "nominal", "sort": {"field": "gpus", "op": "min"},
              "title": "Tensor-parallel group", "axis": {"labelAngle": 0}},
        "y": {"field": "ms", "type": "quantitative", "stack": True,
              "title": "Time per decode step (ms)", **charts.value_axis(max(stacks.values()))},
        "color": {"field": "part", "type": "nominal", "title": None,
                  "scale": {"domain": list(PARTS), "range": list(COLOURS)},
                  "legend": {"orient": "bottom", "symbolType": "square", "symbolOpacity": 1}},
        "order": {"field": "order"},
        "tooltip": [
            {"field": "group", "title": "Group"},
            {"field": "batch", "title": "Batch (sequences)"},
            {"field": "fits", "title": "Fits in memory"},
            {"field": "part", "title": "Part"},
            {"field": "ms", "title": "Time (ms)", "format": ".3~f"},
        ],
    }
    if offset:
        encoding["xOffset"] = {"field": "batch_label", "sort": {"field": "batch", "op": "min"}}
        # Above the plot: legends at one edge share a row, and beside the three parts' this
        # one would run past the edge of a plot narrower than about 500 px, a tablet's. Its
        # squares are faded and solid shard work, as the bars are (Vega's default fill, near
        # black, is lost on the dark scheme's background).
        encoding["opacity"] = {"field": "batch_label", "type": "nominal", "title": None,
                               "scale": {"range": [0.55, 1.0]},
                               "legend": {"orient": "top", "symbolType": "square",
                                          "symbolFillColor": COLOURS[0]}}
    return charts.chart(title, description, rows, mark="bar", encoding=encoding)


@simulation(INPUTS)
def simulate(
    *, tp: str, batch_size: int, context_tokens: int, model: str, model_config: str,
    gpu: str, weights: str,
    kv: str,
) -> dict[str, Any]:
    chip, shape, degree = GPUS[gpu], model_for(model, model_config), int(tp)
    check_group(chip, shape, degree)
    precision: Precision = precision_for(chip, shape, weights, kv=kv)
    degrees = [t for t in tp_degrees(chip) if shape.heads % t == 0]

    def priced(degree: int, batch: int) -> tuple[StepCost, dict[str, float], bool]:
        cost = decode_step(chip, shape, batch, context_tokens, degree, precision)
        fit = memory_fit(chip, shape, batch, context_tokens + 1, degree, precision)
        message = batch * shape.hidden * ALLREDUCE_BYTES
        return cost, _parts(chip, cost, degree, message), fit.fits

    cost, parts, _ = priced(degree, batch_size)
    fit = memory_fit(chip, shape, batch_size, context_tokens + 1, degree, precision)

    at_batch = []
    for t in degrees:
        _, split, fits = priced(t, batch_size)
        at_batch += [
            {"group": _label(t, fits), "gpus": t, "batch": batch_size, "fits": fits,
             "part": part, "order": i, "ms": split[part] * 1000}
            for i, part in enumerate(PARTS)
        ]
    compared, split_over = [], degrees[1:] or degrees  # one GPU has nothing to all-reduce
    for t in split_over:
        for batch in (SMALL_BATCH, LARGE_BATCH):
            _, split, fits = priced(t, batch)
            compared += [
                {"group": _label(t, True), "gpus": t, "batch": batch,
                 "batch_label": f"batch {batch}", "fits": fits, "part": part, "order": i,
                 "ms": split[part] * 1000}
                for i, part in enumerate(PARTS)
            ]

    allreduce_s = cost.collective_s
    regime = step_regime(chip, shape, precision, degree, "tp",
        [Work(1, context_tokens, count=batch_size)])
    fitted = (allreduce_fit(chip, batch_size * shape.hidden * ALLREDUCE_BYTES, degree)
              if degree > 1 else None)
    return {
        "summary": {
            "fits": fit.fits,
            "memory": fit.reason,
            "weights_per_gpu_gb": fit.weights_per_gpu_bytes / 1e9,
            "kv_per_gpu_gb": fit.kv_per_gpu_bytes / 1e9,
            "usable_per_gpu_gb": fit.usable_per_gpu_bytes / 1e9,
            "allreduces_per_token": cost.collectives,
            "step_time_s": cost.time_s,
            "matmul_time_s": cost.ops_s,
            "bound": cost.bound,
            "allreduce_time_s": allreduce_s,
            "allreduce_fraction": allreduce_s / cost.time_s,
            "allreduce_fixed_fraction": parts[FIXED] / allreduce_s if allreduce_s else 0.0,
            "allreduce_latency_us": fitted[0] * 1e6 if fitted else 0.0,
            "allreduce_gb_per_s": fitted[1] / 1e9 if fitted else 0.0,
            "precision": precision.label,
            "accuracy": f"Decode step on {_label(degree, True)}: {regime}",
        },
        "charts": [
            _split_chart(
                charts.titled(f"One decode step at batch {batch_size}, split over 1 to "
                              f"{degrees[-1]} GPUs", fit.note),
                f"Time of one decode step of {shape.name} on {chip.name} at batch "
                f"{batch_size} and {context_tokens} tokens of context, split into the "
                f"shard's own operators and the all-reduces, for "
                f"{', '.join(str(t) for t in degrees)} GPUs.",
                at_batch, offset=False,
            ),
            _split_chart(
                f"Batch {SMALL_BATCH} against batch {LARGE_BATCH}",
                f"The same split at batch {SMALL_BATCH} (faded) and batch {LARGE_BATCH} "
                f"(solid) for {', '.join(str(t) for t in split_over)} GPUs: the shard work "
                f"grows with the batch's KV cache, the all-reduces much less.",
                compared, offset=True,
            ),
        ],
    }
