"""`make serve BUILDER=zensical`: Zensical's own dev server on the staging tree, re-staged
here on every save.

Zensical runs no MkDocs hooks, so the re-staging MkDocs' serve hook does
(ridgepoint.serve.mkdocs_hooks) happens in this process instead: the dev server's observer
(devserver.change_observer) watches the sources and each save re-stages, with the parse
memo the hook keeps. Staging rewrites only the staged files whose bytes change; Zensical
watches the staging tree, rebuilds what changed and reloads the pages it rebuilt. A content
error (or a runtime that cannot be staged) keeps the last good staging, is printed here and
written for the dev server's banner (devserver.write_errors; its script is in every served
page through the serve config's extra_javascript). Nothing of the last good staging changes
then, so Zensical reloads nothing: the banner shows on the page's next load. A change to
mkdocs.yml needs the server started again (Zensical reads its config once).
"""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler

from ridgepoint.adapters.process import environment
from ridgepoint.adapters.zensical import command, derived_config
from ridgepoint.base.config import SiteConfig, load_mkdocs_yaml
from ridgepoint.base.errors import ContentErrors
from ridgepoint.base.layout import Layout
from ridgepoint.browser.runtime import StagingError
from ridgepoint.content.kinds import sources
from ridgepoint.content.parsememo import ParseMemo
from ridgepoint.serve import devserver
from ridgepoint.staging.stage import stage_site

SETTLE_S = 0.05  # an editor's save is several events: stage once they have settled
POLL_S = 0.1  # where inotify is unavailable (devserver.change_observer)
STARTED_S = 120  # how long the first build may take before the banner's files are written

log = logging.getLogger("ridgepoint.serve")


class Restager(FileSystemEventHandler):
    """Re-stages the layout once the events of a save have settled, on a thread of its own
    (staging must not hold up the observer, and two stagings must never overlap), and
    writes what the banner shows into the served folder."""

    def __init__(self, layout: Layout, served: Path) -> None:
        self.layout = layout
        self.served = served
        self.memo = ParseMemo()
        self.errors: ContentErrors | None = None
        self.note = ""
        self.changed = threading.Event()
        threading.Thread(target=self._run, name="restage", daemon=True).start()

    def on_any_event(self, event: FileSystemEvent) -> None:
        self.changed.set()

    def _run(self) -> None:
        while True:
            self.changed.wait()
            time.sleep(SETTLE_S)
            self.changed.clear()
            self.restage()

    def restage(self) -> None:
        """Stage; on a problem, say what is wrong and keep the last good staging."""
        self.errors, self.note = None, ""
        try:
            report = stage_site(self.layout, memo=self.memo)
        except ContentErrors as errors:
            self.errors = errors
            print(f"Content errors; still serving the last good version:\n{errors}",
                  file=sys.stderr, flush=True)
        except StagingError as error:
            self.note = f"cannot stage the browser runtime: {error}"
            print(f"Cannot stage the browser runtime; still serving the last good version:\n"
                  f"{error}", file=sys.stderr, flush=True)
        else:
            devserver.remove_outputs(self.served, report.removed)
            if report.written or report.removed:
                print(f"Staged {len(report.written)} changed and {len(report.removed)} removed "
                      "file(s)", flush=True)
        self.show()

    def show(self) -> None:
        devserver.write_errors(self.served, self.errors.errors if self.errors else [],
                               self.note)


def served_folder(layout: Layout) -> Path:
    """Where Zensical's server writes the site it serves: beside the staging tree."""
    stage_dir = SiteConfig.read(layout.mkdocs_yml).docs_dir
    return stage_dir.parent / f"{stage_dir.name}.served"


def serve(layout: Layout, host: str, port: int) -> int:
    """Serve the staged site (staged by scripts/serve.py) on host:port until stopped,
    re-staging on every save to a source."""
    stage_dir = SiteConfig.read(layout.mkdocs_yml).docs_dir
    served = served_folder(layout)
    scripts = [*load_mkdocs_yaml(layout.mkdocs_yml).get("extra_javascript", []),
               {"path": devserver.SCRIPT, "type": "module"}]
    config = derived_config(layout.mkdocs_yml, stage_dir, "serve", served.name,
                            extra_javascript=scripts)
    restager = Restager(layout, served)
    observer = devserver.change_observer(POLL_S, log)
    for source in sources(layout):  # mkdocs.yml is read when the server starts
        if source.is_dir():
            observer.schedule(restager, str(source), recursive=True)
    observer.start()
    server = subprocess.Popen(command(config, "serve", "--dev-addr", f"{host}:{port}"),
                              cwd=stage_dir.parent, env=environment(layout))
    # A stop signal to this process stops the server too (Ctrl-C reaches both at once).
    signal.signal(signal.SIGTERM, lambda *_: server.terminate())
    # Zensical empties its folder as it starts: the banner's files go in once it serves.
    threading.Thread(target=_when_serving, args=(f"http://{host}:{port}/", restager.show),
                     name="banner", daemon=True).start()
    try:
        return server.wait()
    except KeyboardInterrupt:
        server.wait()
        return 0
    finally:
        observer.stop()
        observer.join()


def _when_serving(url: str, then: Callable[[], None]) -> None:
    """Call `then` once `url` answers (the first build is done), or give up after a while."""
    deadline = time.monotonic() + STARTED_S
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1):
                break
        except OSError:
            time.sleep(0.2)
    then()
