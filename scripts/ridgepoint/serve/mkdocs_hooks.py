"""The MkDocs adapter, for `make serve` only: re-stage on each save, rebuild only what changed,
show content errors in the page.

The only module that knows about MkDocs. scripts/serve.py stages once, then runs
`mkdocs serve --dirty` with this file as a hook (through a derived config, so a plain
`mkdocs build` or another builder never runs it). Each save:

- re-stages before the rebuild (MkDocs watches the sources, not the staging tree). Staging
  rewrites only the staged files whose bytes change, so the dirty build rebuilds exactly
  those pages: the edited page, and every page whose generated content or glossary links
  the change touched (a new term: the glossary, its hubs, each page mentioning it; a new
  article: the listings). Removed files are removed from the served site, the search index
  is kept whole (ridgepoint.serve.devserver), and a change to mkdocs.yml or the theme overrides
  rebuilds everything;
- on a content error (or a runtime that cannot be staged) keeps the last good staging, says
  what is wrong in the terminal, and shows it on every page until a save fixes it (a banner
  served by the dev server only: ridgepoint.serve.devserver, overlay/).

Rebuilds are fast because the theme's template environment is kept while the theme is
unchanged (MkDocs compiles every template and lists Material's thousands of files on each
build otherwise), and because saves are seen by an inotify observer instead of MkDocs'
half-second polling.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mkdocs.plugins import event_priority

from ridgepoint.base.errors import ContentError, ContentErrors
from ridgepoint.base.layout import repository
from ridgepoint.browser.runtime import StagingError
from ridgepoint.content.kinds import sources
from ridgepoint.content.parsememo import ParseMemo
from ridgepoint.editing import valuesets
from ridgepoint.serve import devserver
from ridgepoint.sims import charts
from ridgepoint.staging.stage import stage_site

if TYPE_CHECKING:
    import jinja2
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.livereload import LiveReloadServer
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

# MkDocs loads this file itself, as an entry point: the repository `make serve` serves.
LAYOUT = repository()
POLL_S = 0.1  # MkDocs polls every 0.5 s; this only where inotify is unavailable

log = logging.getLogger("mkdocs.hooks.ridgepoint")


class _Serving:
    """What one serve process keeps from build to build."""

    def __init__(self) -> None:
        self.errors: list[ContentError] = []
        self.note = ""
        self.rebuilt: list[str] = []  # page URLs this build rendered
        self.pages: list[str] = []  # every page URL, in order
        self.search = devserver.SearchIndex()
        self.theme = ""  # identity of mkdocs.yml and the overrides
        self.full = True  # this build renders everything (no complete build since a change)
        self.environment: jinja2.Environment | None = None
        self.memo = ParseMemo(LAYOUT.parsed)  # each file's parse, until its text changes


STATE = _Serving()


@event_priority(100)  # before the search plugin's, which renders a template of the theme
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Material's search merges a partial rebuild as if one page were rebuilt: the index is
    kept here instead. While mkdocs.yml and the overrides are unchanged, the theme's
    environment is reused and the theme's own pages are not rendered again: 404.html
    depends on nothing else, and sitemap.xml (which would list a new page) is for search
    engines, not for the editor of a dev server. A change to either rebuilds everything."""
    theme_identity = _theme_identity(config)
    if theme_identity != STATE.theme:  # the first build, or the layout or templates changed
        STATE.theme, STATE.environment, STATE.full = theme_identity, None, True
    elif not STATE.full:
        config.theme.static_templates = set()
    search = config.plugins.get("material/search")
    if search is not None:
        search.is_dirty = False  # type: ignore[attr-defined]
    make_environment = config.theme.get_env

    def environment() -> jinja2.Environment:
        if STATE.environment is None:
            STATE.environment = _listing_kept(make_environment())
        return STATE.environment

    config.theme.get_env = environment  # type: ignore[method-assign]
    return config


def _listing_kept(environment: jinja2.Environment) -> jinja2.Environment:
    """The environment, listing the theme's files once. MkDocs lists them on every build,
    filtering Material's ~14,000 names with its fnmatch patterns (a third of a small
    rebuild); the listing is the same while the theme and mkdocs.yml are, and the
    environment is made afresh when either changes."""
    listed: dict[object, list[str]] = {}
    everything = environment.list_templates

    def list_templates(extensions: Any = None, filter_func: Any = None) -> list[str]:
        key = tuple(extensions) if extensions else None
        if key not in listed:
            listed[key] = everything(extensions, filter_func)
        return listed[key]

    environment.list_templates = list_templates  # type: ignore[method-assign]
    return environment


def on_serve(server: LiveReloadServer, config: MkDocsConfig, builder: object) -> LiveReloadServer:
    """Watch the sources (and the theme overrides), not the staging tree: staging writes
    there during each build, and watching it would rebuild twice per save."""
    server.unwatch(config.docs_dir)
    if config.config_file_path:
        server.unwatch(config.config_file_path)
    server.observer = devserver.change_observer(POLL_S, log)
    for path in (*sources(LAYOUT), *_overrides(config)):
        server.watch(str(path))
    # The first build found every chart cached; the first saved sim would wait for the
    # chart renderer's start-up. Start it now, while the editor reads the page.
    threading.Thread(target=charts.warm_up, name="chart renderer", daemon=True).start()
    return server


def on_pre_build(config: MkDocsConfig) -> None:
    """Re-stage; on content errors, say what is wrong and keep the last good staging."""
    site_dir = Path(config.site_dir)
    if STATE.full:  # every page again (the partial build rebuilds what is missing)
        for child in site_dir.iterdir() if site_dir.is_dir() else ():
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    STATE.rebuilt, STATE.errors, STATE.note = [], [], ""
    try:
        report = stage_site(LAYOUT, memo=STATE.memo)
    except ContentErrors as errors:
        STATE.errors = errors.errors
        log.error("Content errors; still serving the last good version:\n%s", errors)
        return
    except StagingError as error:
        STATE.note = f"cannot stage the browser runtime: {error}"
        log.error("Cannot stage the browser runtime; still serving the last good version:\n%s",
                  error)
        return
    finally:  # what the editor completes from, as `make check` writes it
        valuesets.refresh(LAYOUT)
    devserver.remove_outputs(site_dir, report.removed)
    if report.written or report.removed:
        log.info(
            "Staged %d changed and %d removed file(s)", len(report.written), len(report.removed)
        )


def on_files(files: Files, config: MkDocsConfig) -> Files:
    STATE.pages = [file.url for file in files.documentation_pages()]
    return files


def on_page_context(context: dict[str, Any], page: Page, config: MkDocsConfig,
                    nav: object) -> dict[str, Any]:
    STATE.rebuilt.append(page.url)
    return context


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    return devserver.with_script(output, page.url)


def on_post_build(config: MkDocsConfig) -> None:
    STATE.full = False
    site_dir = Path(config.site_dir)
    STATE.search.update(site_dir, STATE.rebuilt, STATE.pages)
    devserver.write_errors(site_dir, STATE.errors, STATE.note)


def _overrides(config: MkDocsConfig) -> list[Path]:
    custom = config.theme.custom_dir
    return [Path(custom)] if custom and Path(custom).is_dir() else []


def _theme_identity(config: MkDocsConfig) -> str:
    """mkdocs.yml's bytes and every override template's size and time: what the pages'
    frame (nav, header, scripts) depends on beyond their own staged file."""
    digest = hashlib.sha256(LAYOUT.mkdocs_yml.read_bytes() if LAYOUT.mkdocs_yml.is_file()
                            else b"")
    for folder in _overrides(config):
        for path in sorted(folder.rglob("*")):
            stat = path.stat()
            digest.update(f"{path}|{stat.st_size}|{stat.st_mtime_ns}".encode())
    return digest.hexdigest()
