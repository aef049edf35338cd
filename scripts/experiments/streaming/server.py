"""One HTTP server, three ways to deliver the same tokens, and a record of what it saw.

``/whole`` answers with one response carrying a ``Content-Length``, so nothing can be sent
before the last token exists. ``/sse`` sends the headers at once and then one
server-sent event per token (``data: <token>``) in its own HTTP/1.1 chunk, closing with an
``event: done`` whose data is the token count. ``/ws`` upgrades to a WebSocket and sends one
text frame per token, then a close frame (code 1000). Query parameters: ``tokens``,
``rate`` (tokens/s), ``id`` (names the record), ``detect`` and ``accel_buffering=no`` (adds
the ``X-Accel-Buffering: no`` header, nginx's per-response switch for proxy buffering).

Noticing that the reader left is the point of ``detect``:

- ``watch`` (default): between tokens the server waits on the socket with ``select``, so
  a closed connection (or a WebSocket close frame) wakes it at once, the way an async
  server that listens for disconnects behaves.
- ``write``: the server only learns from a failed write. After the reader closes, the
  first write usually still succeeds (the kernel accepts it; the peer answers with a
  reset) and a later one fails; a whole response, written once at the end, never fails.

Every request leaves a ``RequestRecord``: when each token was generated, when generation
finished, when the departure was detected, and bytes sent. Clients in the same process
compare those ``time.monotonic`` stamps with their own.
"""

from __future__ import annotations

import select
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from experiments.streaming.background import Background
from experiments.streaming.tokens import TokenSource
from experiments.streaming.websocket import (
    CLOSE_NORMAL,
    OP_CLOSE,
    OP_TEXT,
    ProtocolError,
    close_payload,
    encode_frame,
    read_frame,
    validate_upgrade,
)

PATHS = {"/whole": "whole", "/sse": "sse", "/ws": "websocket"}
DETECT_MODES = ("watch", "write")
SOCKET_TIMEOUT_S = 10.0  # a stuck reader cannot hold a handler thread longer than this
CLOSE_REPLY_TIMEOUT_S = 2.0  # how long to wait for the client's answer to our close frame
MAX_WAKEUPS_PER_TOKEN = 1000  # bounds the watch loop if a reader keeps sending bytes
MAX_CLOSE_REPLY_FRAMES = 16
MAX_RECORDS = 10_000
_DISCONNECTS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


class ReaderLeft(Exception):
    """The reader closed the connection or sent a WebSocket close frame mid-stream."""


@dataclass
class RequestRecord:
    """What the server did for one request, stamped with ``time.monotonic()``."""

    request_id: str
    mode: str
    detect: str
    tokens_requested: int
    rate_tokens_per_s: float
    started_at: float
    token_times: list[float] = field(default_factory=list)
    generation_finished_at: float | None = None
    reader_left_detected_at: float | None = None
    outcome: str = "running"  # then "complete", "reader_left" or "error"
    bytes_sent: int = 0
    done: threading.Event = field(default_factory=threading.Event, repr=False)

    def tokens_generated_after(self, moment: float) -> int:
        """Tokens generated later than ``moment``: work done for a reader who had gone."""
        return sum(1 for t in self.token_times if t > moment)


@dataclass(frozen=True)
class _Request:
    """Validated query parameters."""

    source: TokenSource
    request_id: str
    detect: str
    accel_buffering_no: bool

    @classmethod
    def parse(cls, query: str) -> _Request:
        params = {k: v[-1] for k, v in parse_qs(query).items()}
        detect = params.get("detect", "watch")
        if detect not in DETECT_MODES:
            raise ValueError(f"detect must be one of {DETECT_MODES}")
        try:
            source = TokenSource(float(params.get("rate", "20")), int(params.get("tokens", "20")))
        except ValueError as error:
            raise ValueError(f"bad tokens or rate: {error}") from None
        request_id = params.get("id") or uuid.uuid4().hex
        return cls(source, request_id, detect, params.get("accel_buffering") == "no")


class _Server(ThreadingHTTPServer):
    """Holds the records; handlers run on daemon threads."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int]) -> None:
        super().__init__(address, _Handler)
        self.records: dict[str, RequestRecord] = {}
        self.changed = threading.Condition()

    def open_record(self, request: _Request, mode: str) -> RequestRecord:
        record = RequestRecord(
            request.request_id,
            mode,
            request.detect,
            request.source.count,
            request.source.rate_tokens_per_s,
            time.monotonic(),
        )
        with self.changed:
            if record.request_id in self.records:
                raise ValueError(f"request id {record.request_id!r} already used")
            while len(self.records) >= MAX_RECORDS:
                del self.records[next(iter(self.records))]
            self.records[record.request_id] = record
            self.changed.notify_all()
        return record

    def close_record(self, record: RequestRecord) -> None:
        record.done.set()
        with self.changed:
            self.changed.notify_all()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Unbuffered reads: bytes the reader sends mid-stream stay in the socket, where
    # select() in the watch loop can see them, instead of hiding in a Python buffer.
    rbufsize = 0
    timeout = SOCKET_TIMEOUT_S
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Each token leaves as soon as it is written, not when Nagle's algorithm allows.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._record: RequestRecord | None = None

    def log_message(self, format: str, *args: object) -> None:
        """Silent: the experiment's output is its result file, not an access log."""

    def flush_headers(self) -> None:
        """Count header bytes into the record before they go out."""
        if self._record is not None:
            self._record.bytes_sent += sum(len(b) for b in getattr(self, "_headers_buffer", []))
        super().flush_headers()

    def _write(self, data: bytes) -> None:
        self.wfile.write(data)
        if self._record is not None:
            self._record.bytes_sent += len(data)

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        mode = PATHS.get(url.path)
        if mode is None:
            self.send_error(404, "paths: " + ", ".join(PATHS))
            return
        try:
            request = _Request.parse(url.query)
            accept = validate_upgrade(self._lower_headers()) if mode == "websocket" else ""
            self._record = record = self.server.open_record(request, mode)
        except (ValueError, ProtocolError) as error:
            self.send_error(400, str(error))
            return
        try:
            if mode == "whole":
                self._serve_whole(request, record)
            elif mode == "sse":
                self._serve_sse(request, record)
            else:
                self._serve_websocket(request, record, accept)
            record.outcome = "complete"
        except (ReaderLeft, *_DISCONNECTS):
            record.outcome = "reader_left"
            record.reader_left_detected_at = time.monotonic()
        except (OSError, ProtocolError):
            record.outcome = "error"
        finally:
            self.close_connection = True
            self.server.close_record(record)

    def _lower_headers(self) -> dict[str, str]:
        return {name.lower(): value for name, value in self.headers.items()}

    def _generate(self, request: _Request, emit: Callable[[str], None]) -> None:
        """Produce every token on schedule and hand it to ``emit``; raise if the reader left."""
        record = self._record
        assert record is not None
        source = request.source
        for index in range(source.count):
            self._wait_until(record.started_at + source.due_s(index), request.detect)
            record.token_times.append(time.monotonic())
            emit(source.token(index))
        record.generation_finished_at = record.token_times[-1]

    def _wait_until(self, deadline: float, detect: str) -> None:
        if detect == "write":
            time.sleep(max(0.0, deadline - time.monotonic()))
            return
        for _ in range(MAX_WAKEUPS_PER_TOKEN):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            readable, _, _ = select.select([self.connection], [], [], remaining)
            if readable:
                self._on_readable()
        raise ProtocolError("the reader kept sending data mid-stream")

    def _on_readable(self) -> None:
        """The reader sent something mid-stream: a close, a departure, or bytes to drop."""
        if self._record is not None and self._record.mode == "websocket":
            try:
                frame = read_frame(self._recv_exact, expect_masked=True)
            except _DISCONNECTS as error:
                raise ReaderLeft from error
            if frame.opcode == OP_CLOSE:
                raise ReaderLeft
            return
        try:
            data = self.connection.recv(4096)
        except _DISCONNECTS as error:
            raise ReaderLeft from error
        if not data:
            raise ReaderLeft

    def _recv_exact(self, n: int) -> bytes:
        data = bytearray()
        while len(data) < n:  # bounded: each pass receives at least one byte or raises
            chunk = self.connection.recv(n - len(data))
            if not chunk:
                raise ReaderLeft
            data += chunk
        return bytes(data)

    def _serve_whole(self, request: _Request, record: RequestRecord) -> None:
        tokens: list[str] = []
        self._generate(request, tokens.append)
        body = "".join(tokens).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self._write(body)

    def _serve_sse(self, request: _Request, record: RequestRecord) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        if request.accel_buffering_no:
            self.send_header("X-Accel-Buffering", "no")
        self.end_headers()
        self._generate(request, lambda token: self._write_chunk(f"data: {token}\n\n"))
        self._write_chunk(f"event: done\ndata: {request.source.count}\n\n")
        self._write(b"0\r\n\r\n")

    def _write_chunk(self, text: str) -> None:
        """One event in one HTTP/1.1 chunk, written at once so it travels as one segment."""
        payload = text.encode("utf-8")
        self._write(b"%x\r\n%s\r\n" % (len(payload), payload))

    def _serve_websocket(self, request: _Request, record: RequestRecord, accept: str) -> None:
        self.send_response(101, "Switching Protocols")
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept)
        self.end_headers()
        self._generate(
            request, lambda token: self._write(encode_frame(OP_TEXT, token.encode("utf-8")))
        )
        self._write(encode_frame(OP_CLOSE, close_payload(CLOSE_NORMAL)))
        self._await_close_reply()

    def _await_close_reply(self) -> None:
        """Give the client a moment to answer our close frame before the TCP close (5.5.1)."""
        deadline = time.monotonic() + CLOSE_REPLY_TIMEOUT_S
        for _ in range(MAX_CLOSE_REPLY_FRAMES):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.connection], [], [], remaining)[0]:
                return
            try:
                frame = read_frame(self._recv_exact, expect_masked=True)
            except (ReaderLeft, *_DISCONNECTS):
                return
            if frame.opcode == OP_CLOSE:
                return


class StreamingServer(Background):
    """The token server on a loopback port, with its records; use as a context manager."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._http = _Server((host, port))
        super().__init__(self._http)

    def record(self, request_id: str, timeout_s: float = 10.0) -> RequestRecord:
        """The finished record for ``request_id``; ``TimeoutError`` if it does not finish."""
        records = self._http.records

        def finished() -> bool:
            return request_id in records and records[request_id].done.is_set()

        with self._http.changed:
            if not self._http.changed.wait_for(finished, timeout_s):
                raise TimeoutError(f"request {request_id!r} did not finish in {timeout_s} s")
            return records[request_id]
