"""How the service worker's release names a file's bytes, and how a gzipped file is told.

Two stages name files this way: the browser runtime (ridgepoint.browser.runtime), for the
inflated copies Python's worker reads from the cache, and the finishing pass
(ridgepoint.finishing.offline), for the release's manifest. They must agree byte for byte.
"""

from __future__ import annotations

import hashlib

HASH_CHARS = 16  # 64 bits of SHA-256 per file: enough to tell two releases apart
GZIP_MAGIC = b"\x1f\x8b"


def content_hash(data: bytes) -> str:
    """How a release names a file's bytes: the start of their SHA-256 (HASH_CHARS)."""
    return hashlib.sha256(data).hexdigest()[:HASH_CHARS]
