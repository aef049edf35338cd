"""The sims' files as a build needs them, kept on disk: each file's imports and its code.

Every build, `make check` and every restage of `make serve` reads the sims' imports with
`ast` (ridgepoint.sims.simsource) and compiles every file to execute it (ridgepoint.sims.simcode):
some 100 ms of a build's own 0.5 s, for files that rarely change. Both are pure functions
of a file's bytes, its place in the package (relative imports are read from it), the name
it is compiled under and the code doing the work, so an entry is named by exactly those:
the bytes, both names, the interpreter's bytecode tag (`sys.implementation.cache_tag`: a
code object is read only by the Python that wrote it), this module's and
ridgepoint.sims.simsource's own source. Unlike a `.pyc`, which Python trusts by the source's
modification time and size, an entry is never read for other bytes.

Entries are `marshal`led (imports, code) pairs under `Layout.sim_code`; the least recently
used beyond MAX_ENTRIES are removed after a build that wrote new ones.
"""

from __future__ import annotations

import hashlib
import marshal
import sys
from collections.abc import Callable
from pathlib import Path
from types import CodeType

from ridgepoint.base import lru
from ridgepoint.base.atomic import write_atomic

Imports = tuple[tuple[str, int], ...]  # (absolute dotted name, line) of each import
MAX_ENTRIES = 2000
_HERE = Path(__file__).resolve()


def _code_digest() -> bytes:
    """What makes an entry besides its file: this module, the scanner (simsource) and the
    interpreter's bytecode."""
    digest = hashlib.sha256(sys.implementation.cache_tag.encode())
    for path in (_HERE, _HERE.with_name("simsource.py")):
        digest.update(path.read_bytes())
    return digest.digest()


CODE_DIGEST = _code_digest()


class CompiledFiles:
    """Each sims file's imports and compiled code, from `folder` when an entry names its
    bytes, else made by `scan` and `compile` and written there."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.written = 0

    def get(self, relative: str, filename: str, data: bytes, scan: Callable[[], Imports]
            ) -> tuple[Imports, CodeType | None]:
        """The imports (`scan()`'s result) of the package's file `relative` and its code
        compiled under `filename`; None for code that does not compile (importing it reports
        why). `scan` raises for a file that does not parse, and nothing is kept for it."""
        path = self._path(f"{relative}\0{filename}", data)
        try:
            imports, code = marshal.loads(path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            imports, code = scan(), compiled(filename, data)
            write_atomic(path, marshal.dumps((imports, code)))
            self.written += 1
        else:
            path.touch()  # recently used: kept by prune()
        return imports, code

    def prune(self) -> None:
        """Keep the MAX_ENTRIES most recently used entries (only after new ones were added)."""
        if self.written:
            lru.prune(self.folder, MAX_ENTRIES)

    def _path(self, names: str, data: bytes) -> Path:
        digest = hashlib.sha256(CODE_DIGEST)
        digest.update(names.encode() + b"\0")
        digest.update(data)
        return self.folder / f"{digest.hexdigest()}.marshal"


def compile_file(filename: str, data: bytes) -> CodeType:
    """The file's code as an import executes it (raising SyntaxError or ValueError when it
    does not compile). Kept entries and files compiled afresh both come from here, so a kept
    code object is the one a fresh compile would give."""
    return compile(data, filename, "exec", dont_inherit=True)


def compiled(filename: str, data: bytes) -> CodeType | None:
    """compile_file, or None if the file does not compile."""
    try:
        return compile_file(filename, data)
    except (SyntaxError, ValueError):
        return None
