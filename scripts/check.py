"""`make check`: validate all content, fast (no MkDocs), and say what is wrong where.

Prints every problem as `path:line: field: what is wrong (expected ...)` on stderr and exits
1, or prints one line counting what loaded and exits 0. Either way it then writes the value
sets editors complete from (build/editor/values.schema.json, ridgepoint.valuesets), so that
the editor knows every tag, term, reading and sim as soon as the file naming it exists. An
optional argument names another repository-shaped tree to check instead of this one (its
value sets are not written: the schemas refer to this repository's).
"""

from __future__ import annotations

import sys
from pathlib import Path

import sims
from ridgepoint import valuesets
from ridgepoint.catalogue_module import sync_sims_module
from ridgepoint.errors import ContentErrors
from ridgepoint.kinds import KINDS
from ridgepoint.layout import Layout, repository
from ridgepoint.load import load_site


def main(argv: list[str]) -> int:
    layout = repository()
    root = Path(argv[0]) if argv else layout.root
    sync_sims_module(Layout.of(root))  # the sims' catalogue module, from the catalogue YAML
    try:
        site = load_site(root)
    except ContentErrors as exc:
        for error in exc.errors:
            print(error, file=sys.stderr)
        print(f"check: {_count(len(exc.errors), 'problem')}", file=sys.stderr)
        return 1
    finally:
        if not argv:
            valuesets.write(layout, sims.sim_names())
    counts = {"tag": len(site.tags)}
    counts |= {kind.noun: len(getattr(site, kind.name)) for kind in KINDS}
    print("check: ok: " + ", ".join(_count(n, kind) for kind, n in counts.items()))
    return 0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
