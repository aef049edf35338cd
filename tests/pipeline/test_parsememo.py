"""The memo of each file's parse and schema check gives exactly what a fresh load gives, and
parses again only a file whose text changed: in one process (the serve hook's), and from
its kept entries on disk in the next (a build's), which are never read for other text or
other code."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgepoint.base.errors import ContentErrors
from ridgepoint.content import parsememo
from ridgepoint.content.load import load_site
from ridgepoint.content.parsememo import ParseMemo
from tests.pipeline.conftest import sample_tree


def test_a_memoised_load_equals_a_fresh_one_and_reparses_only_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = sample_tree(tmp_path / "root")
    memo = ParseMemo()
    assert load_site(root, memo=memo) == load_site(root)
    parsed: list[str] = []
    real = memo.parse.__func__  # type: ignore[attr-defined]

    def counting(self: ParseMemo, text: str, path: str, first_line: int = 1,  # noqa: ANN202
                 schema: str = ""):
        if (path, first_line, text) not in self._documents:
            parsed.append(path)
        return real(self, text, path, first_line, schema)

    monkeypatch.setattr(ParseMemo, "parse", counting)
    term = root / "glossary" / "goodput.yaml"
    term.write_text(term.read_text().replace("Throughput that", "Edited throughput that"))
    site = load_site(root, memo=memo)
    assert parsed == ["glossary/goodput.yaml"]
    assert site.terms["goodput"].definition.startswith("Edited throughput that")

    term.write_text("term: Goodput\ntags: [latency]\n")  # a schema problem, remembered too
    for _ in range(2):
        with pytest.raises(ContentErrors, match=r"goodput\.yaml:1: definition: missing"):
            load_site(root, memo=memo)


def _count_work(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """The paths parsed and schema-checked from now on (by any memo)."""
    work: dict[str, list[str]] = {"parsed": [], "checked": []}
    real_parse, real_check = parsememo.parse, parsememo.schema_errors

    def parse(text: str, path: str, first_line: int = 1):  # noqa: ANN202
        work["parsed"].append(path)
        return real_parse(text, path, first_line)

    def check(document, schema, values=None):  # noqa: ANN001, ANN202
        work["checked"].append(document.path)
        return real_check(document, schema, values)

    monkeypatch.setattr(parsememo, "parse", parse)
    monkeypatch.setattr(parsememo, "schema_errors", check)
    return work


def test_a_load_from_kept_parses_equals_a_fresh_one_and_parses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = sample_tree(tmp_path / "root")
    kept = tmp_path / "parsed"
    fresh = load_site(root)
    assert load_site(root, memo=ParseMemo(kept)) == fresh
    assert sorted(kept.iterdir())  # the files that passed, kept
    work = _count_work(monkeypatch)
    assert load_site(root, memo=ParseMemo(kept)) == fresh  # another process, as it were
    assert work == {"parsed": [], "checked": []}

    term = root / "glossary" / "goodput.yaml"
    term.write_text(term.read_text().replace("Throughput that", "Edited throughput that"))
    site = load_site(root, memo=ParseMemo(kept))
    assert work == {"parsed": ["glossary/goodput.yaml"], "checked": ["glossary/goodput.yaml"]}
    assert site.terms["goodput"].definition.startswith("Edited throughput that")


def test_a_failing_document_is_not_kept_and_is_checked_each_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = sample_tree(tmp_path / "root")
    kept = tmp_path / "parsed"
    (root / "glossary" / "goodput.yaml").write_text("term: Goodput\ntags: [latency]\n")
    work = _count_work(monkeypatch)
    for _ in range(2):
        with pytest.raises(ContentErrors, match=r"goodput\.yaml:1: definition: missing"):
            load_site(root, memo=ParseMemo(kept))
        assert "glossary/goodput.yaml" in work["checked"]
        work["checked"].clear()


def test_kept_parses_are_named_by_the_code_and_a_damaged_one_is_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = sample_tree(tmp_path / "root")
    kept = tmp_path / "parsed"
    fresh = load_site(root, memo=ParseMemo(kept))
    entries = sorted(kept.iterdir())
    work = _count_work(monkeypatch)
    entries[0].write_bytes(b"not a pickle")
    assert load_site(root, memo=ParseMemo(kept)) == fresh
    assert len(work["parsed"]) == 1 and sorted(kept.iterdir()) == entries  # written again

    monkeypatch.setattr(parsememo, "KEPT_CODE", b"other code")
    work["parsed"].clear()
    assert load_site(root, memo=ParseMemo(kept)) == fresh
    assert len(work["parsed"]) == len(entries) and len(list(kept.iterdir())) == 2 * len(entries)
