"""The quantization sim's charts: speedups against their bounds, and requests in flight for
every pair of weight and KV formats (sims.quantization computes what they show)."""

from __future__ import annotations

from typing import Any

from sims.kit import charts
from sims.physics import Gpu, Model, Precision
from sims.physics.capacity import sequences_that_fit
from sims.physics.precision import LABELS, PRECISIONS

BF16 = "bf16"
DECODE_LINE = "decode: speedup"
BYTES_LINE = "decode: bytes read, BF16 / chosen (its bound)"
PREFILL_LINE = "prefill: speedup"
LINES = (DECODE_LINE, BYTES_LINE, PREFILL_LINE)


def speedup_chart(rows: list[dict[str, Any]], rate_ratio: float, gpu: Gpu,
                  precision: Precision, note: str, longest: int) -> dict[str, Any]:
    """Decode and prefill speedups against batch or prompt length, with their bounds;
    `longest`: the longest prompt the sweep prices (the x axis ends there)."""
    top = max(rate_ratio, *(row["speedup"] for row in rows))
    x = {"field": "tokens", "type": "quantitative",
         "title": "Sequences in a decode step, or tokens in a prompt (tokens)",
         "scale": {"type": "log", "base": 2, "domain": [1, longest]},
         "axis": {"values": [1, 16, 256, 4096, longest], "format": ","}}
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


def capacity_chart(gpu: Gpu, model: Model, tp: int, context: int, chosen: Precision
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
