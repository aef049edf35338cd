"""`make serve BUILDER=zensical`: Zensical's own dev server on the staging tree, re-staged
here on every save.

Zensical runs no MkDocs hooks, so the re-staging MkDocs' serve hook does
(ridgepoint.mkdocs_hooks) happens in this process instead: an observer on the sources
(content/, glossary/, feed/, sims/) re-stages after each save. Staging rewrites only the
staged files whose bytes change; Zensical watches the staging tree, rebuilds what changed
and reloads the pages it rebuilt. A content error, or a runtime that cannot be staged, is
printed and the last good staging stays in place, so the server keeps serving it.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from ridgepoint.adapters.zensical import command, derived_config
from ridgepoint.config import SiteConfig
from ridgepoint.errors import ContentErrors
from ridgepoint.layout import Layout
from ridgepoint.runtime import StagingError
from ridgepoint.stage import stage_site

SETTLE_S = 0.05  # an editor's save is several events: stage once they have settled


class Restager(FileSystemEventHandler):
    """Re-stages the layout once the events of a save have settled, on a thread of its own
    (staging must not hold up the observer, and two stagings must never overlap)."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.changed = threading.Event()
        threading.Thread(target=self._run, name="restage", daemon=True).start()

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in ("opened", "closed_no_write") and \
                "__pycache__" not in str(event.src_path):
            self.changed.set()

    def _run(self) -> None:
        while True:
            self.changed.wait()
            time.sleep(SETTLE_S)
            self.changed.clear()
            restage(self.layout)


def restage(layout: Layout) -> bool:
    """Stage the layout; on a problem, say what is wrong and keep the last good staging."""
    try:
        report = stage_site(layout)
    except ContentErrors as errors:
        print(f"Content errors; still serving the last good version:\n{errors}",
              file=sys.stderr, flush=True)
        return False
    except StagingError as error:
        print(f"Cannot stage the browser runtime; still serving the last good version:\n"
              f"{error}", file=sys.stderr, flush=True)
        return False
    if report.written or report.removed:
        print(f"Staged {len(report.written)} changed and {len(report.removed)} removed "
              "file(s)", flush=True)
    return True


def serve(layout: Layout, host: str, port: int) -> int:
    """Serve the staged site (already staged by scripts/serve.py) on host:port until
    interrupted, re-staging on every save to a source."""
    stage_dir = SiteConfig.read(layout.mkdocs_yml).docs_dir
    config = derived_config(layout.mkdocs_yml, stage_dir, "serve", f"{stage_dir.name}.served")
    observer = Observer()
    restager = Restager(layout)
    for source in layout.sources():
        if source.is_dir():
            observer.schedule(restager, str(source), recursive=True)
    observer.start()
    server = subprocess.Popen(command(config, "serve", "--dev-addr", f"{host}:{port}"),
                              cwd=stage_dir.parent)
    # A stop signal to this process stops the server too (Ctrl-C reaches both at once).
    signal.signal(signal.SIGTERM, lambda *_: server.terminate())
    try:
        return server.wait()
    except KeyboardInterrupt:
        server.wait()
        return 0
    finally:
        observer.stop()
        observer.join()
