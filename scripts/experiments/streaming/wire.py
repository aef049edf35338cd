"""Reading HTTP responses off a socket while counting every byte and timing every arrival.

``http.client`` would hide exactly what the experiment measures (header bytes, chunk
framing, when each piece arrived), so the clients read the wire themselves through
``CountingReader``. It receives only when the parser needs more, so the moment of the
latest ``recv`` is when the bytes just parsed arrived (to within one ``recv``).
"""

from __future__ import annotations

import codecs
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass

RECV_BYTES = 65536
MAX_HEAD_BYTES = 64 * 1024
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
MAX_TRAILER_LINES = 100


class WireError(Exception):
    """The peer sent something this reader cannot parse, or closed too early."""


class DeadlineReached(Exception):
    """The reader's deadline passed while it waited for bytes (the client chose to leave)."""


class CountingReader:
    """A buffered socket reader that counts bytes received and stamps each ``recv``.

    With a ``deadline`` (a ``time.monotonic()`` value) a wait for bytes that would run past
    it raises ``DeadlineReached`` instead: this is how a client leaves mid-stream at a set
    moment, whatever it is blocked on.
    """

    def __init__(
        self,
        sock: socket.socket,
        *,
        timeout_s: float,
        deadline: float | None = None,
        max_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self._sock = sock
        self.timeout_s = timeout_s
        self._deadline = deadline
        self._buffer = bytearray()
        self._max_bytes = max_bytes
        self.bytes_received = 0
        self.first_byte_at: float | None = None
        self.last_recv_at: float | None = None
        self.eof = False

    def _fill(self) -> bool:
        """Receive once; False at end of stream. Socket timeouts propagate to the caller."""
        if self.eof:
            return False
        wait_s = self.timeout_s
        if self._deadline is not None:
            wait_s = min(wait_s, self._deadline - time.monotonic())
            if wait_s <= 0:
                raise DeadlineReached
        self._sock.settimeout(wait_s)
        try:
            chunk = self._sock.recv(RECV_BYTES)
        except TimeoutError:
            if self._deadline is not None and time.monotonic() >= self._deadline:
                raise DeadlineReached from None
            raise
        now = time.monotonic()
        if not chunk:
            self.eof = True
            return False
        self.bytes_received += len(chunk)
        if self.bytes_received > self._max_bytes:
            raise WireError(f"response exceeds {self._max_bytes} bytes")
        if self.first_byte_at is None:
            self.first_byte_at = now
        self.last_recv_at = now
        self._buffer += chunk
        return True

    def read_until(self, delimiter: bytes, limit: int) -> bytes:
        """Bytes up to and including ``delimiter``; at most ``limit`` bytes are searched."""
        while True:
            end = self._buffer.find(delimiter)
            if end >= 0:
                return self._take(end + len(delimiter))
            if len(self._buffer) > limit:
                raise WireError(f"no {delimiter!r} within {limit} bytes")
            if not self._fill():
                raise WireError(f"stream ended before {delimiter!r}")

    def read_exact(self, n: int) -> bytes:
        """Exactly ``n`` bytes, or ``WireError`` if the stream ends first."""
        while len(self._buffer) < n:
            if not self._fill():
                raise WireError(f"stream ended {n - len(self._buffer)} bytes short")
        return self._take(n)

    def read_some(self, limit: int) -> bytes:
        """Up to ``limit`` bytes: what is buffered, else one ``recv``; b'' at end of stream."""
        if not self._buffer and not self._fill():
            return b""
        return self._take(min(limit, len(self._buffer)))

    def _take(self, n: int) -> bytes:
        data = bytes(self._buffer[:n])
        del self._buffer[:n]
        return data


@dataclass(frozen=True)
class ResponseHead:
    """Status line and headers (names lower-cased); ``wire_bytes`` includes the blank line."""

    status: int
    headers: dict[str, str]
    wire_bytes: int


def parse_head(raw: bytes) -> ResponseHead:
    """Parse a response head that ends with CRLF CRLF."""
    lines = raw.decode("iso-8859-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise WireError(f"bad status line {lines[0]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise WireError(f"bad header line {line!r}")
        headers[name.strip().lower()] = value.strip()
    return ResponseHead(int(parts[1]), headers, len(raw))


def read_head(reader: CountingReader) -> ResponseHead:
    """Read and parse the response head."""
    return parse_head(reader.read_until(b"\r\n\r\n", MAX_HEAD_BYTES))


def iter_body(reader: CountingReader, head: ResponseHead) -> Iterator[bytes]:
    """Yield body bytes as they arrive, undoing chunked encoding; framing is in the count.

    Handles the three ways HTTP/1.1 delimits a body: ``Content-Length``, ``chunked``, or
    the connection closing.
    """
    if head.headers.get("transfer-encoding", "").lower() == "chunked":
        yield from _iter_chunked(reader)
    elif "content-length" in head.headers:
        remaining = int(head.headers["content-length"])
        while remaining > 0:
            data = reader.read_some(remaining)
            if not data:
                raise WireError(f"body ended {remaining} bytes short")
            remaining -= len(data)
            yield data
    else:
        while data := reader.read_some(RECV_BYTES):
            yield data


def _iter_chunked(reader: CountingReader) -> Iterator[bytes]:
    """Chunks until the zero-length one, then any trailer lines up to the blank line."""
    while True:  # bounded: every pass consumes bytes, and the reader caps the total
        size_line = reader.read_until(b"\r\n", 1024)
        size = int(size_line.split(b";", 1)[0].strip(), 16)
        if size == 0:
            for _ in range(MAX_TRAILER_LINES):
                if reader.read_until(b"\r\n", MAX_HEAD_BYTES) == b"\r\n":
                    return
            raise WireError(f"more than {MAX_TRAILER_LINES} trailer lines")
        yield reader.read_exact(size)
        if reader.read_exact(2) != b"\r\n":
            raise WireError("chunk not followed by CRLF")


@dataclass(frozen=True)
class Event:
    """One dispatched server-sent event."""

    event: str
    data: str


class SSEParser:
    """Incremental parser for ``text/event-stream`` (the WHATWG HTML "event stream" rules).

    Implements what a browser's ``EventSource`` does with the fields used here: lines end
    in LF or CRLF, ``data:`` lines accumulate (joined by LF), one leading space after the
    colon is dropped, a blank line dispatches, an event with no data is not dispatched,
    and lines starting with a colon are comments.
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._pending = ""
        self._event = ""
        self._data: list[str] = []

    def feed(self, data: bytes) -> list[Event]:
        """Parse more bytes; return the events they complete."""
        self._pending += self._decoder.decode(data)
        events: list[Event] = []
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            line = line.removesuffix("\r")
            if not line:
                if self._data:
                    events.append(Event(self._event or "message", "\n".join(self._data)))
                self._event, self._data = "", []
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "data":
                self._data.append(value)
            elif field == "event":
                self._event = value
        return events
