"""A cache folder is kept to its size by removing its least recently used entries."""

from __future__ import annotations

import os
from pathlib import Path

from ridgepoint.base import lru


def test_the_least_recently_used_entries_go_first(tmp_path: Path) -> None:
    for age, name in enumerate("abcde"):  # a is the most recently used, e the least
        entry = tmp_path / name
        entry.write_text(name)
        os.utime(entry, ns=(10**18 - age * 10**9,) * 2)
    lru.prune(tmp_path, 3)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a", "b", "c"]
    lru.prune(tmp_path, 5)
    assert len(list(tmp_path.iterdir())) == 3
    lru.prune(tmp_path / "missing", 1)  # nothing kept yet: nothing to do
