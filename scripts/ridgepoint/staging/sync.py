"""The staging tree made to hold exactly a set of files, touching only what differs.

A file is written only when its bytes change, and files no longer produced are removed:
`mkdocs serve` rebuilds exactly what changed (its dirty builds compare modification times),
and a deleted article does not linger in the site.
"""

from __future__ import annotations

import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

Staged = bytes | Path  # file contents, or a file to copy


@dataclass
class StageReport:
    """What a staging run changed on disk (paths relative to the staging folder)."""

    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


def _same(target: Path, data: Staged) -> bool:
    """Whether `target` already holds `data`. A copied file is the same when size and
    modification time match its source (copies keep the source's time, see sync): reading
    both, tens of MB with Python's runtime, on every rebuild would cost more than the rest
    of staging."""
    try:
        held = target.stat()
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(held.st_mode):
        return False
    if isinstance(data, Path):
        source = data.stat()
        return (held.st_size, held.st_mtime_ns) == (source.st_size, source.st_mtime_ns)
    return held.st_size == len(data) and target.read_bytes() == data


def sync(stage_dir: Path, files: dict[str, Staged]) -> StageReport:
    """Make `stage_dir` hold exactly `files`, touching only what differs."""
    report = StageReport()
    for relative, data in sorted(files.items(), key=lambda item: item[0]):
        target = stage_dir / relative
        if _same(target, data):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, Path):
            shutil.copy2(data, target)
        else:
            target.write_bytes(data)
        report.written.append(relative)
    for path in sorted(stage_dir.rglob("*"), reverse=True):
        relative = path.relative_to(stage_dir).as_posix()
        if path.is_file() and relative not in files:
            path.unlink()
            report.removed.append(relative)
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    return report
