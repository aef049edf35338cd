"""`make serve`: stage the site, then `mkdocs serve` on http://127.0.0.1:8000 with live reload.

Saving a file under content/, glossary/, feed/ or sims/ re-stages and reloads the page
(scripts/ridgepoint/mkdocs_hooks.py); a broken file prints its errors and the server keeps
serving the last good version.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ridgepoint import mkdocs_hooks
from ridgepoint.builder import derived_config, mkdocs
from ridgepoint.config import SiteConfig
from ridgepoint.errors import ContentErrors
from ridgepoint.runtime import StagingError
from ridgepoint.snapshot import POLICY_VARIABLE
from ridgepoint.stage import stage_site


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev-addr", default="127.0.0.1:8000", help="host:port to serve on")
    args = parser.parse_args(argv)
    # Saving a sim must not wait seconds for a new Pyodide snapshot: serve uses a cached
    # one when it matches and otherwise lets pages start Python the normal way.
    os.environ.setdefault(POLICY_VARIABLE, "cached")
    layout = mkdocs_hooks.LAYOUT  # the hook re-stages this same tree on every change
    try:
        stage_site(layout)
    except ContentErrors as errors:
        print(errors, file=sys.stderr)
        print("Fix the content errors above, then run `make serve` again.", file=sys.stderr)
        return 1
    except StagingError as error:
        print(f"cannot stage the browser runtime: {error}", file=sys.stderr)
        return 1
    hooks = [str(Path(mkdocs_hooks.__file__).resolve())]
    docs_dir = SiteConfig.read(layout.mkdocs_yml).docs_dir
    config = derived_config(layout.mkdocs_yml, docs_dir, "serve", hooks=hooks)
    try:
        return mkdocs("serve", "--config-file", str(config), "--dev-addr", args.dev_addr)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
