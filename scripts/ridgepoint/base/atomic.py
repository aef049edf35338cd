"""Writing a file so that no reader ever sees half of it: a temporary file beside it, renamed.

Caches under build/cache are read by whichever build runs next, possibly while another
writes (a `make build` during `make serve`). A rename within one folder is atomic, so a
reader finds either the old file, the new one or none, never a partial one. Every such write
goes through `write_atomic`.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write `data` (text as UTF-8) to `path`, creating its folder; all or nothing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # Named for this process and thread, so two writers of one path never share a partial.
    partial = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        partial.write_bytes(data.encode() if isinstance(data, str) else data)
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
