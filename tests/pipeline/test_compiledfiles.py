"""Each sims file's imports and compiled code, kept on disk between builds
(ridgepoint.sims.compiledfiles): what a later build reads is what reading and compiling the same
bytes gives, an edited file is read afresh, and an entry is never read for other bytes,
another file name or other code."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgepoint.base.errors import ContentErrors
from ridgepoint.sims import compiledfiles, simcode, simsource
from ridgepoint.sims.simsource import SimSource
from tests.pipeline.test_simcode import TOY, toy_sims


def _scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files whose imports are read from now on."""
    scanned: list[str] = []
    real = simsource._imports.__wrapped__  # past its in-process cache

    def counting(relative: str, data: bytes) -> tuple[tuple[str, int], ...]:
        scanned.append(relative)
        return real(relative, data)

    monkeypatch.setattr(simsource, "_imports", counting)
    return scanned


def _run(source: SimSource, n: int = 5) -> dict:
    code = simcode.load(source)
    return code.simulate("toy", code.contract.validate(code.load("toy").INPUTS, {"n": n}))


def test_a_kept_source_reads_and_runs_as_an_unkept_one_and_scans_nothing_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = toy_sims(tmp_path)
    folder, kept = plain.folder, tmp_path / "kept"
    first = SimSource.read(folder, kept)
    assert first.files_of("toy") == plain.files_of("toy")
    assert _run(first) == _run(plain) == {"summary": {"twice": 10}, "charts": []}
    assert len(list(kept.iterdir())) == len(plain.files)

    scanned = _scans(monkeypatch)
    again = SimSource.read(folder, kept)  # the next build
    assert again.files_of("toy") == plain.files_of("toy") and scanned == []
    assert again.code("toy.py").co_filename == str(folder / "toy.py")
    assert _run(again, 7) == {"summary": {"twice": 14}, "charts": []}


def test_an_edited_file_is_read_and_compiled_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = tmp_path / "kept"
    assert _run(SimSource.read(toy_sims(tmp_path).folder, kept)) == {
        "summary": {"twice": 10}, "charts": []}
    scanned = _scans(monkeypatch)
    edited = SimSource.read(toy_sims(tmp_path, factor=3).folder, kept)
    assert _run(edited) == {"summary": {"twice": 15}, "charts": []}
    assert scanned == ["toy.py"]
    (edited.folder / "toy.py").write_text(TOY.format(default=3, factor=3)
                                          + "from sims import extra\n")
    (edited.folder / "extra.py").write_text("")
    assert "extra.py" in SimSource.read(edited.folder, kept).closure("toy")


def test_an_entry_is_named_by_the_file_name_and_the_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = tmp_path / "kept"
    SimSource.read(toy_sims(tmp_path / "one").folder, kept).files_of("toy")
    scanned = _scans(monkeypatch)
    other = SimSource.read(toy_sims(tmp_path / "two").folder, kept)  # same bytes elsewhere
    assert other.code("toy.py").co_filename == str(other.folder / "toy.py")
    other.files_of("toy")
    assert sorted(scanned) == sorted(other.files)

    scanned.clear()
    monkeypatch.setattr(compiledfiles, "CODE_DIGEST", b"another Python or scanner")
    SimSource.read(other.folder, kept).files_of("toy")
    assert sorted(scanned) == sorted(other.files)


def test_problems_are_reported_as_without_the_cache(tmp_path: Path) -> None:
    """A file that does not parse is a content error at its line, every time (nothing is
    kept for it); one that parses but does not compile fails to import, as it would."""
    kept = tmp_path / "kept"
    source = toy_sims(tmp_path)
    (source.folder / "toy.py").write_text("x = 1\ndef broken(:\n")
    for _ in range(2):
        with pytest.raises(ContentErrors, match=r"^sims/toy.py:2: python: does not parse: "):
            SimSource.read(source.folder, kept).closure("toy")

    (source.folder / "toy.py").write_text("x = 1\nreturn x\n")  # parses; does not compile
    for _ in range(2):
        read = SimSource.read(source.folder, kept)
        assert read.closure("toy") == ("__init__.py", "toy.py")
        with pytest.raises(ContentErrors, match=r"^sims/toy.py:2: python: fails to import: "
                                                r"SyntaxError: 'return' outside function"):
            simcode.load(read)
