"""Clients that receive the tokens one of three ways and time and count everything.

Each client opens a plain socket, so ``Reception.bytes_received`` is every byte the
server (or proxy) sent on that connection: status line, headers, chunk sizes, event
fields, WebSocket frame headers, close frames. TCP/IP headers below that are not counted.
A client can leave at a set moment (``leave_after_s``): an HTTP client just closes the
socket; the WebSocket client first sends a close frame with code 1001 ("going away"), as
a browser does when the page goes away.
"""

from __future__ import annotations

import codecs
import os
import socket
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode

from experiments.streaming.tokens import MAX_TOKENS, split_tokens
from experiments.streaming.websocket import (
    CLOSE_GOING_AWAY,
    CLOSE_NORMAL,
    OP_CLOSE,
    OP_TEXT,
    ProtocolError,
    accept_key,
    close_payload,
    encode_frame,
    new_key,
    parse_close,
    read_frame,
)
from experiments.streaming.wire import (
    CountingReader,
    DeadlineReached,
    SSEParser,
    WireError,
    iter_body,
    read_head,
)

WAYS = ("whole", "sse", "websocket")
_PATHS = {"whole": "/whole", "sse": "/sse", "websocket": "/ws"}
TIMEOUT_S = 30.0  # longest silence a client tolerates before it calls the run broken
MAX_EXTRA_FRAMES = 16  # frames beyond one per token that a client will read
EOF_WAIT_S = 2.0  # how long the WebSocket client waits for the server's TCP close


@dataclass
class Reception:
    """What one client received, stamped with ``time.monotonic()``."""

    way: str
    started_at: float
    status: int = 0
    head_bytes: int = 0
    bytes_received: int = 0
    bytes_sent: int = 0
    first_byte_at: float | None = None
    tokens: list[str] = field(default_factory=list)
    token_times: list[float] = field(default_factory=list)
    finished_at: float | None = None
    left_at: float | None = None
    completed: bool = False  # the stream ended the way its protocol says a full one ends

    @property
    def text(self) -> str:
        return "".join(self.tokens)

    @property
    def payload_bytes(self) -> int:
        """Bytes of token text: what the reader wanted, as opposed to what it was sent."""
        return len(self.text.encode("utf-8"))


def request_target(
    way: str,
    *,
    tokens: int,
    rate_tokens_per_s: float,
    request_id: str,
    detect: str = "watch",
    accel_buffering_no: bool = False,
) -> str:
    """The path and query that ask the server for ``tokens`` at ``rate_tokens_per_s``."""
    query = {"tokens": tokens, "rate": repr(rate_tokens_per_s), "id": request_id}
    query["detect"] = detect
    if accel_buffering_no:
        query["accel_buffering"] = "no"
    return f"{_PATHS[way]}?{urlencode(query)}"


def receive(
    way: str,
    address: tuple[str, int],
    target: str,
    *,
    leave_after_s: float | None = None,
) -> Reception:
    """Request ``target`` from ``address`` and receive it the given ``way``.

    ``address`` may be the server or the proxy in front of it. With ``leave_after_s`` the
    client leaves that many seconds after it started, if the stream has not ended by then.
    """
    if way not in WAYS:
        raise ValueError(f"way must be one of {WAYS}")
    reception = Reception(way, time.monotonic())
    deadline = None if leave_after_s is None else reception.started_at + leave_after_s
    with socket.create_connection(address, timeout=TIMEOUT_S) as sock:
        reader = CountingReader(sock, timeout_s=TIMEOUT_S, deadline=deadline)
        key = new_key()
        request = _request_bytes(way, address, target, key)
        sock.sendall(request)
        reception.bytes_sent += len(request)
        try:
            if way == "websocket":
                _receive_websocket(sock, reader, reception, key)
            else:
                _receive_http(way, reader, reception)
        except DeadlineReached:
            reception.left_at = time.monotonic()
            if way == "websocket":
                going_away = close_payload(CLOSE_GOING_AWAY)
                _send(sock, reception, encode_frame(OP_CLOSE, going_away, mask_key=os.urandom(4)))
        finally:
            reception.bytes_received = reader.bytes_received
            reception.first_byte_at = reader.first_byte_at
    return reception


def _request_bytes(way: str, address: tuple[str, int], target: str, key: str) -> bytes:
    host = f"{address[0]}:{address[1]}"
    lines = [f"GET {target} HTTP/1.1", f"Host: {host}"]
    if way == "websocket":
        lines += [
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
        ]
    else:
        lines += ["Accept: text/event-stream" if way == "sse" else "Accept: */*"]
        lines += ["Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")


def _send(sock: socket.socket, reception: Reception, data: bytes) -> None:
    try:
        sock.sendall(data)
    except OSError:
        return  # the server already closed; nothing left to tell it
    reception.bytes_sent += len(data)


def _receive_http(way: str, reader: CountingReader, reception: Reception) -> None:
    head = read_head(reader)
    reception.status, reception.head_bytes = head.status, head.wire_bytes
    if head.status != 200:
        raise WireError(f"HTTP {head.status}")
    if way == "whole":
        decoder = codecs.getincrementaldecoder("utf-8")()
        text = "".join(decoder.decode(data) for data in iter_body(reader, head))
        arrived = reader.last_recv_at or time.monotonic()
        # A whole response is usable when its last byte is in: Content-Length says when.
        reception.tokens = split_tokens(text + decoder.decode(b"", final=True))
        reception.token_times = [arrived] * len(reception.tokens)
        reception.finished_at, reception.completed = arrived, True
        return
    parser = SSEParser()
    for data in iter_body(reader, head):
        arrived = reader.last_recv_at or time.monotonic()
        for event in parser.feed(data):
            if event.event == "done":
                reception.finished_at = arrived
                reception.completed = event.data == str(len(reception.tokens))
            else:
                reception.tokens.append(event.data)
                reception.token_times.append(arrived)


def _receive_websocket(
    sock: socket.socket, reader: CountingReader, reception: Reception, key: str
) -> None:
    head = read_head(reader)
    reception.status, reception.head_bytes = head.status, head.wire_bytes
    if head.status != 101:
        raise WireError(f"HTTP {head.status}, expected 101")
    if head.headers.get("sec-websocket-accept") != accept_key(key):
        raise ProtocolError("Sec-WebSocket-Accept does not match our key")
    max_frames = MAX_TOKENS + MAX_EXTRA_FRAMES
    for _ in range(max_frames):
        frame = read_frame(reader.read_exact, expect_masked=False)
        if frame.opcode == OP_TEXT:
            reception.tokens.append(frame.payload.decode("utf-8"))
            reception.token_times.append(reader.last_recv_at or time.monotonic())
        elif frame.opcode == OP_CLOSE:
            reception.finished_at = reader.last_recv_at
            code = parse_close(frame.payload)
            reception.completed = code == CLOSE_NORMAL
            reply = close_payload(code) if code is not None else b""
            _send(sock, reception, encode_frame(OP_CLOSE, reply, mask_key=os.urandom(4)))
            _await_eof(reader)
            return
    raise ProtocolError(f"no close frame within {max_frames} frames")


def _await_eof(reader: CountingReader) -> None:
    """After the close handshake the server closes TCP first (RFC 6455, 7.1.1)."""
    reader.timeout_s = EOF_WAIT_S
    deadline = time.monotonic() + EOF_WAIT_S
    try:
        while time.monotonic() < deadline and reader.read_some(65536):
            pass
    except (TimeoutError, ConnectionError):
        return  # the stream is already complete; a slow or rough close changes nothing
