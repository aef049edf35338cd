"""The builders that turn the staged tree into a site: one adapter per builder.

Staging (ridgepoint.stage) writes a tree any builder reading mkdocs.yml can build, and the
finishing pass (ridgepoint.builder: valid HTML, Content Security Policy, the service
worker's release) works on whatever HTML came out. Neither knows which builder ran: what
differs lives here, one module per builder, behind the same four members:

- `build(layout, config_file, stage_dir, out_dir)`: build the staged tree into the empty
  folder `out_dir`; False (having said why) if the builder failed;
- `serve(layout, host, port)`: the dev server (`make serve`), re-staging on every save;
- `search_index`: where the theme's search fetches its index (site-relative), which the
  search-on-demand script holds until the reader searches and the service worker keeps;
- `runtime_styles(site_dir)`: the text of each <style> element the theme's scripts add
  while a page runs, which the policy must allow by hash as it does the inline ones.

`make build BUILDER=zensical` (scripts/build.py --builder) picks one; MkDocs is the default.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Protocol

from ridgepoint.layout import Layout

DEFAULT = "mkdocs"


class Adapter(Protocol):
    """What the pipeline asks of a builder (see the module docstring)."""

    name: str
    search_index: str

    def build(self, layout: Layout, config_file: Path, stage_dir: Path, out_dir: Path) -> bool:
        ...

    def serve(self, layout: Layout, host: str, port: int) -> int:
        ...

    def runtime_styles(self, site_dir: Path) -> tuple[str, ...]:
        ...


def environment(layout: Layout) -> dict[str, str]:
    """The builder's environment: the pipeline it imports (the serve hook, the Markdown
    extensions mkdocs.yml names) is the layout's own (scripts/ of its code), whichever
    tree's venv the interpreter belongs to."""
    path = os.pathsep.join(filter(None, (str(layout.scripts), os.environ.get("PYTHONPATH"))))
    return {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": path}


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
