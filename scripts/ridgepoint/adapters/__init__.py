"""The builders that turn the staged tree into a site: one adapter per builder.

Stage: building. May import base and finishing (the theme bundle's reader); the dev server
and the safe build import it.

Staging (ridgepoint.staging.stage) writes a tree any builder reading mkdocs.yml can build, and the
finishing pass (ridgepoint.build.builder: valid HTML, Content Security Policy, the service
worker's release) works on whatever HTML came out. Neither knows which builder ran: what
differs lives here, one module per builder, behind the same three members:

- `build(layout, config_file, stage_dir, out_dir)`: build the staged tree into the empty
  folder `out_dir`; False (having said why) if the builder failed;
- `search_index`: where the theme's search fetches its index (site-relative), which the
  search-on-demand script holds until the reader searches and the service worker keeps;
- `runtime_styles(site_dir)`: the text of each <style> element the theme's scripts add
  while a page runs, which the policy must allow by hash as it does the inline ones.

`make build BUILDER=zensical` (scripts/build.py --builder) picks one; MkDocs is the default.
Each builder's dev server (`make serve`) is the dev server's business: ridgepoint.serve,
which imports this package, never the other way round. The two Markdown extensions the
builders load themselves live here too: table_align (both, named in mkdocs.yml) and
zensical_links (Zensical only).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Protocol

from ridgepoint.base.layout import Layout

DEFAULT = "mkdocs"


class Adapter(Protocol):
    """What the pipeline asks of a builder (see the module docstring)."""

    name: str
    search_index: str

    def build(self, layout: Layout, config_file: Path, stage_dir: Path, out_dir: Path) -> bool:
        ...

    def runtime_styles(self, site_dir: Path) -> tuple[str, ...]:
        ...


def names() -> tuple[str, ...]:
    return ("mkdocs", "zensical")


def named(name: str) -> Adapter:
    """The adapter of the builder called `name`; ValueError naming the choices otherwise.
    Imported here, on demand, so a build with one builder never imports the other's."""
    if name == "mkdocs":
        from ridgepoint.adapters.mkdocs import ADAPTER
    elif name == "zensical":
        from ridgepoint.adapters.zensical import ADAPTER
    else:
        raise ValueError(f"unknown builder {name!r} (expected one of {', '.join(names())})")
    return ADAPTER


def add_option(parser: argparse.ArgumentParser) -> None:
    """The entry points' `--builder` (what `make build|serve|publish BUILDER=...` passes)."""
    parser.add_argument("--builder", choices=names(), default=DEFAULT,
                        help=f"the builder that turns the staged tree into a site (default "
                             f"{DEFAULT})")
