"""A cache folder kept to a size: its least recently used entries removed.

The caches of one file per entry (staged pages, parsed content, compiled sims files) mark
an entry used by touching it when they read it, so its modification time is its last use.
"""

from __future__ import annotations

import os
from pathlib import Path


def prune(folder: Path, keep: int) -> None:
    """Remove all but the `keep` most recently used entries of `folder` (if it exists).
    Counted first: a listing is cheap, while reading every entry's time was some 60 ms at
    10,000 entries, on every save under `make serve`."""
    names = os.listdir(folder) if folder.is_dir() else []
    if len(names) <= keep:
        return
    entries = sorted((folder / name for name in names), key=lambda path: path.stat().st_mtime_ns)
    for stale in entries[: max(0, len(entries) - keep)]:
        stale.unlink(missing_ok=True)
