"""What `make serve` adds to the site it serves, and only there: the content-error banner,
a search index kept whole across partial rebuilds, and pages removed when their source is;
and how it sees a save (change_observer).

Kept apart from the MkDocs adapter (ridgepoint.serve.mkdocs_hooks, which calls these) so that
none of it needs MkDocs. Everything here writes into the dev server's own temporary site
folder; a built site (`make build`) never has a `_ridgepoint/` folder or a reference to it.
"""

from __future__ import annotations

import json
import logging
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from watchdog import events
from watchdog.observers.api import BaseObserver

from ridgepoint.adapters.mkdocs import SEARCH_INDEX as MKDOCS_SEARCH_INDEX
from ridgepoint.base import urls
from ridgepoint.base.errors import ContentError
from ridgepoint.base.unchanged import write_changed

FOLDER = "_ridgepoint"  # under the served site's root
ASSETS = Path(__file__).with_name("overlay")  # overlay.js and overlay.css
SCRIPT = f"{FOLDER}/overlay.js"
ERRORS = f"{FOLDER}/errors.json"
SEARCH_INDEX = MKDOCS_SEARCH_INDEX  # the MkDocs hook merges it across partial rebuilds


def script_tag(page_url: str) -> str:
    """The banner's script as the page at `page_url` links it (page-relative, as the
    site's other assets: any mount path works)."""
    return f'<script type="module" src="{urls.relative(page_url, SCRIPT)}"></script>'


def with_script(html: str, page_url: str) -> str:
    """A built page with the banner's script at the end of its <head>."""
    return html.replace("</head>", f"{script_tag(page_url)}\n</head>", 1)


def write_errors(site_dir: Path, errors: Sequence[ContentError], note: str = "") -> None:
    """The banner and the problems of the last save (none: the banner stays hidden); `note`
    is a problem that is not a content error (the runtime could not be staged).

    Each file is written only when its bytes change. Zensical's server tells every open page
    to reload when any script in its folder is written, before it has rebuilt the pages a
    save changed: a page reloaded then shows the previous build, and it may miss the reload
    that follows (a third of the saves of a reading did)."""
    folder = site_dir / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for asset in ASSETS.iterdir():
        write_changed(folder / asset.name, asset.read_bytes())
    problems = [{"where": f"{error.path}:{error.line}",
                 "what": str(error).removeprefix(f"{error.path}:{error.line}: ")}
                for error in errors]
    if note:
        problems.append({"where": "make serve", "what": note})
    write_changed(folder / "errors.json", json.dumps({"errors": problems}))


def remove_outputs(site_dir: Path, removed: Iterable[str]) -> None:
    """Delete what the staged files `removed` (a deleted article, a dropped feed) had been
    built into: a partial rebuild only writes, so they would be served on."""
    for relative in removed:
        built = site_dir / (urls.page_url(relative) + "index.html" if relative.endswith(".md")
                            else relative)
        built.unlink(missing_ok=True)


class SearchIndex:
    """The whole site's search index across partial rebuilds.

    A partial rebuild indexes only the pages it rebuilt (the search plugin's own merge of
    earlier entries assumes one rebuilt page); this keeps every page's entries from the
    build that last rebuilt it and writes them all, in the site's page order."""

    def __init__(self) -> None:
        self.entries: dict[str, list[dict[str, object]]] = {}  # page URL -> its entries

    def update(self, site_dir: Path, rebuilt: Iterable[str], pages: Sequence[str]) -> None:
        """Merge what this build indexed (the pages `rebuilt`) into the index file; `pages`
        is every page URL of the site now, in order."""
        path = site_dir / SEARCH_INDEX
        if not path.is_file():
            return
        written = json.loads(path.read_text(encoding="utf-8"))
        fresh: dict[str, list[dict[str, object]]] = {url: [] for url in rebuilt}
        for entry in written["docs"]:
            fresh.setdefault(str(entry["location"]).split("#", 1)[0], []).append(entry)
        self.entries.update(fresh)
        for gone in self.entries.keys() - set(pages):
            del self.entries[gone]
        written["docs"] = [entry for url in pages for entry in self.entries.get(url, [])]
        path.write_text(json.dumps(written, separators=(",", ":")), encoding="utf-8")


def change_observer(poll_s: float, log: logging.Logger) -> BaseObserver:
    """What MkDocs' server watches with: an inotify observer (a save is seen at once) where
    the system grants one, else polling every `poll_s`; reporting changes only (watchdog's
    inotify observer also reports files merely opened, and staging reads every source on
    each build: MkDocs would rebuild for ever), and none in Python's bytecode caches (a
    tool run beside the server, `python -m sims` or pytest, writes those under sims/)."""
    try:
        from watchdog.observers.inotify import InotifyObserver
    except ImportError:  # not Linux
        return _polling(poll_s, log, "no inotify on this system")
    probe = _changes_only(InotifyObserver)()
    try:
        with tempfile.TemporaryDirectory() as folder:
            probe.schedule(events.FileSystemEventHandler(), folder)
            probe.start()
            probe.stop()
            probe.join()
    except OSError as error:
        return _polling(poll_s, log, str(error))
    return _changes_only(InotifyObserver)()


CHANGES = [events.FileCreatedEvent, events.FileDeletedEvent, events.FileModifiedEvent,
           events.FileMovedEvent, events.FileClosedEvent]


def _changes_only(observer: type[BaseObserver]) -> type[BaseObserver]:
    class ChangesOnly(observer):  # type: ignore[valid-type,misc]
        def schedule(self, event_handler: events.FileSystemEventHandler, path: Any, *,
                     recursive: bool = False, event_filter: Any = None, **options: Any) -> Any:
            return super().schedule(_NotBytecode(event_handler), path, recursive=recursive,
                                    event_filter=event_filter or CHANGES, **options)

    return ChangesOnly


class _NotBytecode(events.FileSystemEventHandler):
    """Passes on every event except those about Python's bytecode caches."""

    def __init__(self, handler: events.FileSystemEventHandler) -> None:
        self.handler = handler

    def dispatch(self, event: events.FileSystemEvent) -> None:
        paths = (str(event.src_path), str(getattr(event, "dest_path", "") or ""))
        if not any("__pycache__" in path or path.endswith(".pyc") for path in paths if path):
            self.handler.dispatch(event)


def _polling(poll_s: float, log: logging.Logger, why: str) -> BaseObserver:
    from watchdog.observers.polling import PollingObserver

    log.info("Watching by polling every %s s (%s)", poll_s, why)
    return _changes_only(PollingObserver)(timeout=poll_s)
