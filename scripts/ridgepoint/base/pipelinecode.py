"""The pipeline's own code as one digest: its Python source and its schemas.

Part of the key of every cache whose entries that code makes (staged pages, kept parses).
Read once per process, when first imported, beside the rest of the pipeline: a process keeps
the code it imported, so its entries are named by that code even if the files change under
it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import ridgepoint

PACKAGE = Path(ridgepoint.__file__).resolve().parent  # scripts/ridgepoint/, every stage
SCHEMA_DIR = PACKAGE / "schemas"  # every content kind's JSON Schema


def _digest() -> bytes:
    digest = hashlib.sha256()
    for path in sorted([*PACKAGE.rglob("*.py"), *SCHEMA_DIR.glob("*.json")]):
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.digest()


SOURCE_DIGEST = _digest()
