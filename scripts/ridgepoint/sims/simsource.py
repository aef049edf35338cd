"""The sims' source as one build reads it: every file's bytes, read once, and their digests.

Everything made from a sim (a staged page, a native run, the Pyodide snapshot, the files a
page fetches) is made from one `SimSource` and keyed by its digests, so a cache entry always
names the bytes that produced it: a save in sims/ while a build runs cannot make a key name
code other than the code that ran (ridgepoint.sims.simcode executes these same bytes).

A sim's dependencies are the files `import sims.<module>` executes, found by reading the
source with `ast` rather than by importing it, so they are known before anything runs and
include imports inside functions. A sim that imports what Pyodide does not ship (anything
beyond the standard library) or that does not parse is a content error at its file and line.
A build's SimSource keeps each file's imports and compiled code on disk
(ridgepoint.sims.compiledfiles), under a key naming its bytes.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType

from ridgepoint.base.errors import ContentError, ContentErrors
from ridgepoint.sims.compiledfiles import CompiledFiles, Imports, compile_file

PACKAGE = "sims"
RUNNER = "_runner"  # what the browser's worker calls (sims/_runner.py): every page needs it


@dataclass(frozen=True)
class SimSource:
    """The sims package's files (POSIX paths relative to `folder`) and their bytes."""

    folder: Path
    files: Mapping[str, bytes]
    digest: str  # of every file's path and bytes
    kept: CompiledFiles | None = field(default=None, compare=False, repr=False)
    _closures: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False, repr=False)
    _compiled: dict[str, tuple[Imports, CodeType | None]] = field(
        default_factory=dict, compare=False, repr=False)

    @classmethod
    def read(cls, folder: Path, kept: Path | None = None) -> SimSource:
        """Read every .py file of the package under `folder` (caches aside); with `kept`,
        each file's imports and code are kept in that folder (ridgepoint.sims.compiledfiles)."""
        folder = folder.resolve()
        files = {
            path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*.py"))
            if "__pycache__" not in path.relative_to(folder).parts
        }
        return cls(folder, files, _digest(files, files),
                   CompiledFiles(kept) if kept is not None else None)

    def module_names(self) -> list[str]:
        """The package's top-level modules by file name (sims and infrastructure alike):
        what can be told without executing anything."""
        return sorted(name.removesuffix(".py") for name in self.files
                      if "/" not in name and not name.startswith("_"))

    def where(self, relative: str) -> str:
        """A file as errors name it: `sims/<file>`."""
        return f"{PACKAGE}/{relative}"

    def module_file(self, dotted: str) -> str | None:
        """The file of a module of the package (`sims`, `sims.physics`), or None."""
        parts = dotted.split(".")
        if parts[0] != PACKAGE:
            return None
        base = "/".join(parts[1:])
        candidates = (f"{base}.py", f"{base}/__init__.py") if base else ("__init__.py",)
        return next((name for name in candidates if name in self.files), None)

    def closure(self, module: str) -> tuple[str, ...]:
        """Files `import sims.<module>` executes, sorted. Raises ContentErrors when one does
        not parse or imports something outside the package that is not the standard library
        (Pyodide ships only that), and LookupError for a module the package does not have."""
        if module not in self._closures:
            start = self.module_file(f"{PACKAGE}.{module}")
            if start is None:
                raise LookupError(f"no sim module named {module!r} in {self.folder}")
            seen: set[str] = set()
            todo = [start, "__init__.py"]
            while todo:
                relative = todo.pop()
                if relative in seen:
                    continue
                seen.add(relative)
                todo += self._imported_files(relative)
            self._closures[module] = tuple(sorted(seen))
        return self._closures[module]

    def files_of(self, module: str) -> tuple[str, ...]:
        """What running `module` needs, in the browser as natively: its closure and the
        runner's (the files a page fetches; a staged widget lists them)."""
        return tuple(sorted({*self.closure(module), *self.closure(RUNNER)}))

    def digest_of(self, module: str) -> str:
        """The digest of exactly the files `files_of(module)` names: what a run of it, or a
        widget of it, depends on. Editing another sim leaves it unchanged."""
        return _digest(self.files, self.files_of(module))

    def code(self, relative: str) -> CodeType:
        """The file's code, compiled as an import executes it (under its absolute path).
        Raises ContentErrors when it does not parse, SyntaxError when it does not compile."""
        code = None
        if self.kept is not None:
            # One that does not parse: compiling it below raises what an import reports.
            with contextlib.suppress(ContentErrors):
                code = self._read(relative)[1]
        if code is None:  # not kept, or not compiling: compiled here (raising why not)
            code = compile_file(str(self.folder / relative), self.files[relative])
        return code

    def prune(self) -> None:
        """Remove the least recently used of the kept files' entries (when any was added)."""
        if self.kept is not None:
            self.kept.prune()

    def _read(self, relative: str) -> tuple[Imports, CodeType | None]:
        """The file's imports, and its code when `kept` holds it: from this process, else
        `kept`, else made (unkept code is compiled when executed, see `code`)."""
        if relative not in self._compiled:
            data = self.files[relative]
            scan = functools.partial(_imports, relative, data)
            self._compiled[relative] = (scan(), None) if self.kept is None else \
                self.kept.get(relative, str(self.folder / relative), data, scan)
        return self._compiled[relative]

    def _imported_files(self, relative: str) -> Iterator[str]:
        for name, line in self._read(relative)[0]:
            top = name.split(".")[0]
            if top == PACKAGE:
                target = self.module_file(name)
                if target is not None:
                    yield target
            elif top not in sys.stdlib_module_names and top != "__future__":
                message = (f"imports {name!r}, which is neither part of the sims package "
                           f"nor of the standard library")
                raise ContentErrors([ContentError(
                    self.where(relative), line, "import", message,
                    "standard-library modules only: Pyodide ships only those")])


def _digest(files: Mapping[str, bytes], names: Iterable[str]) -> str:
    digest = hashlib.sha256()
    for name in sorted(names):
        digest.update(name.encode() + b"\0" + _file_hash(files[name]))
    return digest.hexdigest()[:32]


@functools.lru_cache(maxsize=4096)
def _file_hash(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


@functools.lru_cache(maxsize=1024)
def _imports(relative: str, data: bytes) -> tuple[tuple[str, int], ...]:
    """(absolute dotted name, line) of every import in one version of a file (relative
    imports resolved). `from sims import charts` may name a submodule rather than an
    attribute, so both are listed."""
    try:
        tree = ast.parse(data, f"{PACKAGE}/{relative}")
    except SyntaxError as error:
        raise ContentErrors([ContentError(
            f"{PACKAGE}/{relative}", error.lineno or 1, "python",
            f"does not parse: {error.msg}", "valid Python 3.11")]) from None
    package = ".".join((PACKAGE, *Path(relative).parent.parts))
    found: list[tuple[str, int]] = []
    for node in _import_statements(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
            continue
        if node.level:
            anchor = package.split(".")
            anchor = anchor[: len(anchor) - node.level + 1]
            base = ".".join(anchor + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        found.append((base, node.lineno))
        found += [(f"{base}.{alias.name}", node.lineno) for alias in node.names]
    return tuple(found)


def _import_statements(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement in a module, at any depth. Statements nest only in other
    statements, except handlers and match cases, so the expressions that make up most of
    the tree are never visited (ast.walk visited them all, five times slower)."""
    todo: list[ast.AST] = [tree]
    while todo:
        for child in ast.iter_child_nodes(todo.pop()):
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child
            elif isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
                todo.append(child)
