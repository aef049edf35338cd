"""`make serve`: stage the site, then serve it on http://127.0.0.1:8000 with live reload.

    python scripts/serve.py                       # http://127.0.0.1:8000/, `mkdocs serve`
    python scripts/serve.py --dev-addr 127.0.0.1:8001   # what `make serve PORT=8001` runs
    python scripts/serve.py --builder zensical    # Zensical's server (make serve BUILDER=...)

Saving a file under content/, glossary/, feed/ or sims/ re-stages, rebuilds the pages the
save changed and reloads the page (the builder's adapter: ridgepoint.serve.mkdocs_hooks,
ridgepoint.serve.zensical_serve); a broken file shows its errors on the page and in the
terminal while the server keeps serving the last good version. A port already in use is said
in one line, before anything is built.
"""

from __future__ import annotations

import argparse
import errno
import os
import socket
import sys

from ridgepoint import adapters
from ridgepoint.base.errors import ContentErrors
from ridgepoint.base.layout import repository
from ridgepoint.browser.runtime import StagingError
from ridgepoint.browser.snapshot import POLICY_VARIABLE
from ridgepoint.serve import serve
from ridgepoint.staging.stage import stage_site


def address(text: str) -> tuple[str, int]:
    """host:port, as MkDocs' --dev-addr takes it."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"{text!r} is not host:port (e.g. 127.0.0.1:8001)")
    return host, int(port)


def port_in_use(host: str, port: int) -> str | None:
    """Why the server could not listen on host:port (None if it can), said in one line."""
    error = _bind_error(host, port)
    if error is None:
        return None
    if error.errno == errno.EADDRINUSE:
        free = next((p for p in range(port + 1, min(port + 100, 65536))
                     if _bind_error(host, p) is None), port + 1)
        return (f"make serve: port {port} on {host} is already in use (another `make serve`?);"
                f" pick another: make serve PORT={free}")
    return f"make serve: cannot listen on {host}:{port}: {error.strerror or error}"


def _bind_error(host: str, port: int) -> OSError | None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as MkDocs' server does
        try:
            probe.bind((host, port))
        except OSError as error:
            return error
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev-addr", type=address, default="127.0.0.1:8000",
                        help="host:port to serve on (make serve PORT=...)")
    adapters.add_option(parser)
    args = parser.parse_args(argv)
    host, port = args.dev_addr
    problem = port_in_use(host, port)
    if problem:
        print(problem, file=sys.stderr)
        return 1
    # Saving a sim must not wait seconds for a new Pyodide snapshot: serve uses a cached
    # one when it matches and otherwise lets pages start Python the normal way.
    os.environ.setdefault(POLICY_VARIABLE, "cached")
    layout = repository()  # the tree the builder's adapter re-stages on every change
    try:
        stage_site(layout)
    except ContentErrors as errors:
        print(errors, file=sys.stderr)
        print("Fix the content errors above, then run `make serve` again.", file=sys.stderr)
        return 1
    except StagingError as error:
        print(f"cannot stage the browser runtime: {error}", file=sys.stderr)
        return 1
    return serve(args.builder, layout, host, port)

if __name__ == "__main__":
    sys.exit(main())
