"""A static server that behaves like a static host: compressed responses, cache headers.

Python's http.server sends files raw and with no freshness, so a browser revalidates every
file on a second visit and the bytes counted would be the uncompressed ones. A static host
(GitHub Pages, Netlify, Cloudflare Pages) compresses text and binary formats that shrink
(gzip here: the standard library has no brotli, so byte counts are if anything high), sends
an ETag and a short max-age, answers a revalidation with 304 and a missing path with the
site's 404.html (status 404). This server does the
same, compressing each file once (kept in memory), and counts the bytes it sends per
path, which is what "transferred" means in the bench.
"""

from __future__ import annotations

import email.utils
import gzip
import hashlib
import http.server
import mimetypes
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

MAX_AGE_S = 600  # what GitHub Pages sends
NOT_FOUND_PAGE = "404.html"  # served, with status 404, for any path the site does not have
GZIP_LEVEL = 6  # the usual on-the-fly level
WORTH_COMPRESSING = 0.9  # send gzip only when it saves at least 10%
# Media types a CDN compresses by default (Cloudflare's list, abridged to what a site
# serves): text, scripts, JSON, XML, SVG, fonts and wasm, but not application/octet-stream
# or archives, which a site must compress itself if it wants them small. A plain static
# host compresses text only (HOSTS): the bench measures Python's bytes on both.
TEXT_TYPES = ("text/", "application/javascript", "application/json", "application/xml",
              "application/manifest+json", "image/svg+xml", "image/x-icon", "font/")
COMPRESSED_TYPES = (*TEXT_TYPES, "application/wasm")
HOSTS = {"a host compressing text and wasm": COMPRESSED_TYPES,
         "a plain host compressing text only": TEXT_TYPES}
TYPES = {".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript",
         ".json": "application/json", ".bin": "application/octet-stream",
         ".gz": "application/gzip", ".svg": "image/svg+xml", ".xml": "application/xml",
         ".map": "application/json", ".zip": "application/zip"}


@dataclass
class Sent:
    """One response: the path asked for, its status and the bytes on the wire."""

    path: str
    status: int
    size: int


@dataclass
class Ledger:
    """Every response the server sent, in order; thread-safe."""

    sent: list[Sent] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, item: Sent) -> None:
        with self.lock:
            self.sent.append(item)

    def take(self) -> list[Sent]:
        """The responses so far, forgetting them (one measurement's worth)."""
        with self.lock:
            taken, self.sent = self.sent, []
        return taken


# Python's files, ours and the reference page's (pageload.REFERENCE_DIR): the worker's
# scripts, Pyodide's files, the sims' sources.
PYTHON = ("/assets/pyodide/", "/assets/sims/", "/bench-reference/pyodide/",
          "/assets/sim/worker.js", "/assets/sim/unpack.js", "/assets/sim/link.js")


def python_bytes(sent: list[Sent]) -> int:
    """What the responses for Python's files came to on the wire."""
    return sum(item.size for item in sent if any(part in item.path for part in PYTHON))


@dataclass(frozen=True)
class _Body:
    raw: bytes
    compressed: bytes | None
    etag: str
    modified: str


class _Files:
    """File bodies with their gzip version, computed once per file and modification."""

    def __init__(self, root: Path, compressed: tuple[str, ...]) -> None:
        self.root = root.resolve()
        self.compressed = compressed
        self.cache: dict[Path, tuple[int, _Body]] = {}
        self.lock = threading.Lock()

    def find(self, url_path: str) -> Path | None:
        relative = unquote(url_path).lstrip("/")
        path = (self.root / relative).resolve()
        if self.root not in (path, *path.parents):
            return None
        if path.is_dir():
            path = path / "index.html"
        return path if path.is_file() else None

    def body(self, path: Path) -> _Body:
        stamp = path.stat().st_mtime_ns
        with self.lock:
            cached = self.cache.get(path)
        if cached and cached[0] == stamp:
            return cached[1]
        raw = path.read_bytes()
        packed = None
        if content_type(path).startswith(self.compressed):
            packed = gzip.compress(raw, compresslevel=GZIP_LEVEL, mtime=0)
            if len(packed) >= WORTH_COMPRESSING * len(raw):
                packed = None
        body = _Body(
            raw=raw,
            compressed=packed,
            etag='"' + hashlib.sha1(raw).hexdigest()[:16] + '"',
            modified=email.utils.formatdate(stamp / 1e9, usegmt=True),
        )
        with self.lock:
            self.cache[path] = (stamp, body)
        return body


def content_type(path: Path) -> str:
    known = TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0]
    kind = known or "application/octet-stream"
    return f"{kind}; charset=utf-8" if kind.startswith("text/") else kind


def _handler(files: _Files, ledger: Ledger) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as a real host

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            self.respond(send_body=True)

        def do_HEAD(self) -> None:  # noqa: N802
            self.respond(send_body=False)

        def respond(self, send_body: bool) -> None:
            url_path = urlsplit(self.path).path
            path = files.find(url_path)
            status = 200
            if path is None:  # as a static host: the site's 404.html, if it has one
                path = files.find("/" + NOT_FOUND_PAGE)
                status = 404
            if path is None:
                self.finish_with(url_path, 404, {"Content-Type": "text/plain"}, b"not found\n")
                return
            body = files.body(path)
            headers = {"Content-Type": content_type(path), "ETag": body.etag,
                       "Last-Modified": body.modified,
                       "Cache-Control": f"max-age={MAX_AGE_S}", "Vary": "Accept-Encoding"}
            if status == 200 and self.headers.get("If-None-Match") == body.etag:
                self.finish_with(url_path, 304, headers, b"")
                return
            data = body.raw
            if body.compressed is not None and "gzip" in self.headers.get("Accept-Encoding", ""):
                data = body.compressed
                headers["Content-Encoding"] = "gzip"
            self.finish_with(url_path, status, headers, data if send_body else b"",
                             length=len(data))

        def finish_with(self, url_path: str, status: int, headers: dict[str, str],
                        data: bytes, length: int | None = None) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data) if length is None else length))
            # The header bytes are buffered until end_headers() flushes them: count them here.
            head = sum(len(line) for line in self._headers_buffer) + len(b"\r\n")
            # Recorded before it is sent: a client that has the response finds it counted.
            ledger.add(Sent(url_path, status, head + len(data)))
            self.end_headers()
            if data:
                self.wfile.write(data)

    return Handler


@contextmanager
def serve(root: Path, compressed: tuple[str, ...] = COMPRESSED_TYPES
          ) -> Iterator[tuple[str, Ledger]]:
    """Serve `root` on a free localhost port, gzipping the media types `compressed`:
    yields (base URL, ledger of responses).

    Every file is compressed before the first request, as a host that serves precompressed
    files would: no page load waits for the server to gzip a 10 MB wasm."""
    ledger = Ledger()
    files = _Files(root, compressed)
    for path in sorted(root.rglob("*")):
        if path.is_file():
            files.body(path.resolve())
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(files, ledger))
    server.daemon_threads = True
    with running(server) as port:
        yield f"http://127.0.0.1:{port}/", ledger


@contextmanager
def running(server: http.server.HTTPServer) -> Iterator[int]:
    """Serve with `server` from a background thread until the block ends; yields its port.
    Shared with the browser tests' server (tests/browser/conftest.py)."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
