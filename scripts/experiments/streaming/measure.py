"""Measure the three ways of streaming on loopback and write the result file.

Run ``python -m experiments.streaming.measure`` (with ``scripts/`` on ``PYTHONPATH``; ``make
experiments`` does this). It starts the token server and the buffering proxy on
127.0.0.1 in this process, runs every configuration ``repeats`` times (interleaved, so a
slow moment on a shared machine hits all of them alike), and writes medians to
``content/data/experiments/streaming.json`` with the machine, Python version, date and
parameters. ``--quick`` runs a tiny version (used by the tests), ``--out`` writes elsewhere.

Three questions, three sections of the result file:

- ``delivery``: when the first text reaches the reader, when the last does, and the bytes
  on the wire per token, for each way and through the proxy;
- ``reader_leaves``: the reader closes mid-stream; how many tokens the server generates
  for nobody, and how long it takes to notice, when it watches the socket and when it
  only learns from a failed write;
- ``reading_vs_generation``: measured arrivals at several generation rates, fed to a
  reader who reads at a set speed: when does the reader wait for the model?
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.streaming.client import Reception, receive, request_target
from experiments.streaming.proxy import BufferingProxy
from experiments.streaming.reading import read_along, seconds_per_token
from experiments.streaming.server import RequestRecord, StreamingServer
from experiments.streaming.tokens import TokenSource
from ridgepoint.base.layout import repository

RESULT_PATH = repository().experiments / "streaming.json"

# Brysbaert (2019), "How many words do we read per minute? A review and meta-analysis of
# reading rate", Journal of Memory and Language 109, 104047: adults reading English
# non-fiction silently average 238 words per minute (most fall between 175 and 300).
READING_WPM_BRYSBAERT_2019 = 238.0
READING_SOURCE = (
    "Brysbaert (2019), 'How many words do we read per minute? A review and meta-analysis "
    "of reading rate', Journal of Memory and Language 109, 104047 "
    "(doi:10.1016/j.jml.2019.104047): 238 words per minute, adults silently reading "
    "English non-fiction; most adults between 175 and 300"
)


@dataclass(frozen=True)
class Parameters:
    """Every input of a run; all of them are written into the result file."""

    tokens: int = 200
    rate_tokens_per_s: float = 50.0
    repeats: int = 5
    leave_after_s: float = 1.0
    reading_words_per_s: float = READING_WPM_BRYSBAERT_2019 / 60
    words_per_token: float = 0.75
    sweep_rates_tokens_per_s: tuple[float, ...] = (2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
    sweep_duration_s: float = 4.0
    sweep_repeats: int = 3


QUICK = Parameters(
    tokens=20,
    rate_tokens_per_s=400.0,
    repeats=1,
    leave_after_s=0.02,
    sweep_rates_tokens_per_s=(100.0, 400.0),
    sweep_duration_s=0.05,
    sweep_repeats=1,
)


@dataclass(frozen=True)
class Route:
    """One way of delivering, optionally through the proxy."""

    way: str
    via_proxy: bool = False
    accel_buffering_no: bool = False


DELIVERY_ROUTES = {
    "whole": Route("whole"),
    "sse": Route("sse"),
    "websocket": Route("websocket"),
    "whole_via_buffering_proxy": Route("whole", via_proxy=True),
    "sse_via_buffering_proxy": Route("sse", via_proxy=True),
    "sse_via_buffering_proxy_with_x_accel_buffering_no": Route(
        "sse", via_proxy=True, accel_buffering_no=True
    ),
}

LEAVE_CASES = {
    f"{name}_detect_{detect}": (route, detect)
    for name, route in (
        ("whole", Route("whole")),
        ("sse", Route("sse")),
        ("websocket", Route("websocket")),
        ("sse_via_buffering_proxy", Route("sse", via_proxy=True)),
    )
    for detect in ("watch", "write")
}

SECTIONS = {
    "delivery": "one entry per way of delivering the same tokens (parameters.tokens at "
    "parameters.rate_tokens_per_s), direct or through the buffering proxy; timings are "
    "{median, min, max} over parameters.repeats runs, byte counts are medians",
    "reader_leaves": "the client closes parameters.leave_after_s into the stream; "
    "_detect_watch and _detect_write name how the server learns of it (see notes)",
    "reading_vs_generation": "SSE at each rate in parameters.sweep_rates_tokens_per_s for "
    "parameters.sweep_duration_s of generation; the measured arrivals are read by the "
    "reader model (medians over parameters.sweep_repeats runs)",
}

DEFINITIONS = {
    "ttfb_ms": "request start (before connect) to the first response byte at the client",
    "time_to_first_text_ms": "request start to the first token text the client can show",
    "last_text_ms": "request start to the last token text the client can show",
    "server_generation_ms": "server: request parsed to last token generated",
    "first_text_minus_generation_end_ms": (
        "first text at the client minus last token generated at the server; negative means "
        "the reader had text while the model was still writing"
    ),
    "bytes_received": "every byte the client read on the connection: head, framing, text",
    "head_bytes": "status line and headers (for the WebSocket, the 101 handshake answer)",
    "payload_bytes": "UTF-8 bytes of the token text itself",
    "framing_bytes": "bytes_received - head_bytes - payload_bytes (event fields, chunk "
    "sizes, frame headers, the final done event or close frame)",
    "bytes_per_token": "bytes_received / tokens (likewise framing_ and payload_bytes_per_token)",
    "client_bytes_sent": "bytes the client sent: request, and WebSocket close frames",
    "first_text_before_generation_end_all_runs": "in every run, the first text reached the "
    "client before the server generated the last token (..._after_...: only after it)",
    "server_and_client_byte_counts_agree_all_runs": "the server's count of bytes it sent "
    "equals the client's count of bytes it read, in every run: a check on the counting",
    "all_runs_complete": "every run ended the way its protocol marks a full stream (whole "
    "body, the done event with the right count, or close code 1000)",
    "tokens_shown_before_leaving": "tokens the client had received when it left",
    "tokens_generated": "tokens the server generated in all",
    "tokens_generated_after_leave": "tokens the server generated after the client closed",
    "detection_latency_ms": "client closed to server noticed; null when it never noticed",
    "runs_detected": "runs in which the server noticed the reader had left",
    "max_tokens_generated_after_detection": "0 means the server stopped the moment it knew",
    "server_outcomes": "how the server's handler ended: complete, reader_left or error",
    "generation_words_per_s": "generation rate converted with parameters.words_per_token",
    "reader_stalled_ms": "time the modelled reader spent waiting for the next token after "
    "it had started reading",
    "reader_finished_ms": "request start to the modelled reader finishing the last token",
    "reader_finished_if_whole_ms": "the same reader, had the same tokens arrived together "
    "with the last one (as one whole response would): derived from the measured arrivals",
    "reader_done_after_last_text_ms": "how long the reader keeps reading after the last "
    "token arrived: positive when the model writes faster than the reader reads",
}


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def _median(values: Sequence[float]) -> float:
    return round(statistics.median(values), 3)


def _spread(values: Sequence[float]) -> dict[str, float]:
    """Median, min and max of one metric over the repeats."""
    return {"median": _median(values), "min": round(min(values), 3), "max": round(max(values), 3)}


class Bench:
    """The server and proxy for one measurement, and a counter for request ids."""

    def __init__(self, server: StreamingServer, proxy: BufferingProxy) -> None:
        self.server = server
        self.proxy = proxy
        self._next = 0

    def run(
        self,
        route: Route,
        source: TokenSource,
        *,
        detect: str = "watch",
        leave_after_s: float | None = None,
    ) -> tuple[Reception, RequestRecord]:
        """One request end to end; the server's record once it has finished."""
        self._next += 1
        request_id = f"run{self._next}"
        target = request_target(
            route.way,
            tokens=source.count,
            rate_tokens_per_s=source.rate_tokens_per_s,
            request_id=request_id,
            detect=detect,
            accel_buffering_no=route.accel_buffering_no,
        )
        address = self.proxy.address if route.via_proxy else self.server.address
        reception = receive(route.way, address, target, leave_after_s=leave_after_s)
        record = self.server.record(request_id, timeout_s=source.duration_s + 30)
        return reception, record


def _delivery_run(
    reception: Reception, record: RequestRecord, source: TokenSource, p: Parameters
) -> dict[str, Any]:
    if reception.tokens != source.tokens() or record.generation_finished_at is None:
        raise RuntimeError(f"{reception.way}: tokens lost or out of order")
    start = reception.started_at
    arrivals = [t - start for t in reception.token_times]
    reading = read_along(arrivals, seconds_per_token(p.reading_words_per_s, p.words_per_token))
    assert reception.first_byte_at is not None
    framing = reception.bytes_received - reception.head_bytes - reception.payload_bytes
    return {
        "ttfb_ms": _ms(reception.first_byte_at - start),
        "time_to_first_text_ms": _ms(arrivals[0]),
        "last_text_ms": _ms(arrivals[-1]),
        "server_generation_ms": _ms(record.generation_finished_at - record.started_at),
        "first_text_minus_generation_end_ms": _ms(
            reception.token_times[0] - record.generation_finished_at
        ),
        "reader_finished_ms": _ms(reading.finished_s),
        "reader_stalled_ms": _ms(reading.stalled_s),
        "bytes_received": reception.bytes_received,
        "head_bytes": reception.head_bytes,
        "payload_bytes": reception.payload_bytes,
        "framing_bytes": framing,
        "client_bytes_sent": reception.bytes_sent,
        "server_bytes_sent": record.bytes_sent,
        "completed": reception.completed,
    }


def _summarise_delivery(runs: list[dict[str, Any]], tokens: int) -> dict[str, Any]:
    timing_keys = (
        "ttfb_ms",
        "time_to_first_text_ms",
        "last_text_ms",
        "server_generation_ms",
        "first_text_minus_generation_end_ms",
        "reader_finished_ms",
        "reader_stalled_ms",
    )
    summary: dict[str, Any] = {key: _spread([r[key] for r in runs]) for key in timing_keys}
    for key in ("bytes_received", "head_bytes", "payload_bytes", "framing_bytes"):
        summary[key] = statistics.median(r[key] for r in runs)
    summary["client_bytes_sent"] = statistics.median(r["client_bytes_sent"] for r in runs)
    summary["bytes_per_token"] = round(summary["bytes_received"] / tokens, 3)
    summary["framing_bytes_per_token"] = round(summary["framing_bytes"] / tokens, 3)
    summary["payload_bytes_per_token"] = round(summary["payload_bytes"] / tokens, 3)
    summary["first_text_before_generation_end_all_runs"] = all(
        r["first_text_minus_generation_end_ms"] < 0 for r in runs
    )
    summary["first_text_after_generation_end_all_runs"] = all(
        r["first_text_minus_generation_end_ms"] > 0 for r in runs
    )
    # The proxy forwards bytes unchanged, so this holds through it too: a check on counting.
    summary["server_and_client_byte_counts_agree_all_runs"] = all(
        r["server_bytes_sent"] == r["bytes_received"] for r in runs
    )
    summary["all_runs_complete"] = all(r["completed"] for r in runs)
    summary["runs"] = len(runs)
    return summary


def measure_delivery(bench: Bench, p: Parameters, log: Callable[[str], None]) -> dict[str, Any]:
    """Each way, direct and through the proxy, ``repeats`` times, interleaved."""
    source = TokenSource(p.rate_tokens_per_s, p.tokens)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in DELIVERY_ROUTES}
    for repeat in range(p.repeats):
        log(f"delivery: repeat {repeat + 1}/{p.repeats}")
        for name, route in DELIVERY_ROUTES.items():
            reception, record = bench.run(route, source)
            runs[name].append(_delivery_run(reception, record, source, p))
    return {name: _summarise_delivery(r, p.tokens) for name, r in runs.items()}


def measure_leaving(bench: Bench, p: Parameters, log: Callable[[str], None]) -> dict[str, Any]:
    """The reader closes ``leave_after_s`` in; what the server does about it."""
    source = TokenSource(p.rate_tokens_per_s, p.tokens)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in LEAVE_CASES}
    for repeat in range(p.repeats):
        log(f"reader leaves: repeat {repeat + 1}/{p.repeats}")
        for name, (route, detect) in LEAVE_CASES.items():
            reception, record = bench.run(
                route, source, detect=detect, leave_after_s=p.leave_after_s
            )
            if reception.left_at is None:
                raise RuntimeError(f"{name}: the stream ended before the reader left")
            detected = record.reader_left_detected_at
            runs[name].append(
                {
                    "tokens_shown_before_leaving": len(reception.tokens),
                    "tokens_generated": len(record.token_times),
                    "tokens_generated_after_leave": record.tokens_generated_after(
                        reception.left_at
                    ),
                    "detection_latency_ms": None
                    if detected is None
                    else _ms(detected - reception.left_at),
                    "tokens_generated_after_detection": 0
                    if detected is None
                    else record.tokens_generated_after(detected),
                    "server_outcome": record.outcome,
                }
            )
    return {name: _summarise_leaving(r) for name, r in runs.items()}


def _summarise_leaving(runs: list[dict[str, Any]]) -> dict[str, Any]:
    latencies = [r["detection_latency_ms"] for r in runs if r["detection_latency_ms"] is not None]
    outcomes = sorted({r["server_outcome"] for r in runs})
    return {
        "tokens_shown_before_leaving": statistics.median(
            r["tokens_shown_before_leaving"] for r in runs
        ),
        "tokens_generated": statistics.median(r["tokens_generated"] for r in runs),
        "tokens_generated_after_leave": _spread([r["tokens_generated_after_leave"] for r in runs]),
        "detection_latency_ms": _spread(latencies) if latencies else None,
        "runs_detected": len(latencies),
        "max_tokens_generated_after_detection": max(
            r["tokens_generated_after_detection"] for r in runs
        ),
        "server_outcomes": outcomes,
        "runs": len(runs),
    }


def measure_reading(bench: Bench, p: Parameters, log: Callable[[str], None]) -> dict[str, Any]:
    """SSE arrivals at several generation rates, read by the modelled reader."""
    token_s = seconds_per_token(p.reading_words_per_s, p.words_per_token)
    result: dict[str, Any] = {}
    for rate in p.sweep_rates_tokens_per_s:
        source = TokenSource(rate, max(2, round(rate * p.sweep_duration_s)))
        log(f"reading vs generation: {rate:g} tokens/s, {source.count} tokens")
        runs = []
        for _ in range(p.sweep_repeats):
            reception, _record = bench.run(Route("sse"), source)
            arrivals = [t - reception.started_at for t in reception.token_times]
            reading = read_along(arrivals, token_s)
            runs.append(
                {
                    "time_to_first_text_ms": _ms(arrivals[0]),
                    "last_text_ms": _ms(arrivals[-1]),
                    "reader_finished_ms": _ms(reading.finished_s),
                    "reader_stalled_ms": _ms(reading.stalled_s),
                    "reader_done_after_last_text_ms": _ms(reading.finished_s - arrivals[-1]),
                    "reader_finished_if_whole_ms": _ms(
                        read_along([arrivals[-1]] * len(arrivals), token_s).finished_s
                    ),
                }
            )
        result[f"{rate:g}_tokens_per_s"] = {
            "generation_rate_tokens_per_s": rate,
            "generation_words_per_s": round(rate * p.words_per_token, 3),
            "tokens": source.count,
            **{key: _median([r[key] for r in runs]) for key in runs[0]},
            "runs": len(runs),
        }
    return result


def machine() -> dict[str, Any]:
    """Where the figures were measured: a page that quotes them must say so."""
    return {
        "platform": platform.platform(),
        "cpu_model": _cpu_model(),
        "logical_cpus": os.cpu_count(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "network": "loopback (127.0.0.1); server, proxy and clients are threads of one process",
    }


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def measure(p: Parameters, log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Run all three sections and return the result document."""
    started = datetime.datetime.now(datetime.UTC)
    with StreamingServer() as server, BufferingProxy(server.address) as proxy:
        bench = Bench(server, proxy)
        delivery = measure_delivery(bench, p, log)
        leaving = measure_leaving(bench, p, log)
        reading = measure_reading(bench, p, log)
    token_s = seconds_per_token(p.reading_words_per_s, p.words_per_token)
    main_source = TokenSource(p.rate_tokens_per_s, p.tokens)
    return {
        "experiment": "streaming",
        "question": (
            "Streaming does not make generation faster; it changes when the reader gets the "
            "first text. Measured: time to first text, bytes per token, what the server does "
            "when the reader leaves, and what a buffering proxy does to a stream."
        ),
        "code": "scripts/experiments/streaming/ (rerun: make experiments)",
        "measured_at": started.isoformat(timespec="seconds"),
        "machine": machine(),
        "parameters": {
            **dataclasses.asdict(p),
            "reading_words_per_s_source": READING_SOURCE,
            "words_per_token_source": (
                "an input, not a measurement: it depends on the tokenizer and the language. "
                "The token source here emits whole words; the reader model converts tokens "
                "to words with this factor"
            ),
            "token_schedule": "token i is generated (i + 1) / rate_tokens_per_s seconds in",
            "repeats_note": "timings are the median (and min, max) over repeats",
        },
        "derived": {
            "reader_tokens_per_s": round(1 / token_s, 3),
            "first_token_due_ms": _ms(main_source.due_s(0)),
            "generation_duration_s": round(main_source.duration_s, 3),
        },
        "sections": SECTIONS,
        "definitions": DEFINITIONS,
        "delivery": delivery,
        "reader_leaves": leaving,
        "reading_vs_generation": reading,
        "notes": NOTES,
    }


NOTES = [
    "Loopback has no propagation delay and no packet loss: the differences between the "
    "ways here are protocol and buffering, not network. Over a real network every "
    "arrival shifts by the path's latency.",
    "Byte counts are what the application reads from the socket; TCP/IP headers are not "
    "included. Each streamed token is written as one send with TCP_NODELAY set, so on a "
    "real link it can travel in a TCP segment of its own and pay that segment's headers "
    "too; that cost is not measured here.",
    "SSE events here carry the bare token text; production APIs usually wrap each token "
    "in JSON, which multiplies the bytes per token.",
    "The buffering proxy holds the whole response, the simplest form of response "
    "buffering; real proxies hold up to their buffer sizes. A response carrying "
    "X-Accel-Buffering: no is relayed as it arrives, as nginx does unless configured to "
    "ignore that header (proxy_ignore_headers).",
    "The proxy watches the reader's socket while it holds a response and drops the "
    "upstream connection when the reader leaves, so the server still finds out.",
    "detect=watch: the server waits for the next token with select() on the socket and "
    "stops the moment the reader's close arrives. detect=write: the server only finds out "
    "from a failed write; a whole response, written once at the end, is fully generated.",
    "Reading speed and words per token are inputs of a reader model; token arrivals are measured.",
    "The machine has 2 logical CPUs shared with other work running at the same time; "
    "medians over repeats damp that noise but do not remove it. Differences of a few "
    "milliseconds between ways are within it.",
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny run, for tests")
    parser.add_argument("--out", type=Path, default=RESULT_PATH, help="result file to write")
    parser.add_argument("--repeats", type=int, help="override the number of repeats")
    args = parser.parse_args(argv)
    params = QUICK if args.quick else Parameters()
    if args.repeats is not None:
        params = dataclasses.replace(params, repeats=args.repeats)
    result = measure(params, log=lambda line: print(line, file=sys.stderr, flush=True))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
