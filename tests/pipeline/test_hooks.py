"""The `make serve` hook: watch the sources instead of the staging tree, re-stage on each
build, keep the last good staging (saying why, in the terminal and on the page) when content
breaks, and keep a partial rebuild's site whole (search index, removed pages)."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from ridgepoint.base.errors import ContentError
from ridgepoint.serve import devserver, mkdocs_hooks
from ridgepoint.sims import charts
from tests.pipeline.conftest import sample_tree
from tests.repo import LAYOUT


class FakeServer:
    def __init__(self) -> None:
        self.watched: list[str] = []
        self.unwatched: list[str] = []
        self.observer: object = None

    def watch(self, path: str) -> None:
        self.watched.append(path)

    def unwatch(self, path: str) -> None:
        self.unwatched.append(path)


def fake_config(tmp_path: Path, overrides: Path | None = None) -> SimpleNamespace:
    site = tmp_path / "served"
    site.mkdir(exist_ok=True)
    theme = SimpleNamespace(custom_dir=str(overrides) if overrides else None,
                            static_templates={"404.html", "sitemap.xml"}, get_env=lambda: None)
    return SimpleNamespace(docs_dir=str(tmp_path / "docs"), site_dir=str(site), theme=theme,
                           config_file_path=str(tmp_path / "docs.serve.mkdocs.yml"), plugins={})


def rebuild(config: SimpleNamespace) -> None:
    """The hook's part of one build, as MkDocs calls it (pages left out)."""
    mkdocs_hooks.on_config(config)  # type: ignore[arg-type]
    mkdocs_hooks.on_pre_build(config)  # type: ignore[arg-type]
    mkdocs_hooks.on_post_build(config)  # type: ignore[arg-type]


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The sample site as the tree the hook serves, with fresh serve state."""
    root = sample_tree(tmp_path / "root")
    shutil.copy(LAYOUT.mkdocs_yml, root / "mkdocs.yml")
    monkeypatch.setattr(mkdocs_hooks, "LAYOUT", LAYOUT.with_content(root))
    monkeypatch.setattr(mkdocs_hooks, "STATE", mkdocs_hooks._Serving())
    monkeypatch.setenv("RIDGEPOINT_SNAPSHOT", "off")
    return root


def test_serve_watches_sources_and_overrides_not_staging(
    served: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from watchdog.observers.api import BaseObserver

    warmed = threading.Event()
    monkeypatch.setattr(charts, "warm_up", warmed.set)  # the chart renderer starts early
    overrides = tmp_path / "overrides"
    overrides.mkdir()
    server = FakeServer()
    config = fake_config(tmp_path, overrides)
    assert mkdocs_hooks.on_serve(server, config, builder=None) is server  # type: ignore[arg-type]
    assert server.unwatched == [config.docs_dir, config.config_file_path]
    sources = [served / name for name in ("content", "glossary", "feed")] + [LAYOUT.sims]
    assert server.watched == [str(path) for path in [*sources, served / "mkdocs.yml", overrides]]
    assert isinstance(server.observer, BaseObserver)
    assert warmed.wait(30)


def test_the_observer_reports_changes_not_mere_reads(tmp_path: Path) -> None:
    """watchdog's inotify observer also reports a file opened and closed unwritten;
    staging reads every source on each build, so those must not count as changes, and
    neither do bytecode caches that tools write under sims/."""
    from watchdog.events import FileSystemEventHandler

    seen: list[str] = []

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: object) -> None:
            seen.append(type(event).__name__)

    source = tmp_path / "term.yaml"
    source.write_text("term: T\n")
    observer = devserver.change_observer(0.1, logging.getLogger(__name__))
    observer.schedule(Handler(), str(tmp_path), recursive=True)
    observer.start()
    try:
        source.read_text()
        _wait_for(lambda: False, 0.5)  # give a read the time it would need to be reported
        assert seen == []
        cache = tmp_path / "__pycache__"
        cache.mkdir()
        (cache / "x.cpython-311.pyc").write_bytes(b"bytecode")  # a tool run beside serve
        _wait_for(lambda: False, 0.5)
        assert seen == []
        source.write_text("term: U\n")
        assert _wait_for(lambda: bool(seen), 10)
    finally:
        observer.stop()
        observer.join()
    assert not {"FileOpenedEvent", "FileClosedNoWriteEvent"} & set(seen)


def _wait_for(condition, seconds: float) -> bool:  # type: ignore[no-untyped-def]
    import time

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_broken_content_keeps_last_good_staging_and_says_so_on_the_page(
    served: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = fake_config(tmp_path)
    glossary = served / "build" / "docs" / "glossary" / "index.md"

    mkdocs_hooks.on_pre_build(config)  # type: ignore[arg-type]
    term = served / "glossary" / "goodput.yaml"
    term.write_text(term.read_text().replace("Throughput that", "Edited throughput that"))
    mkdocs_hooks.on_pre_build(config)  # type: ignore[arg-type]
    mkdocs_hooks.on_post_build(config)  # type: ignore[arg-type]
    good = glossary.read_text()
    assert "Edited throughput that" in good
    errors = Path(config.site_dir) / devserver.ERRORS
    assert json.loads(errors.read_text()) == {"errors": []}

    modeline = term.read_text().splitlines()[0]
    term.write_text(f"{modeline}\nterm: Goodput\ndefinition: [unclosed\n")
    with caplog.at_level(logging.ERROR, logger="mkdocs.hooks.ridgepoint"):
        mkdocs_hooks.on_pre_build(config)  # type: ignore[arg-type]
    mkdocs_hooks.on_post_build(config)  # type: ignore[arg-type]
    assert "glossary/goodput.yaml:4: yaml: " in caplog.text
    assert glossary.read_text() == good
    [problem] = json.loads(errors.read_text())["errors"]
    assert problem["where"] == "glossary/goodput.yaml:4" and problem["what"].startswith("yaml: ")
    assert (errors.parent / "overlay.js").is_file() and (errors.parent / "overlay.css").is_file()


def test_a_page_the_policy_would_refuse_is_reported_at_its_line_on_the_rebuild(
    served: Path, tmp_path: Path
) -> None:
    config = fake_config(tmp_path)
    article = served / "content" / "articles" / "older.md"
    article.write_text(article.read_text() + '\n<p style="color: red">Red.</p>\n')
    line = article.read_text().splitlines().index('<p style="color: red">Red.</p>') + 1
    mkdocs_hooks.on_pre_build(config)  # type: ignore[arg-type]
    mkdocs_hooks.on_post_build(config)  # type: ignore[arg-type]
    [problem] = json.loads((Path(config.site_dir) / devserver.ERRORS).read_text())["errors"]
    assert problem["where"] == f"content/articles/older.md:{line}"
    assert problem["what"].startswith("html: <p style=...>: style attribute")


def test_a_runtime_that_cannot_be_staged_keeps_serving(
    served: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture
) -> None:
    broken = dataclasses.replace(mkdocs_hooks.LAYOUT, node_modules=tmp_path / "missing")
    monkeypatch.setattr(mkdocs_hooks, "LAYOUT", broken)
    config = fake_config(tmp_path)
    with caplog.at_level(logging.ERROR, logger="mkdocs.hooks.ridgepoint"):
        mkdocs_hooks.on_pre_build(config)  # type: ignore[arg-type]  # does not raise
    mkdocs_hooks.on_post_build(config)  # type: ignore[arg-type]
    assert "Cannot stage the browser runtime; still serving the last good version" in caplog.text
    assert "npm ci" in caplog.text
    [problem] = json.loads((Path(config.site_dir) / devserver.ERRORS).read_text())["errors"]
    assert problem["where"] == "make serve" and "npm ci" in problem["what"]


def test_a_removed_source_is_removed_from_the_served_site(served: Path, tmp_path: Path) -> None:
    config = fake_config(tmp_path)
    mkdocs_hooks.on_pre_build(config)  # type: ignore[arg-type]
    built = Path(config.site_dir) / "articles" / "older" / "index.html"
    built.parent.mkdir(parents=True)
    built.write_text("<html>old</html>")  # as the first build left it
    (served / "content" / "articles" / "newer.md").write_text(
        (served / "content" / "articles" / "newer.md").read_text().replace(
            "[the older one](older.md)", "the older one"))
    (served / "content" / "articles" / "older.md").unlink()
    mkdocs_hooks.on_pre_build(config)  # type: ignore[arg-type]
    assert not built.exists()


def test_a_theme_change_rebuilds_everything(served: Path, tmp_path: Path) -> None:
    overrides = tmp_path / "overrides"
    overrides.mkdir()
    config = fake_config(tmp_path, overrides)
    rebuild(config)
    assert config.theme.static_templates == {"404.html", "sitemap.xml"}  # the first build
    page = Path(config.site_dir) / "glossary" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text("built")
    config = fake_config(tmp_path, overrides)  # MkDocs reloads the config for each build
    rebuild(config)
    assert page.exists()  # nothing changed: a partial rebuild keeps what was built
    assert config.theme.static_templates == set()  # and 404.html depends on the theme only
    (overrides / "main.html").write_text("{% extends 'base.html' %}")
    config = fake_config(tmp_path, overrides)
    rebuild(config)
    assert not page.exists()  # every page is built again
    assert config.theme.static_templates == {"404.html", "sitemap.xml"}


def test_the_search_index_keeps_every_page_across_partial_rebuilds(tmp_path: Path) -> None:
    index = devserver.SearchIndex()
    path = tmp_path / devserver.SEARCH_INDEX
    path.parent.mkdir()

    def build(rebuilt: list[str], entries: list[str], pages: list[str]) -> list[str]:
        docs = [{"location": location, "title": location, "text": ""} for location in entries]
        path.write_text(json.dumps({"config": {"lang": ["en"]}, "docs": docs}))
        index.update(tmp_path, rebuilt, pages)
        written = json.loads(path.read_text())
        assert written["config"] == {"lang": ["en"]}
        return [doc["location"] for doc in written["docs"]]

    pages = ["", "a/", "b/"]
    assert build(pages, ["", "#intro", "a/", "a/#x", "b/"], pages) == [
        "", "#intro", "a/", "a/#x", "b/"]
    assert build(["a/", "b/"], ["a/", "a/#y", "b/"], pages) == [
        "", "#intro", "a/", "a/#y", "b/"]  # a/ lost #x and gained #y; the home page kept
    assert build([], [], ["", "b/"]) == ["", "#intro", "b/"]  # a/ was removed


def test_the_banner_script_is_linked_page_relative() -> None:
    html = "<html><head><title>T</title></head><body></body></html>"
    assert devserver.with_script(html, "articles/x/") == html.replace(
        "</head>", '<script type="module" src="../../_ridgepoint/overlay.js"></script>\n</head>')


def test_the_banner_files_are_written_only_when_their_bytes_change(tmp_path: Path) -> None:
    """Zensical's server reloads every open page when a script in its folder is written,
    ahead of its rebuild of what a save changed (ridgepoint.serve.devserver.write_errors): a save
    with no new problem must leave the banner's files untouched."""
    folder = tmp_path / devserver.FOLDER

    def stamps() -> dict[str, int]:
        return {path.name: path.stat().st_mtime_ns for path in folder.iterdir()}

    devserver.write_errors(tmp_path, [])
    for path in folder.iterdir():  # as if written long ago: any rewrite moves the stamp
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    before = stamps()
    devserver.write_errors(tmp_path, [])
    assert stamps() == before
    error = ContentError("feed/x.yaml", 3, "why", "must be text")
    devserver.write_errors(tmp_path, [error])
    changed = {name for name, stamp in stamps().items() if stamp != before[name]}
    assert changed == {"errors.json"}
    [problem] = json.loads((tmp_path / devserver.ERRORS).read_text())["errors"]
    assert problem["where"] == "feed/x.yaml:3"
