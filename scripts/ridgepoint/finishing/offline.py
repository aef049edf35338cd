"""The service worker's release: which files this build holds, and which to cache at once.

content/sw.js (staged to the site root) carries a placeholder; after the builder has written
the site (and the Content Security Policy is in the pages, so the hashes are of the final
bytes) this module replaces it with the release: an id computed from every built file, a
manifest of each file's path and content hash, and the files kept from the start: the site's
scripts, styles, sims and the theme's search index, wherever its builder puts it
(`precache`, fetched at install, about 2 MB) and the Python runtime (`runtime`, tens of MB
with the snapshot: taken at install only if the browser already has it, i.e. a sim has run,
else kept on first use), so that reading the home page once does not download Python. Of
the runtime, the files the build gzipped itself (`packed`: the wasm, the standard library,
the snapshot) are also kept unpacked, so that a returning reader's Python does not inflate
them again (content/sw.js). A new
deployment therefore has a new id, the worker's cache is named by it, and the worker can
tell whether a response belongs to its release by
hashing it (see content/sw.js).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ridgepoint.base.filehash import GZIP_MAGIC, HASH_CHARS, content_hash

SERVICE_WORKER = "sw.js"
PLACEHOLDER = "/* RIDGEPOINT_RELEASE */ null"
# Never listed: the worker itself (its bytes carry the release) and host configuration.
UNLISTED = {SERVICE_WORKER, "_headers"}
PRECACHED_FOLDERS = ("assets/",)
RUNTIME_FOLDER = "assets/pyodide/"
# Inside those folders, what no page of this site loads: source maps, and Material's lunr
# language packs (the site is English; the search worker loads none of them).
NOT_PRECACHED = ("assets/javascripts/lunr/",)
NOT_PRECACHED_SUFFIXES = (".map", ".LICENSE.txt")


class OfflineError(Exception):
    """The service worker cannot be given its release."""


def manifest(site_dir: Path) -> dict[str, str]:
    """Every file of the built site (POSIX path relative to it) -> its content hash prefix."""
    files = {}
    for path in sorted(site_dir.rglob("*")):
        name = path.relative_to(site_dir).as_posix()
        if path.is_file() and name not in UNLISTED:
            files[name] = content_hash(path.read_bytes())
    return files


def kept(name: str, kept_files: tuple[str, ...] = ()) -> bool:
    """Whether the worker keeps this file from the start (at install, or for the runtime at
    first use), rather than only once a visited page has asked for it: what is under
    PRECACHED_FOLDERS and is loaded, and the `kept_files` named (the search index)."""
    return name in kept_files or (
        name.startswith(PRECACHED_FOLDERS) and not name.startswith(NOT_PRECACHED)
        and not name.endswith(NOT_PRECACHED_SUFFIXES))


def release(site_dir: Path, kept_files: tuple[str, ...] = ()) -> dict[str, object]:
    """The release of the built site; `kept_files` are kept from the start (see kept)."""
    files = manifest(site_dir)
    missing = [name for name in kept_files if name not in files]
    if missing:
        raise OfflineError(f"the site has no {', '.join(missing)} to keep for offline use")
    listing = "".join(f"{name}\0{digest}\n" for name, digest in files.items())
    runtime = [n for n in files if kept(n, kept_files) and n.startswith(RUNTIME_FOLDER)]
    return {
        "id": hashlib.sha256(listing.encode("utf-8")).hexdigest()[:HASH_CHARS],
        "precache": [n for n in files
                     if kept(n, kept_files) and not n.startswith(RUNTIME_FOLDER)],
        "runtime": runtime,
        "packed": [n for n in runtime if _gzipped(site_dir / n)],
        "files": files,
    }


def _gzipped(path: Path) -> bool:
    with path.open("rb") as file:
        return file.read(2) == GZIP_MAGIC


def stamp_service_worker(site_dir: Path, kept_files: tuple[str, ...] = ()) -> str | None:
    """Write this build's release into `site_dir/sw.js` (`kept_files` kept from the start,
    see kept); its id, or None for a site without a service worker."""
    worker = Path(site_dir) / SERVICE_WORKER
    if not worker.is_file():
        return None
    text = worker.read_text(encoding="utf-8")
    if text.count(PLACEHOLDER) != 1:
        raise OfflineError(f"{worker} must contain {PLACEHOLDER!r} exactly once")
    stamped = release(Path(site_dir), kept_files)
    worker.write_text(
        text.replace(PLACEHOLDER, json.dumps(stamped, separators=(",", ":"))), encoding="utf-8"
    )
    return str(stamped["id"])
