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

from ridgepoint.builder import derived_config, mkdocs
from ridgepoint.config import SiteConfig
from ridgepoint.errors import ContentErrors
from ridgepoint.snapshot import POLICY_VARIABLE
from ridgepoint.stage import stage_site

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "mkdocs.yml"
HOOKS = ROOT / "scripts" / "ridgepoint" / "mkdocs_hooks.py"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev-addr", default="127.0.0.1:8000", help="host:port to serve on")
    args = parser.parse_args(argv)
    # Saving a sim must not wait seconds for a new Pyodide snapshot: serve uses a cached
    # one when it matches and otherwise lets pages start Python the normal way.
    os.environ.setdefault(POLICY_VARIABLE, "cached")
    try:
        stage_site(ROOT)
    except ContentErrors as errors:
        print(errors, file=sys.stderr)
        print("Fix the content errors above, then run `make serve` again.", file=sys.stderr)
        return 1
    config = derived_config(CONFIG, SiteConfig.read(CONFIG).docs_dir, "serve", hooks=[str(HOOKS)])
    try:
        return mkdocs("serve", "--config-file", str(config), "--dev-addr", args.dev_addr)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
