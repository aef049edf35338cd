"""`make serve`: stage the site, then serve it on http://127.0.0.1:8000 with live reload.

    python scripts/serve.py                       # MkDocs: `mkdocs serve` with the serve hook
    python scripts/serve.py --builder zensical    # Zensical's server, re-staged from here

Saving a file under content/, glossary/, feed/ or sims/ re-stages and reloads the page (the
builder's adapter: ridgepoint.mkdocs_hooks, ridgepoint.adapters.zensical_serve); a broken
file prints its errors and the server keeps serving the last good version.
"""

from __future__ import annotations

import argparse
import os
import sys

from ridgepoint import adapters
from ridgepoint.errors import ContentErrors
from ridgepoint.layout import repository
from ridgepoint.runtime import StagingError
from ridgepoint.snapshot import POLICY_VARIABLE
from ridgepoint.stage import stage_site


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev-addr", default="127.0.0.1:8000", help="host:port to serve on")
    adapters.add_option(parser)
    args = parser.parse_args(argv)
    # Saving a sim must not wait seconds for a new Pyodide snapshot: serve uses a cached
    # one when it matches and otherwise lets pages start Python the normal way.
    os.environ.setdefault(POLICY_VARIABLE, "cached")
    layout = repository()  # the tree the adapter re-stages on every change
    try:
        stage_site(layout)
    except ContentErrors as errors:
        print(errors, file=sys.stderr)
        print("Fix the content errors above, then run `make serve` again.", file=sys.stderr)
        return 1
    except StagingError as error:
        print(f"cannot stage the browser runtime: {error}", file=sys.stderr)
        return 1
    host, _, port = args.dev_addr.rpartition(":")
    return adapters.named(args.builder).serve(layout, host, int(port))


if __name__ == "__main__":
    sys.exit(main())
