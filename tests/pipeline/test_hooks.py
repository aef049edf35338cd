"""The `make serve` hook: watch the sources instead of the staging tree, re-stage on each
build, and keep the last good staging (saying why) when content breaks."""

from __future__ import annotations

import dataclasses
import logging
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from ridgepoint import mkdocs_hooks
from tests.pipeline.conftest import sample_tree
from tests.repo import LAYOUT


class FakeServer:
    def __init__(self) -> None:
        self.watched: list[str] = []
        self.unwatched: list[str] = []

    def watch(self, path: str) -> None:
        self.watched.append(path)

    def unwatch(self, path: str) -> None:
        self.unwatched.append(path)


def test_serve_watches_sources_not_staging(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = sample_tree(tmp_path / "root")
    monkeypatch.setattr(mkdocs_hooks, "LAYOUT", LAYOUT.with_content(root))
    server = FakeServer()
    config = SimpleNamespace(docs_dir=str(tmp_path / "docs"))
    assert mkdocs_hooks.on_serve(server, config, builder=None) is server  # type: ignore[arg-type]
    assert server.unwatched == [config.docs_dir]
    sources = [root / name for name in ("content", "glossary", "feed")] + [LAYOUT.sims]
    assert server.watched == [str(path) for path in sources]  # the tree has no mkdocs.yml


def test_broken_content_keeps_last_good_staging(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = sample_tree(tmp_path / "root")
    shutil.copy(LAYOUT.mkdocs_yml, root / "mkdocs.yml")
    monkeypatch.setattr(mkdocs_hooks, "LAYOUT", LAYOUT.with_content(root))
    glossary = root / "build" / "docs" / "glossary" / "index.md"

    mkdocs_hooks.on_pre_build(config=None)  # type: ignore[arg-type]
    term = root / "glossary" / "goodput.yaml"
    term.write_text(term.read_text().replace("Throughput that", "Edited throughput that"))
    mkdocs_hooks.on_pre_build(config=None)  # type: ignore[arg-type]
    good = glossary.read_text()
    assert "Edited throughput that" in good

    term.write_text("term: Goodput\ndefinition: [unclosed\n")
    with caplog.at_level(logging.ERROR, logger="mkdocs.hooks.ridgepoint"):
        mkdocs_hooks.on_pre_build(config=None)  # type: ignore[arg-type]
    assert "glossary/goodput.yaml:3: yaml: " in caplog.text
    assert glossary.read_text() == good


def test_a_runtime_that_cannot_be_staged_keeps_serving(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = sample_tree(tmp_path / "root")
    shutil.copy(LAYOUT.mkdocs_yml, root / "mkdocs.yml")
    broken = dataclasses.replace(LAYOUT.with_content(root), node_modules=tmp_path / "missing")
    monkeypatch.setattr(mkdocs_hooks, "LAYOUT", broken)
    with caplog.at_level(logging.ERROR, logger="mkdocs.hooks.ridgepoint"):
        mkdocs_hooks.on_pre_build(config=None)  # type: ignore[arg-type]  # does not raise
    assert "Cannot stage the browser runtime; still serving the last good version" in caplog.text
    assert "npm ci" in caplog.text
