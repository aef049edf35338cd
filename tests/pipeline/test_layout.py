"""The repository's layout is declared once (ridgepoint.base.layout) and handed down."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ridgepoint.base.atomic import write_atomic
from ridgepoint.base.layout import Layout
from ridgepoint.content.kinds import sources
from tests.repo import LAYOUT

PIPELINE = LAYOUT.scripts / "ridgepoint"
# Modules that may find the repository: the declaration itself, and the MkDocs hook, which
# MkDocs loads by file name as an entry point.
FINDERS = {"layout.py", "mkdocs_hooks.py"}


def test_the_repository_layout_is_rooted_at_the_checkout() -> None:
    assert (LAYOUT.root / "mkdocs.yml") == LAYOUT.mkdocs_yml and LAYOUT.mkdocs_yml.is_file()
    assert LAYOUT.code == LAYOUT.root
    for path in (LAYOUT.content, LAYOUT.experiments, LAYOUT.sims, LAYOUT.node_modules,
                 LAYOUT.scripts):
        assert path.is_dir(), path
    assert (LAYOUT.sims / "contract.py").is_file() and (LAYOUT.scripts / "build.py").is_file()


def test_another_content_tree_borrows_the_repository_code(tmp_path: Path) -> None:
    tree = LAYOUT.with_content(tmp_path)
    assert tree.root == tmp_path.resolve() and tree.code == LAYOUT.code
    assert tree.content == tree.root / "content" and tree.mkdocs_yml == tree.root / "mkdocs.yml"
    assert tree.site == tree.root / "site"
    assert (tree.sims, tree.node_modules, tree.cache) == (LAYOUT.sims, LAYOUT.node_modules,
                                                           LAYOUT.cache)
    assert tree.relative(tree.content / "articles" / "a.md") == "content/articles/a.md"


def test_the_caches_live_under_one_folder() -> None:
    caches = (LAYOUT.sim_runs, LAYOUT.sim_code, LAYOUT.charts, LAYOUT.staged, LAYOUT.parsed,
              LAYOUT.csp_scans, LAYOUT.snapshots, LAYOUT.packed)
    assert {path.parent for path in caches} == {LAYOUT.cache}
    assert len(set(caches)) == len(caches) and LAYOUT.cache.parent == LAYOUT.build


def test_serve_watches_every_source_staging_reads(tmp_path: Path) -> None:
    tree = Layout.of(tmp_path)
    assert sources(tree) == ()  # nothing exists yet
    for name in ("content", "glossary", "feed", "sims"):
        (tmp_path / name).mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n")
    assert [path.name for path in sources(tree)] == [
        "content", "glossary", "feed", "sims", "mkdocs.yml"
    ]


def test_no_pipeline_module_finds_a_root_of_its_own() -> None:
    """Only the declaration and the hook locate the repository; every other module of the
    pipeline is handed a Layout (its own package's files it may still name)."""
    climbing = re.compile(r"__file__\)?(\.resolve\(\))?\.(parents\[|parent\.parent)|repository\(")
    offenders = [
        path.relative_to(PIPELINE).as_posix()
        for path in sorted(PIPELINE.rglob("*.py"))
        if path.name not in FINDERS and climbing.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_an_atomic_write_replaces_the_whole_file_and_leaves_nothing_beside_it(
    tmp_path: Path,
) -> None:
    target = tmp_path / "deep" / "er" / "entry.json"
    write_atomic(target, "first")
    write_atomic(target, b"second \xe2\x9c\x93")
    assert target.read_text(encoding="utf-8") == "second \u2713"
    assert [path.name for path in target.parent.iterdir()] == ["entry.json"]


def test_a_failed_atomic_write_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "entry.txt"
    write_atomic(target, "kept")
    written: list[str] = []

    def disk_full(self: Path, other: Path) -> None:
        written.append(self.read_text())  # the partial file was complete...
        raise OSError(28, "No space left on device")  # ...but the rename failed

    monkeypatch.setattr(Path, "replace", disk_full)
    with pytest.raises(OSError, match="No space"):
        write_atomic(target, "lost")
    assert written == ["lost"]
    assert target.read_text() == "kept"
    assert [path.name for path in tmp_path.iterdir()] == ["entry.txt"]
