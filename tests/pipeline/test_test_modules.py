"""The test suite's own layout: pytest imports each test module by its file name alone (the
test folders are not packages), so two test modules of one name in different folders stop
the whole run at collection ("import file mismatch") when `make test` collects both, though
each passes when run on its own."""

from __future__ import annotations

from collections import Counter

from tests.repo import LAYOUT


def test_every_test_module_has_a_name_of_its_own() -> None:
    modules = sorted((LAYOUT.code / "tests").rglob("test_*.py"))
    names = Counter(path.name for path in modules)
    clashing = sorted(str(path.relative_to(LAYOUT.code)) for path in modules
                      if names[path.name] > 1)
    assert clashing == []
