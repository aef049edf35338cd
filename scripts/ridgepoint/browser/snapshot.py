"""The Pyodide memory snapshot: Python started and every sim imported, made at build time.

Starting Pyodide in the reader's browser means instantiating the interpreter and importing
the standard library and the sims: seconds on a cold visit. Restoring a memory snapshot of
an interpreter that has already done all that takes a fraction of it (`make bench` measures
both). The snapshot is made under Node by make_snapshot.mjs with Pyodide's private
`_makeSnapshot` option, which is tied to the exact Pyodide build, so:

- the cache key (build/cache/pyodide-snapshot/, `Layout.snapshots`) covers the Pyodide
  version and loader, the bytes of every sims file and of the maker script: a rebuild with
  nothing changed costs a few file hashes, any change makes a new snapshot (seconds). The
  maker imports a copy of exactly the sims bytes the key was made from (the build's
  SimSource), never sims/ itself, which a save may change meanwhile;
- the file is staged under a name carrying its own digest, beside a small manifest
  (`snapshot.json`: file, size, modules, the standard library's file) the worker reads
  first, so a browser never pairs an old cached snapshot with a new manifest;
- the standard library is trimmed to what the sims and Pyodide's start load
  (ridgepoint/browser/stdlib.py): a first Node run lists those files, the snapshot is then made
  on the trimmed zip (zipimport keeps the zip's directory in the heap), and both are cached
  and staged together;
- when Node or the maker fails, the build says so and goes on without a snapshot; the
  worker then starts Python the normal way (as it does when a restore fails).

The heap is 30 MiB, half of it pages of zeros, and hosts do not compress
application/octet-stream. So the file is `gzip(sparse(heap))`: the non-zero 4 KiB pages
with their indexes, gzipped here, inflated by the worker (DecompressionStream), whose gzip
trailer (CRC-32 and length) also refuses a damaged download. The maker zeroes the
allocator's free memory and XORs the heap's start with the wasm's own data segments
(make_snapshot.mjs), which the worker undoes: about 3.9 MB on the wire, from 6.1 MB.

RIDGEPOINT_SNAPSHOT=cached (set by `make serve`) uses a cached snapshot when one matches and
otherwise stages none, so saving a sim while serving does not wait for Node;
RIDGEPOINT_SNAPSHOT=off never stages one.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import struct
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ridgepoint.base.atomic import write_atomic
from ridgepoint.base.layout import Layout
from ridgepoint.browser import stdlib
from ridgepoint.sims.simsource import SimSource

MAKER = Path(__file__).with_name("make_snapshot.mjs")  # part of this package, like this file
HOME = "/home/pyodide/ridgepoint"  # where the worker keeps the sims package (worker.js HOME)
MANIFEST = "snapshot.json"
PREFIX = "snapshot-"
STDLIB_PREFIX = "python_stdlib-"
TIMEOUT_S = 300
POLICY_VARIABLE = "RIDGEPOINT_SNAPSHOT"
POLICIES = ("make", "cached", "off")

# The sparse format (little-endian), read by worker.js `inflateHeap`:
#   magic "RPS1", u32 page size, u32 heap size, u32 page count,
#   u32 index of each non-zero page (ascending), then those pages' bytes in that order
#   (the last page of the heap may be short).
MAGIC = b"RPS1"
PAGE = 4096
GZIP_LEVEL = 9  # made once per sims change, downloaded by every reader


class SnapshotError(RuntimeError):
    """No snapshot could be made (Node missing or failing, or a bad maker output)."""


def policy() -> str:
    """make (default), cached or off: see the module docstring."""
    value = os.environ.get(POLICY_VARIABLE, "make")
    if value not in POLICIES:
        raise SnapshotError(f"{POLICY_VARIABLE}={value!r}: expected one of {', '.join(POLICIES)}")
    return value


def sparse(heap: bytes, page: int = PAGE) -> bytes:
    """The heap without its all-zero pages (see the format above)."""
    zero = bytes(page)
    indexes = [
        index for index in range((len(heap) + page - 1) // page)
        if heap[index * page:(index + 1) * page] != zero[: len(heap) - index * page]
    ]
    head = MAGIC + struct.pack(f"<III{len(indexes)}I", page, len(heap), len(indexes), *indexes)
    return head + b"".join(heap[index * page:(index + 1) * page] for index in indexes)


def expand(packed: bytes) -> bytes:
    """The heap back from `sparse` output (what the worker does in JavaScript)."""
    if packed[:4] != MAGIC:
        raise SnapshotError("not a sparse snapshot (bad magic)")
    page, size, count = struct.unpack_from("<III", packed, 4)
    indexes = struct.unpack_from(f"<{count}I", packed, 16)
    heap = bytearray(size)
    offset = 16 + 4 * count
    for index in indexes:
        start = index * page
        length = min(page, size - start)
        heap[start:start + length] = packed[offset:offset + length]
        offset += length
    if offset != len(packed):
        raise SnapshotError(f"sparse snapshot has {len(packed) - offset} stray bytes")
    return bytes(heap)


@dataclass(frozen=True)
class Snapshot:
    """A made snapshot in the cache, with its trimmed standard library, and what the worker
    needs to know about them."""

    path: Path  # gzip(sparse(heap)), its start XORed with the wasm's data segments
    digest: str  # sha256 of the file, hex
    modules: tuple[str, ...]
    delta: int  # how many bytes of the memory, from its start, are XORed
    stdlib: Path  # the trimmed python_stdlib.zip, gzipped (the raw zip is beside it)

    @property
    def file_name(self) -> str:
        return f"{PREFIX}{self.digest[:20]}.bin"

    @property
    def stdlib_zip(self) -> Path:
        """The trimmed zip itself, as Pyodide mounts it (the cross-runtime test's)."""
        return self.stdlib.with_suffix("")

    @property
    def stdlib_name(self) -> str:
        digest = hashlib.sha256(self.stdlib.read_bytes()).hexdigest()
        return f"{STDLIB_PREFIX}{digest[:20]}.zip.gz"

    @property
    def heap_size(self) -> int:
        """The heap's full size, from the sparse header: the worker sizes Python's memory
        with it before the snapshot has downloaded (worker.js restore)."""
        with gzip.open(self.path) as packed:
            head = packed.read(16)
        if head[:4] != MAGIC:
            raise SnapshotError(f"{self.path}: not a sparse snapshot (bad magic)")
        return struct.unpack_from("<I", head, 8)[0]

    def manifest(self) -> dict[str, object]:
        return {"file": self.file_name, "bytes": self.path.stat().st_size,
                "format": "gzip+sparse+xor", "size": self.heap_size, "xor": self.delta,
                "stdlib": self.stdlib_name, "modules": list(self.modules)}


def _pyodide_identity(node_modules: Path) -> str:
    """Version and loader of the pinned Pyodide: a snapshot fits only this build."""
    package = json.loads((node_modules / "pyodide" / "package.json").read_text("utf-8"))
    loader = (node_modules / "pyodide" / "pyodide.mjs").read_bytes()
    return f"{package['version']}|{hashlib.sha256(loader).hexdigest()}"


def cache_key(source: SimSource, node_modules: Path) -> str:
    """Everything the snapshot's bytes depend on, hashed: every sims file (the snapshot
    imports them all), this Pyodide, the maker and the standard library's trimming."""
    digest = hashlib.sha256()
    for part in (_pyodide_identity(node_modules), HOME, str(PAGE), str(GZIP_LEVEL),
                 source.digest):
        digest.update(part.encode() + b"\0")
    for code in (MAKER, Path(stdlib.__file__)):
        digest.update(hashlib.sha256(code.read_bytes()).digest())
    return digest.hexdigest()


def _paths(layout: Layout, key: str) -> dict[str, Path]:
    folder = layout.snapshots
    return {"heap": folder / f"{key}.bin", "meta": folder / f"{key}.json",
            "zip": folder / f"{key}.zip", "stdlib": folder / f"{key}.zip.gz"}


def cached(layout: Layout, source: SimSource) -> Snapshot | None:
    """The cached snapshot for these sims and this Pyodide, if one was made."""
    paths = _paths(layout, cache_key(source, layout.node_modules))
    if not all(path.is_file() for path in paths.values()):
        return None
    known = json.loads(paths["meta"].read_text("utf-8"))
    return Snapshot(paths["heap"], known["digest"], tuple(known["modules"]), known["delta"],
                    paths["stdlib"])


def _run_maker(*arguments: str) -> dict[str, object]:
    """Run make_snapshot.mjs with `arguments`; the JSON line it ends with."""
    try:
        done = subprocess.run(
            ["node", str(MAKER), *arguments],
            capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SnapshotError(f"node could not run {MAKER.name}: {error}") from None
    if done.returncode != 0:
        raise SnapshotError(f"{MAKER.name} {arguments[0]} failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def make(layout: Layout, source: SimSource) -> Snapshot:
    """The snapshot for these sims, from the cache or made now (seconds): the standard
    library they load is listed, trimmed, and the heap made on the trimmed zip. Both Node
    runs import a copy of exactly `source`'s bytes, the bytes the key names."""
    found = cached(layout, source)
    if found is not None:
        return found
    key = cache_key(source, layout.node_modules)
    cache_dir = layout.snapshots
    cache_dir.mkdir(parents=True, exist_ok=True)
    paths = _paths(layout, key)
    full = (layout.node_modules / "pyodide" / "python_stdlib.zip").read_bytes()
    with tempfile.TemporaryDirectory(dir=cache_dir) as work:
        sims_copy = Path(work) / "sims"
        for relative, data in source.files.items():
            (sims_copy / relative).parent.mkdir(parents=True, exist_ok=True)
            (sims_copy / relative).write_bytes(data)
        listed = _run_maker("list", str(sims_copy), HOME)
        try:
            trimmed = stdlib.trimmed_zip(full, listed["members"])  # type: ignore[arg-type]
        except stdlib.TrimError as error:
            raise SnapshotError(str(error)) from None
        zip_file, heap_file = Path(work) / "stdlib.zip", Path(work) / "heap.bin"
        zip_file.write_bytes(trimmed)
        made = _run_maker("make", str(sims_copy), HOME, str(zip_file), str(heap_file))
        if not heap_file.is_file():
            raise SnapshotError(f"{MAKER.name} make wrote no heap")
        packed = gzip.compress(sparse(heap_file.read_bytes()), GZIP_LEVEL, mtime=0)
    digest = hashlib.sha256(packed).hexdigest()
    modules = [str(name) for name in made["modules"]]  # type: ignore[union-attr]
    delta = int(made["delta"])  # type: ignore[call-overload]
    write_atomic(paths["heap"], packed)
    write_atomic(paths["zip"], trimmed)
    write_atomic(paths["stdlib"], gzip.compress(trimmed, GZIP_LEVEL, mtime=0))
    # The meta goes last: a parallel build that finds it finds the whole snapshot too.
    write_atomic(paths["meta"], json.dumps({"digest": digest, "modules": modules, "delta": delta}))
    for old in cache_dir.iterdir():  # only the current one
        if old.is_file() and old.name.split(".")[0] != key:
            old.unlink(missing_ok=True)
    return Snapshot(paths["heap"], digest, tuple(modules), delta, paths["stdlib"])


def current(layout: Layout, source: SimSource) -> Snapshot | None:
    """The snapshot of `source` to stage under the RIDGEPOINT_SNAPSHOT policy; None for none."""
    chosen = policy()
    if chosen == "off":
        return None
    if chosen == "cached":
        return cached(layout, source)
    return make(layout, source)
