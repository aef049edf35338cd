"""The standard library the browser gets: only the modules the sims and Pyodide's start load.

Pyodide ships Python's standard library as one zip (python_stdlib.zip, 2.5 MB, 614 files,
each deflated, so it barely compresses further) and mounts it whole. The sims use a few
dozen modules and Pyodide's own start about a hundred more; the rest is never imported. So
the build keeps only the files Python has loaded once every sim has run (make_snapshot.mjs
`list` reports them), stored uncompressed in the zip and the whole zip gzipped: one stream
compresses across files, where per-file deflate cannot, and zipimport then reads its
members without inflating each.

The same trimmed zip is mounted when the snapshot is made (its directory, cached by
zipimport inside the heap, must match the file the browser mounts), when the worker starts
Python without a snapshot, and by the cross-runtime test (tests/sims/test_cross_runtime.py),
which runs every sim on many inputs under Pyodide with nothing else.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from collections.abc import Iterable

# A fixed time for every member: the same files give the same bytes (and the same digest).
STAMP = (2000, 1, 1, 0, 0, 0)


class TrimError(ValueError):
    """A file the trimmed library must hold is not in Pyodide's."""


def members_to_keep(names: Iterable[str], loaded: Iterable[str]) -> list[str]:
    """The zip's members to keep, in the zip's own order: the files loaded, and the
    `__init__.py` of every package above them (a package is imported before its modules)."""
    available = list(names)
    wanted = set(loaded)
    missing = wanted - set(available)
    if missing:
        raise TrimError(f"not in Pyodide's standard library: {', '.join(sorted(missing))}")
    for name in list(wanted):
        folder = posixpath.dirname(name)
        while folder:
            init = f"{folder}/__init__.py"
            if init in available:
                wanted.add(init)
            folder = posixpath.dirname(folder)
    return [name for name in available if name in wanted]


def trimmed_zip(full: bytes, loaded: Iterable[str]) -> bytes:
    """Pyodide's python_stdlib.zip (`full`) with only the members `loaded` needs, stored."""
    with zipfile.ZipFile(io.BytesIO(full)) as source:
        names = [info.filename for info in source.infolist() if not info.is_dir()]
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as target:
            for name in members_to_keep(names, loaded):
                info = zipfile.ZipInfo(name, STAMP)
                info.external_attr = 0o644 << 16
                target.writestr(info, source.read(name))
    return out.getvalue()
