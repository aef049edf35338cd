"""__TITLE__: replace this model with the explainer's own (written by `make new`).

Until then it shows how a sim is put together: inputs declared once (sims.kit.contract), a model
that is a plain function of them, a summary of named metrics (METRICS) and a chart whose
rows the page can swap. The model is the simplest latency there is: a reply of n tokens has
arrived after the time to first token plus n - 1 inter-token gaps. Shared physics (GPUs,
models, step costs) comes from sims.physics, never a copy of its numbers.
"""

from __future__ import annotations

from typing import Any

from sims.kit import charts
from sims.kit.contract import Number, simulation

TITLE = "__TITLE__"

INPUTS = (
    Number("output_tokens", "Reply length", default=256, min=1, max=4096, unit="tokens",
           help="How many tokens the reply has."),
    Number("ttft_ms", "Time to first token", default=200, min=1, max=10_000, unit="ms",
           help="From the request to the first token: the wait in the queue and the prefill."),
    Number("itl_ms", "Inter-token latency", default=20, min=1, max=1000, unit="ms",
           help="The gap between two tokens of the reply: one decode step."),
)

METRICS = {
    "reply_s": "Time until the whole reply has arrived (s)",
    "tokens_per_s": "Tokens per second after the first (tokens/s)",
    "accuracy": "Regime and measured error",  # every sim's summary ends with it
}
# A sim that prices a step on a GPU says here which kernels the step spends its time in and
# the error the calibration measured there (sims.physics.accuracy.step_note); this one
# prices none.
ACCURACY = ("No regime: this sim prices no GPU time, so no measured error applies. Its "
            "figures follow from the inputs alone.")

POINTS = 64  # rows in the chart, whatever the reply's length


def arrival_s(token: int, ttft_ms: int, itl_ms: int) -> float:
    """When token number `token` (from 1) reaches the reader, in seconds."""
    return (ttft_ms + (token - 1) * itl_ms) / 1000


@simulation(INPUTS)
def simulate(*, output_tokens: int, ttft_ms: int, itl_ms: int) -> dict[str, Any]:
    step = max(1, output_tokens // POINTS)
    tokens = sorted({*range(1, output_tokens + 1, step), output_tokens})
    rows = [{"token": n, "arrived_s": arrival_s(n, ttft_ms, itl_ms)} for n in tokens]
    chart = charts.chart(
        "When each token arrives",
        "Seconds from the request until each token of the reply reaches the reader: the "
        "first after the time to first token, each later one an inter-token gap after it.",
        rows,
        mark={"type": "line", "point": False},
        encoding={
            "x": {"field": "token", "type": "quantitative", "title": "Token (number)"},
            "y": {"field": "arrived_s", "type": "quantitative", "title": "Arrived (s)"},
            "tooltip": [{"field": "token", "title": "Token"},
                        {"field": "arrived_s", "title": "Arrived (s)", "format": ".3f"}],
        },
    )
    return {
        "summary": {
            "reply_s": arrival_s(output_tokens, ttft_ms, itl_ms),
            "tokens_per_s": 1000 / itl_ms,
            "accuracy": ACCURACY,
        },
        "charts": [chart],
    }
