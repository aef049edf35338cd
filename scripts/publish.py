"""`make publish SITE_URL=https://...`: build the site for publication at that address.

    python scripts/publish.py --site-url https://example.org/ridgepoint/
    python scripts/publish.py                        # the address from $SITE_URL

Refuses, with one line and exit status 2, an address that is unset, not http(s), or local
to this machine (ridgepoint/build/publish.py says why); then builds exactly as `make build` does,
with that address in feeds, canonical links, link previews and robots.txt.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ridgepoint import adapters
from ridgepoint.base.layout import repository
from ridgepoint.build.builder import build
from ridgepoint.build.publish import PublishError, publication_url


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site-url", default=os.environ.get("SITE_URL"),
                        help="where the site will be served (default: $SITE_URL)")
    parser.add_argument("--site-dir", type=Path, help="where the site goes (default ROOT/site)")
    parser.add_argument("--stage-dir", type=Path, help="staging tree (default: docs_dir)")
    adapters.add_option(parser)
    args = parser.parse_args(argv)
    try:
        url = publication_url(args.site_url)
    except PublishError as error:
        print(f"make publish: {error}", file=sys.stderr)
        return 2
    os.environ["SITE_URL"] = url  # read by mkdocs.yml's !ENV, here and in the builder's process
    layout = repository()
    status = build(layout, args.site_dir, stage_dir=args.stage_dir, builder=args.builder)
    if status == 0:
        print(f"Built for {url}: publish {args.site_dir or layout.site} as it is.")
    return status


if __name__ == "__main__":
    sys.exit(main())
