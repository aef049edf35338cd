"""The streaming server, proxy and clients, end to end on loopback.

Runs are short (tens of tokens at hundreds of tokens per second). Every timing assertion
compares two events on one clock (``time.monotonic`` is shared by the server threads and
the client), e.g. "the first token reached the client before the server generated the
last one"; none compares a duration with a fixed threshold.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from experiments.streaming import measure
from experiments.streaming.client import Reception
from experiments.streaming.measure import Bench, Route
from experiments.streaming.proxy import BufferingProxy
from experiments.streaming.server import RequestRecord, StreamingServer
from experiments.streaming.tokens import TokenSource
from experiments.streaming.websocket import OP_CLOSE, close_payload, encode_frame, new_key
from experiments.streaming.wire import CountingReader, read_head

SOURCE = TokenSource(rate_tokens_per_s=200.0, count=24)  # 120 ms of generation
LONG = TokenSource(rate_tokens_per_s=200.0, count=2000)  # 10 s unless someone stops it
LEAVE_AFTER_S = 0.05
WAYS = ["whole", "sse", "websocket"]


@pytest.fixture(scope="module")
def bench() -> Iterator[Bench]:
    with StreamingServer() as server, BufferingProxy(server.address) as proxy:
        yield Bench(server, proxy)


def _run(
    bench: Bench,
    route: Route,
    source: TokenSource = SOURCE,
    *,
    detect: str = "watch",
    leave_after_s: float | None = None,
) -> tuple[Reception, RequestRecord]:
    return bench.run(route, source, detect=detect, leave_after_s=leave_after_s)


@pytest.mark.parametrize("way", WAYS)
def test_every_way_delivers_all_tokens_in_order(bench: Bench, way: str) -> None:
    reception, record = _run(bench, Route(way))
    assert reception.tokens == SOURCE.tokens()
    assert reception.completed and record.outcome == "complete"
    assert len(record.token_times) == SOURCE.count
    # Client and server count the same bytes: nothing on the wire escapes the count.
    assert reception.bytes_received == record.bytes_sent


@pytest.mark.parametrize("way", ["sse", "websocket"])
def test_streaming_shows_first_token_before_generation_ends(bench: Bench, way: str) -> None:
    reception, record = _run(bench, Route(way))
    assert record.generation_finished_at is not None
    assert reception.token_times[0] < record.generation_finished_at
    # ...and no token is shown before the server generated it.
    assert all(
        shown >= made for shown, made in zip(reception.token_times, record.token_times, strict=True)
    )


def test_whole_response_shows_nothing_before_generation_ends(bench: Bench) -> None:
    reception, record = _run(bench, Route("whole"))
    assert record.generation_finished_at is not None and reception.first_byte_at is not None
    assert reception.first_byte_at > record.generation_finished_at


@pytest.mark.parametrize("way", ["whole", "sse"])
def test_buffering_proxy_holds_the_first_byte_until_the_end(bench: Bench, way: str) -> None:
    reception, record = _run(bench, Route(way, via_proxy=True))
    assert reception.tokens == SOURCE.tokens() and reception.completed
    assert record.generation_finished_at is not None and reception.first_byte_at is not None
    assert reception.first_byte_at > record.generation_finished_at


def test_proxy_relays_a_response_that_opts_out_of_buffering(bench: Bench) -> None:
    reception, record = _run(bench, Route("sse", via_proxy=True, accel_buffering_no=True))
    assert reception.tokens == SOURCE.tokens()
    assert record.generation_finished_at is not None
    assert reception.token_times[0] < record.generation_finished_at


@pytest.mark.parametrize(
    "route",
    [Route("whole"), Route("sse"), Route("websocket"), Route("sse", via_proxy=True)],
    ids=["whole", "sse", "websocket", "sse-via-proxy"],
)
def test_reader_leaving_stops_generation(bench: Bench, route: Route) -> None:
    reception, record = _run(bench, route, LONG, leave_after_s=LEAVE_AFTER_S)
    assert reception.left_at is not None
    assert record.outcome == "reader_left"
    assert record.reader_left_detected_at is not None
    assert record.reader_left_detected_at >= reception.left_at
    assert len(record.token_times) < LONG.count
    assert record.tokens_generated_after(record.reader_left_detected_at) == 0


def test_write_only_detection_generates_a_whole_response_for_nobody(bench: Bench) -> None:
    source = TokenSource(rate_tokens_per_s=600.0, count=30)
    reception, record = _run(bench, Route("whole"), source, detect="write", leave_after_s=0.01)
    assert reception.left_at is not None and reception.tokens == []
    assert len(record.token_times) == source.count
    assert record.tokens_generated_after(reception.left_at) > 0


def _raw_request(address: tuple[str, int], request: bytes) -> tuple[int, socket.socket]:
    sock = socket.create_connection(address, timeout=5)
    sock.sendall(request)
    return read_head(CountingReader(sock, timeout_s=5)).status, sock


@pytest.mark.parametrize(
    ("target", "status"),
    [("/nowhere", 404), ("/sse?tokens=0", 400), ("/sse?detect=never", 400), ("/ws", 400)],
)
def test_server_refuses_bad_requests(bench: Bench, target: str, status: int) -> None:
    request = f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
    got, sock = _raw_request(bench.server.address, request)
    sock.close()
    assert got == status


def test_server_fails_a_websocket_client_that_does_not_mask(bench: Bench) -> None:
    request = (
        f"GET /ws?tokens=2000&rate=200&id=unmasked HTTP/1.1\r\nHost: x\r\n"
        f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {new_key()}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n"
    ).encode()
    status, sock = _raw_request(bench.server.address, request)
    with sock:
        assert status == 101
        sock.sendall(encode_frame(OP_CLOSE, close_payload(1000)))  # no mask: forbidden
        record = bench.server.record("unmasked")
    assert record.outcome == "error"
    assert len(record.token_times) < 2000


def test_measure_quick_writes_a_complete_result_file(tmp_path: Path) -> None:
    out = tmp_path / "streaming.json"
    assert measure.main(["--quick", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert {"machine", "parameters", "measured_at", "delivery", "reader_leaves"} <= set(result)
    delivery = result["delivery"]
    assert set(delivery) == set(measure.DELIVERY_ROUTES)
    assert delivery["sse"]["first_text_before_generation_end_all_runs"]
    assert delivery["websocket"]["first_text_before_generation_end_all_runs"]
    assert delivery["whole"]["first_text_after_generation_end_all_runs"]
    assert delivery["sse_via_buffering_proxy"]["first_text_after_generation_end_all_runs"]
    assert all(d["server_and_client_byte_counts_agree_all_runs"] for d in delivery.values())
    assert result["reader_leaves"]["sse_detect_watch"]["max_tokens_generated_after_detection"] == 0
    assert len(result["reading_vs_generation"]) == len(measure.QUICK.sweep_rates_tokens_per_s)
