"""The MkDocs adapter, for `make serve` only: re-stage when a source changes.

The only module that knows about MkDocs. scripts/serve.py stages once, then runs
`mkdocs serve` with this file as a hook (through a derived config, so a plain
`mkdocs build` or another builder never runs it). MkDocs watches the sources instead of
the staging tree; each change re-stages before the rebuild. A content error, or a runtime
that cannot be staged, is printed and the last good staging stays in place, so the server
keeps serving.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ridgepoint.errors import ContentErrors
from ridgepoint.layout import repository
from ridgepoint.runtime import StagingError
from ridgepoint.stage import stage_site

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.livereload import LiveReloadServer

# MkDocs loads this file itself, as an entry point: the repository `make serve` serves.
LAYOUT = repository()

log = logging.getLogger("mkdocs.hooks.ridgepoint")


def on_serve(server: LiveReloadServer, config: MkDocsConfig, builder: object) -> LiveReloadServer:
    """Watch the sources, not the staging tree: staging writes there during each build,
    and watching it would rebuild twice per save."""
    server.unwatch(config.docs_dir)
    for path in LAYOUT.sources():
        server.watch(str(path))
    return server


def on_pre_build(config: MkDocsConfig) -> None:
    """Re-stage; on content errors, say what is wrong and keep the last good staging."""
    try:
        report = stage_site(LAYOUT)
    except ContentErrors as errors:
        log.error("Content errors; still serving the last good version:\n%s", errors)
        return
    except StagingError as error:
        log.error("Cannot stage the browser runtime; still serving the last good version:\n%s",
                  error)
        return
    if report.written or report.removed:
        log.info(
            "Staged %d changed and %d removed file(s)", len(report.written), len(report.removed)
        )
