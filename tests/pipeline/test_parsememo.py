"""The serve hook's memo of each file's parse and schema check gives exactly what a fresh
load gives, and parses again only a file whose text changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgepoint.errors import ContentErrors
from ridgepoint.load import load_site
from ridgepoint.parsememo import ParseMemo
from tests.pipeline.conftest import sample_tree


def test_a_memoised_load_equals_a_fresh_one_and_reparses_only_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = sample_tree(tmp_path / "root")
    memo = ParseMemo()
    assert load_site(root, memo=memo) == load_site(root)
    parsed: list[str] = []
    real = memo.parse.__func__  # type: ignore[attr-defined]

    def counting(self: ParseMemo, text: str, path: str, first_line: int = 1):  # noqa: ANN202
        if (path, first_line, text) not in self._documents:
            parsed.append(path)
        return real(self, text, path, first_line)

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
