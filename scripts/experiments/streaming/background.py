"""Run a ``socketserver`` server on a daemon thread, as a context manager.

The server and the proxy both need the same lifecycle in tests and in the measurement:
bind to a free loopback port, serve in the background, shut down cleanly at the end.
"""

from __future__ import annotations

import socketserver
import threading
from types import TracebackType

POLL_INTERVAL_S = 0.05
JOIN_TIMEOUT_S = 5.0


class Background:
    """Serves ``server`` on a daemon thread between ``__enter__`` and ``__exit__``."""

    def __init__(self, server: socketserver.TCPServer) -> None:
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": POLL_INTERVAL_S}, daemon=True
        )

    @property
    def address(self) -> tuple[str, int]:
        """The (host, port) the server is bound to."""
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    def __enter__(self) -> Background:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(JOIN_TIMEOUT_S)
