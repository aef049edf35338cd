"""`make check`: every rule the build enforces on content, fast (no MkDocs), and where.

Loads and validates every file, then checks each page as staging would (the Content
Security Policy's rules at the page's own lines, links, `{{ sim:... }}` figures, ```sim
blocks) without rendering anything. Prints every problem as `path:line: field: what is
wrong (expected ...)` on stderr and exits 1, or prints one line counting what loaded and
exits 0. Either way it then writes the value sets editors complete from
(build/editor/values.schema.json, ridgepoint.editing.valuesets), so that the editor knows every
tag, term, reading and sim as soon as the file naming it exists. An optional argument
names another repository-shaped tree to check instead of this one (checked with its own
mkdocs.yml, or this repository's when it has none; its value sets are not written: the
schemas refer to this repository's).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ridgepoint.base.errors import ContentErrors
from ridgepoint.base.layout import repository
from ridgepoint.content.kinds import KINDS
from ridgepoint.editing import valuesets
from ridgepoint.staging.stage import check_content


def main(argv: list[str]) -> int:
    layout = repository()
    config_file = layout.mkdocs_yml
    if argv:
        layout = layout.with_content(Path(argv[0]))
        config_file = layout.mkdocs_yml if layout.mkdocs_yml.is_file() else config_file
    try:
        site = check_content(layout, config_file)
    except ContentErrors as exc:
        for error in exc.errors:
            print(error, file=sys.stderr)
        print(f"check: {_count(len(exc.errors), 'problem')}", file=sys.stderr)
        return 1
    finally:
        if not argv:
            valuesets.refresh(layout)
    counts = {"tag": len(site.tags)}
    counts |= {kind.noun: len(getattr(site, kind.name)) for kind in KINDS}
    print("check: ok: " + ", ".join(_count(n, kind) for kind, n in counts.items()))
    return 0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
