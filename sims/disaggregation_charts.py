"""The disaggregation sim's charts: each request's wait for its first token against its
arrival, and the spread of gaps between tokens, for one pool against two."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sims.kit import charts, timeline
from sims.serving.arrivals import Request

if TYPE_CHECKING:
    from sims.disaggregation import Outcome


CDF_SHARES = tuple(k / 100 for k in range(1, 101))  # the gaps chart: every percentile
COLOCATED = "one pool, chunked prefill"  # the two setups, as the charts name them
DISAGGREGATED = "prefill and decode pools"
COLOURS = {COLOCATED: "#4c78a8", DISAGGREGATED: "#f58518"}
SETUP_COLOUR = {"field": "setup", "type": "nominal", "title": None,
                "scale": {"domain": list(COLOURS), "range": list(COLOURS.values())},
                "legend": {"orient": "top"}}


def gaps_chart(outcomes: dict[str, Outcome]) -> dict[str, Any]:
    rows = [{"setup": setup, "share": share * 100, "gap_ms": gap * 1e3}
            for setup, outcome in outcomes.items()
            for share, gap in zip(CDF_SHARES, outcome.gap_quantiles, strict=True)]
    gaps = [row["gap_ms"] for row in rows]
    # The gaps span a factor of a few: a log axis from just below the shortest to just
    # above the longest, given, so that it does not round out to whole decades.
    x = {"field": "gap_ms", "type": "quantitative", "title": "Gap between two tokens (ms)",
         "scale": {"type": "log", "domain": [min(gaps) * 0.9, max(gaps) * 1.1], "nice": False},
         "axis": {"labelFlush": timeline.FLUSH_PX}}  # labels near an end drawn flush with it
    y = {"field": "share", "type": "quantitative", "title": "Gaps at most this long (%)",
         "scale": {"domain": [0, 100]}}
    return charts.chart(
        "Between tokens: one pool's prompt slices stretch some steps",
        "For each setup, the share of all gaps between two tokens of a request (every "
        "request, every token) that were at most a given length, on a log axis: the step "
        "up at the right of the single pool is its steps that carried a slice of a prompt.",
        rows,
        mark={"type": "line", "interpolate": "step-after"},
        encoding={
            "x": x, "y": y,
            "color": SETUP_COLOUR,
            "tooltip": [{"field": "setup", "title": "Setup"},
                        {"field": "share", "type": "quantitative", "title": "Percentile"},
                        {"field": "gap_ms", "type": "quantitative", "title": "Gap (ms)",
                         "format": ".2f"}],
        },
    )


def arrivals_chart(requests: list[Request], outcomes: dict[str, Outcome]) -> dict[str, Any]:
    rows = [{"setup": setup, "arrival": r.arrival_s, "ttft_ms": ttft * 1e3}
            for setup, outcome in outcomes.items()
            for r, ttft in zip(requests, outcome.ttft, strict=True)]
    x = {"field": "arrival", "type": "quantitative", "title": "Arrival time (s)"}
    y = {"field": "ttft_ms", "type": "quantitative", "title": "Time to first token (ms)",
         **charts.value_axis(max(row["ttft_ms"] for row in rows))}
    return charts.chart(
        "Each request's wait for its first token",
        f"Time to first token of each of the {len(requests)} requests against when it "
        f"arrived, in both setups: bursts of arrivals queue behind each other.",
        rows,
        mark={"type": "point", "filled": True, "size": 24, "opacity": 0.8},
        encoding={
            "x": x, "y": y,
            "color": SETUP_COLOUR,
            "tooltip": [{"field": "setup", "title": "Setup"},
                        {"field": "arrival", "type": "quantitative", "title": "Arrival (s)",
                         "format": ".2f"},
                        {"field": "ttft_ms", "type": "quantitative", "title": "TTFT (ms)",
                         "format": ".1f"}],
        },
    )
