"""Writing a file only when its bytes change.

What a watcher sees as a change, a dev server rebuilds or reloads: MkDocs rebuilds for a
staged runtime file rewritten, and Zensical reloads every open page for a script rewritten in
its folder (ridgepoint.serve.devserver). A file that already holds its bytes is left alone.
"""

from __future__ import annotations

from pathlib import Path


def write_changed(target: Path, data: str | bytes) -> None:
    """Write `data` (text as UTF-8) to `target`, creating its folder, unless the file already
    holds exactly this."""
    data = data.encode() if isinstance(data, str) else data
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.is_file() or target.read_bytes() != data:
        target.write_bytes(data)
