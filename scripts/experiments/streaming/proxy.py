"""A small reverse proxy that holds each response until it is complete.

Response buffering is the default in common reverse proxies (nginx: ``proxy_buffering on``,
see https://nginx.org/en/docs/http/ngx_http_proxy_module.html#proxy_buffering): the proxy
reads the upstream response as fast as it can, so the application is freed early, and
passes it on at its own pace. For a stream of tokens that means the reader sees nothing
until there is nothing left to stream. This proxy does the simplest form of that: it holds
the whole response and sends it once the upstream closes the connection (the token server
always answers with ``Connection: close``, so close marks the end). How much a real proxy
holds back depends on its buffer sizes; a short answer fits in them.

As in nginx, an upstream response carrying ``X-Accel-Buffering: no`` is relayed as it
arrives instead. While it waits, the proxy also watches the reader's socket and closes the
upstream connection when the reader leaves, so the server can notice and stop.
"""

from __future__ import annotations

import select
import socket
import socketserver
import time

from experiments.streaming.background import Background
from experiments.streaming.wire import MAX_HEAD_BYTES, MAX_RESPONSE_BYTES, RECV_BYTES, parse_head

MAX_RESPONSE_S = 120.0  # no response is held or relayed for longer than this
MAX_LOOP_PASSES = 1_000_000
SOCKET_TIMEOUT_S = 10.0


class _ProxyHandler(socketserver.BaseRequestHandler):
    server: _ProxyServer

    def handle(self) -> None:
        client: socket.socket = self.request
        client.settimeout(SOCKET_TIMEOUT_S)
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            request_head = _read_head(client)
            if request_head is None:
                return
            with socket.create_connection(self.server.upstream, SOCKET_TIMEOUT_S) as upstream:
                upstream.sendall(request_head)
                _forward(client, upstream)
        except OSError:
            return  # either side went away or stalled; closing both is all a proxy can do


def _read_head(sock: socket.socket) -> bytes | None:
    """The request head (GET only, so no body follows); None if the client gave up."""
    data = bytearray()
    while b"\r\n\r\n" not in data:  # bounded by MAX_HEAD_BYTES
        chunk = sock.recv(RECV_BYTES)
        if not chunk or len(data) + len(chunk) > MAX_HEAD_BYTES:
            return None
        data += chunk
    return bytes(data)


def _forward(client: socket.socket, upstream: socket.socket) -> None:
    """Hold the upstream response until it ends (or relay it, if it opts out)."""
    held = bytearray()
    relay = False
    head_seen = False
    deadline = time.monotonic() + MAX_RESPONSE_S
    for _ in range(MAX_LOOP_PASSES):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        readable, _, _ = select.select([client, upstream], [], [], remaining)
        if client in readable and not client.recv(RECV_BYTES):
            return  # the reader left: dropping upstream tells the server
        if upstream not in readable:
            continue
        chunk = upstream.recv(RECV_BYTES)
        if not chunk:
            break  # the upstream closed: the response is complete
        held += chunk
        if len(held) > MAX_RESPONSE_BYTES:
            return
        if not head_seen and b"\r\n\r\n" in held:
            head_seen = True
            head = parse_head(bytes(held[: held.index(b"\r\n\r\n") + 4]))
            relay = head.headers.get("x-accel-buffering", "").lower() == "no"
        if relay:
            client.sendall(held)
            held.clear()
    else:
        return  # out of passes: give up rather than send a partial response as whole
    client.sendall(held)


class _ProxyServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], upstream: tuple[str, int]) -> None:
        super().__init__(address, _ProxyHandler)
        self.upstream = upstream


class BufferingProxy(Background):
    """The buffering proxy on a loopback port, in front of ``upstream``; a context manager."""

    def __init__(self, upstream: tuple[str, int], host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(_ProxyServer((host, port), upstream))
