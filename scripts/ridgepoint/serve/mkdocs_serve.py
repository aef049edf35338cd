"""`make serve` with MkDocs: `mkdocs serve --dirty` on the staging tree, with the serve hook
(ridgepoint.serve.mkdocs_hooks, the half of this server MkDocs loads itself).

The process becomes MkDocs' server (exec), so Ctrl-C and a stop signal reach MkDocs itself.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ridgepoint.adapters.mkdocs import derived_config, mkdocs_command
from ridgepoint.base.config import SiteConfig
from ridgepoint.base.layout import Layout


def serve(layout: Layout, host: str, port: int) -> int:
    """Exec `mkdocs serve --dirty` with the hook on host:port; returns only on failure."""
    from ridgepoint.serve import mkdocs_hooks  # imports MkDocs: only for serving with it

    hooks = [str(Path(mkdocs_hooks.__file__).resolve())]
    stage_dir = SiteConfig.read(layout.mkdocs_yml).docs_dir
    config = derived_config(layout.mkdocs_yml, stage_dir, "serve", hooks=hooks)
    command, variables = mkdocs_command(layout, "serve", "--dirty", "--config-file",
                                        str(config), "--dev-addr", f"{host}:{port}")
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(command[0], command, variables)
