"""The chunked-prefill sim's charts: the two schedules on one clock (the GPUs' steps, the
streams' tokens, the long prompt's wait), and the chunk-size sweep against the ridge."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sims.kit import charts, timeline
from sims.kit.timeline import Mark, Span, timeline_chart

if TYPE_CHECKING:
    from sims.chunked_prefill import Step


DECODE = "decode step"
PREFILL = "prefill alone"
MIXED = "decode + prompt chunk"
WAITING = "prompt waiting for first token"
TOKEN = "token"
STATES = {
    DECODE: timeline.WORK, PREFILL: timeline.OTHER_WORK, MIXED: timeline.MIXED_WORK,
    WAITING: timeline.IDLE, TOKEN: timeline.TOKEN,
}
GPU_ROW = "GPUs"
PROMPT_ROW = "long prompt"


def timeline_of(
    title: str, description: str, steps: list[Step], first_token: float, streams: int,
    domain: tuple[float, float],
) -> dict[str, Any]:
    """Rows on one clock: the GPUs' steps, the streams' tokens, and the long prompt waiting
    for its first token (at `first_token`)."""
    stream_row = "the stream" if streams == 1 else f"each of {streams} streams"
    spans = [Span(GPU_ROW, s.start, s.end, s.kind) for s in steps]
    spans.append(Span(PROMPT_ROW, 0.0, first_token, WAITING))
    marks = [Mark(stream_row, s.end, TOKEN) for s in steps if s.streams_served]
    marks += [Mark(PROMPT_ROW, s.end, TOKEN) for s in steps if s.end >= first_token]
    return timeline_chart(
        title, description,
        rows=[GPU_ROW, stream_row, PROMPT_ROW], spans=spans, marks=marks, states=STATES,
        domain=domain, unit="s", scale=1.0,
    )


def sweep_chart(rows: list[dict[str, Any]], ridge: int, prompt_tokens: int) -> dict[str, Any]:
    # The axis spans exactly the sizes swept, given rather than derived from the data, so
    # the ridge's line is a value the page's kept chart view can move (sims.kit.timeline).
    swept = [rows[0]["chunk_tokens"], rows[-1]["chunk_tokens"]]
    x_title = "Chunk size (tokens)"
    x = {"field": "chunk_tokens", "type": "quantitative", "title": x_title,
         "scale": {"type": "log", "base": 2, "domain": swept}}
    gap_title = "Longest gap between a stream's tokens (ms)"
    first_title = "Prompt's time to first token (s)"
    # The gap spans two orders of magnitude (a decode step to the whole prefill): log axis.
    gap = {"field": "gap_ms", "type": "quantitative", "scale": {"type": "log"},
           "title": gap_title, "axis": {"orient": "left"}}
    first = {"field": "ttft_s", "type": "quantitative", "scale": {"zero": False},
             "title": first_title, "axis": {"orient": "right"}}
    tooltip = [{"field": field, "type": "quantitative", "title": title}
               for field, title in (("chunk_tokens", x_title), ("gap_ms", gap_title),
                                    ("ttft_s", first_title))]
    return charts.chart(
        "Small chunks cost the prompt; big ones bring the stall back",
        f"For a {prompt_tokens}-token prompt, the longest gap in the decoding streams and the "
        f"prompt's time to first token against the chunk size, with the GPU's ridge point "
        f"({ridge} tokens) marked.",
        rows,
        encoding={"x": x},  # once for every layer: the page lifts its domain once
        layer=[
            {"mark": {"type": "line", "point": True},
             "encoding": {"y": gap, "color": {"datum": "longest gap (ms)"},
                          "tooltip": tooltip}},
            {"mark": {"type": "line", "point": True, "strokeDash": [6, 3]},
             "encoding": {"y": first, "color": {"datum": "time to first token (s)"},
                          "tooltip": tooltip}},
            {"mark": {"type": "rule", "strokeDash": [2, 2], "color": "#9e9e9e"},
             "encoding": {"x": {"datum": ridge}}},
            {"mark": {"type": "text", "align": "left", "dx": 4, "dy": -4, "baseline": "top",
                      "color": "#9e9e9e"},
             "encoding": {"x": {"datum": ridge}, "y": {"value": 0},
                          "text": {"value": f"ridge: {ridge} tokens"}}},
        ],
        resolve={"scale": {"y": "independent"}},
    )


def timelines(drawn: Sequence[list[Step]], first_tokens: tuple[float, float], streams: int,
              prompt_tokens: int, chunk: int, lead_steps: int, domain: tuple[float, float],
              note: str) -> list[dict[str, Any]]:
    """The two schedules' timelines on one clock: the prefill alone, then chunked."""
    return [
        timeline_of(
            charts.titled("Prefill alone: every stream waits", note),
            f"Token times of {streams} decoding streams and the long prompt when its "
            f"{prompt_tokens}-token prefill runs as a step of its own, from "
            f"{lead_steps} steps before it arrives (time 0).",
            drawn[0], first_tokens[0], streams, domain,
        ),
        timeline_of(
            "Chunked: the streams keep their pace",
            f"The same, with the prompt cut into {chunk}-token chunks that ride in the "
            f"decode steps, on the same clock.",
            drawn[1], first_tokens[1], streams, domain,
        ),
    ]
