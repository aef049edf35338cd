"""Runtime files gzipped once, for hosts that compress nothing but text.

pyodide.asm.wasm is 9.6 MB; gzipped, 3.5 MB. A host that compresses only text types (or
nothing) would send it whole, so the site ships it gzipped itself and the worker inflates
it as it downloads (DecompressionStream), feeding the inflated stream straight to
WebAssembly's streaming compiler: nothing is lost to the compiled-wasm cache, which a
reader's visit does not fill anyway (V8 caches a module only after tiering up a megabyte
of it, far more than a page's runs do). Compressing at the best level takes a second or
two, so each file's gzip is cached under Layout.packed, named by the file's size and
modification time (npm writes them once per install): a rebuild reads nothing of the 9.6 MB.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from ridgepoint.base.atomic import write_atomic

LEVEL = 9  # made once per Pyodide version, downloaded by every reader


def gzipped(source: Path, cache_dir: Path) -> Path:
    """The cached gzip of `source` (made now if missing); older gzips of the same file
    name are dropped."""
    stat = source.stat()
    target = cache_dir / f"{source.name}-{stat.st_size}-{stat.st_mtime_ns}.gz"
    if not target.is_file():
        cache_dir.mkdir(parents=True, exist_ok=True)
        write_atomic(target, gzip.compress(source.read_bytes(), LEVEL, mtime=0))
        for old in cache_dir.glob(f"{source.name}-*.gz"):
            if old != target:
                old.unlink(missing_ok=True)
    return target
