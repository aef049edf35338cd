"""The Pyodide snapshot: its sparse format, its cache key, its cache, its staging policy.

Making a real snapshot needs Node and seconds; these tests replace the Node step where they
only need its output. The browser tests restore the real one (tests/browser/test_snapshot.py).
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import random
import shutil
import zipfile
from pathlib import Path

import pytest

from ridgepoint.base.layout import Layout
from ridgepoint.browser import runtime, snapshot
from ridgepoint.sims.simsource import SimSource
from tests.repo import LAYOUT

NODE_MODULES = LAYOUT.node_modules


def test_sparse_keeps_only_nonzero_pages_and_expands_back() -> None:
    rng = random.Random(3)
    page = snapshot.PAGE
    heap = bytearray(page * 9 + 123)  # a short last page, as the real heap may have
    for index in (0, 4, 9):
        start = index * page
        heap[start:start + 50] = rng.randbytes(50)
    packed = snapshot.sparse(bytes(heap))
    assert len(packed) == 16 + 4 * 3 + 2 * page + 123
    assert snapshot.expand(packed) == bytes(heap)
    assert snapshot.expand(snapshot.sparse(bytes(page * 2))) == bytes(page * 2)  # all zero
    with pytest.raises(snapshot.SnapshotError, match="magic"):
        snapshot.expand(b"XXXX" + packed[4:])
    with pytest.raises(snapshot.SnapshotError, match="stray"):
        snapshot.expand(packed + b"\0")


def _sims_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "sims"
    shutil.copytree(LAYOUT.sims, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _own_sims_and_cache(tmp_path: Path) -> Layout:
    """The repository's layout with a copy of its sims and an empty cache."""
    return dataclasses.replace(LAYOUT, sims=_sims_copy(tmp_path), snapshots=tmp_path / "cache")


def _key(sims_dir: Path) -> str:
    return snapshot.cache_key(SimSource.read(sims_dir), NODE_MODULES)


def test_the_cache_key_follows_the_sims_bytes(tmp_path: Path) -> None:
    sims_dir = _sims_copy(tmp_path)
    key = _key(sims_dir)
    assert _key(sims_dir) == key
    (sims_dir / "__pycache__").mkdir()
    (sims_dir / "__pycache__" / "x.py").write_text("ignored")
    assert _key(sims_dir) == key
    batching = sims_dir / "batching.py"
    batching.write_text(batching.read_text() + "\n# an edit\n")
    assert _key(sims_dir) != key


LISTED = ["json/__init__.py", "json/decoder.py"]


@pytest.fixture
def fake_maker(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, bytes]]:
    """Replace the Node step: list two standard files, write a small heap, record the sims
    files each snapshot saw (and check each is made on the trimmed library)."""
    calls: list[dict[str, bytes]] = []

    def run_maker(command: str, sims_dir: str, home: str, *paths: str) -> dict[str, object]:
        if command == "list":
            return {"members": LISTED}
        stdlib_zip, heap_file = (Path(path) for path in paths)
        with zipfile.ZipFile(stdlib_zip) as trimmed:
            assert trimmed.namelist() == LISTED
        calls.append({p.relative_to(sims_dir).as_posix(): p.read_bytes()
                      for p in Path(sims_dir).rglob("*.py")})
        heap_file.write_bytes(bytes(snapshot.PAGE) + b"python heap" + bytes(5000))
        return {"modules": ["sims", "sims._runner", "sims.batching"], "delta": 64}

    monkeypatch.setattr(snapshot, "_run_maker", run_maker)
    return calls


def test_a_snapshot_is_made_once_per_key_and_is_gzip_of_sparse(
    tmp_path: Path, fake_maker: list[dict[str, bytes]]
) -> None:
    layout = _own_sims_and_cache(tmp_path)
    source = SimSource.read(layout.sims)
    made = snapshot.make(layout, source)
    again = snapshot.make(layout, SimSource.read(layout.sims))
    assert len(fake_maker) == 1 and again == made
    heap = snapshot.expand(gzip.decompress(made.path.read_bytes()))
    assert heap == bytes(snapshot.PAGE) + b"python heap" + bytes(5000)
    manifest = made.manifest()
    assert manifest["file"] == made.file_name and made.file_name.startswith(snapshot.PREFIX)
    assert manifest["bytes"] == made.path.stat().st_size
    assert manifest["modules"] == ["sims", "sims._runner", "sims.batching"]
    assert manifest["xor"] == 64
    assert manifest["size"] == len(heap), "the worker sizes Python's memory from it"
    with zipfile.ZipFile(made.stdlib_zip) as trimmed:
        assert trimmed.namelist() == LISTED
    assert gzip.decompress(made.stdlib.read_bytes()) == made.stdlib_zip.read_bytes()
    assert manifest["stdlib"] == made.stdlib_name and made.stdlib_name.endswith(".zip.gz")

    (layout.sims / "roofline.py").write_text("# changed\n")
    snapshot.make(layout, SimSource.read(layout.sims))
    assert len(fake_maker) == 2
    assert sorted(p.suffix for p in layout.snapshots.iterdir()) == [  # the old one: gone
        ".bin", ".gz", ".json", ".zip"]


def test_the_maker_imports_the_bytes_the_key_names_not_a_later_save(
    tmp_path: Path, fake_maker: list[dict[str, bytes]]
) -> None:
    layout = _own_sims_and_cache(tmp_path)
    source = SimSource.read(layout.sims)
    (layout.sims / "batching.py").write_text("# saved while the build ran\n")
    snapshot.make(layout, source)
    assert fake_maker == [dict(source.files)]


def test_policies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                  fake_maker: list[dict[str, bytes]]) -> None:
    layout = _own_sims_and_cache(tmp_path)
    source = SimSource.read(layout.sims)
    monkeypatch.setenv(snapshot.POLICY_VARIABLE, "off")
    assert snapshot.current(layout, source) is None
    monkeypatch.setenv(snapshot.POLICY_VARIABLE, "cached")
    assert snapshot.current(layout, source) is None and fake_maker == []
    monkeypatch.setenv(snapshot.POLICY_VARIABLE, "make")
    made = snapshot.current(layout, source)
    monkeypatch.setenv(snapshot.POLICY_VARIABLE, "cached")
    assert snapshot.current(layout, source) == made
    monkeypatch.setenv(snapshot.POLICY_VARIABLE, "sometimes")
    with pytest.raises(snapshot.SnapshotError, match="RIDGEPOINT_SNAPSHOT"):
        snapshot.current(layout, source)


def test_staging_writes_the_snapshot_and_a_manifest_or_says_there_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "pyodide"
    target.mkdir()
    (target / "snapshot-old.bin").write_bytes(b"stale")

    def failing(*_: object) -> None:
        raise snapshot.SnapshotError("node is not installed")

    monkeypatch.setattr(snapshot, "current", failing)
    assert runtime.stage_snapshot(LAYOUT, target, SimSource.read(LAYOUT.sims)) is None
    assert "node is not installed" in capsys.readouterr().err
    manifest = json.loads((target / snapshot.MANIFEST).read_text())
    assert manifest["file"] is None and manifest["stdlib"] == runtime.FULL_STDLIB
    assert (target / runtime.FULL_STDLIB).is_file()  # Pyodide's own, for a normal start
    assert not (target / "snapshot-old.bin").exists()

    packed = tmp_path / "made.bin"
    packed.write_bytes(gzip.compress(snapshot.sparse(b"heap")))
    stdlib = tmp_path / "made.zip.gz"
    stdlib.write_bytes(gzip.compress(b"a zip"))
    made = snapshot.Snapshot(packed, "ab" * 32, ("sims",), 0, stdlib)
    monkeypatch.setattr(snapshot, "current", lambda *_: made)
    runtime.stage_snapshot(LAYOUT, target, SimSource.read(LAYOUT.sims))
    manifest = json.loads((target / snapshot.MANIFEST).read_text())
    assert manifest["file"] == made.file_name
    assert (target / made.file_name).read_bytes() == packed.read_bytes()
    assert (target / made.stdlib_name).read_bytes() == stdlib.read_bytes()
    assert not (target / runtime.FULL_STDLIB).exists()  # the trimmed one replaces it
