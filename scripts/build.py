"""Build the site into site/: validate content, stage it, build (MkDocs or Zensical), swap.

    python scripts/build.py                          # the repository, into site/
    python scripts/build.py --builder zensical       # the same with Zensical
    python scripts/build.py --root DIR --site-dir OUT --stage-dir STAGE

On a content error or a failed build it exits 1 and site/ is left as it was. Either
way, building the repository rewrites the value sets editors complete from, as `make check`
does (ridgepoint.editing.valuesets).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ridgepoint import adapters
from ridgepoint.base.layout import repository
from ridgepoint.build.builder import build
from ridgepoint.editing import valuesets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path,
                        help="a repository-shaped content tree (default: this repository)")
    parser.add_argument("--site-dir", type=Path, help="where the site goes (default ROOT/site)")
    parser.add_argument("--stage-dir", type=Path, help="staging tree (default: docs_dir)")
    parser.add_argument("--config-file", type=Path, help="mkdocs.yml (default ROOT/mkdocs.yml)")
    adapters.add_option(parser)
    args = parser.parse_args(argv)
    layout = repository()
    if args.root:
        layout = layout.with_content(args.root)
    try:
        return build(layout, args.site_dir, config_file=args.config_file,
                     stage_dir=args.stage_dir, builder=args.builder)
    finally:
        if not args.root:  # the editors' value sets, as `make check` writes them
            valuesets.refresh(layout)


if __name__ == "__main__":
    sys.exit(main())
