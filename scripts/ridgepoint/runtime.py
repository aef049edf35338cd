"""The browser runtime, staged from pinned local packages: Pyodide, the chart library, sims.

Everything the reader's browser runs is copied into the staging tree from `node_modules/`
(pinned by package-lock.json) and `sims/`, so the built site never asks another host for
anything. Only the sims the pages embed are staged, with the modules they import (found
by reading their source with `ast`, not by importing them), so a page fetches exactly the
Python it needs.
"""

from __future__ import annotations

import ast
import functools
import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

from ridgepoint import packed, snapshot
from ridgepoint.layout import Layout

PACKAGE = "sims"

# Pyodide's files as the worker fetches them: its loader and Emscripten's module factory
# (JavaScript, which every host compresses), the wasm gzipped here (ridgepoint.packed,
# staged under its own name), and
# the standard library and lock as the manifest names them (stage_snapshot). Pyodide's own
# python_stdlib.zip is staged only for a build without a snapshot, which has no trimmed one.
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs")
WASM = "pyodide.asm.wasm"
FULL_STDLIB = "python_stdlib.zip"

# The chart library as the widget loads it: vega and vega-lite as their UMD builds (they
# set globals when imported as modules), vega-interpreter (Vega expressions without
# generated code, for a CSP without 'unsafe-eval'). vega-embed is not needed: the widget
# drives a vega View directly so that it can keep the view and swap its data.
VENDOR_FILES = {
    "vega.min.js": "vega/build/vega.min.js",
    "vega-lite.min.js": "vega-lite/build/vega-lite.min.js",
}
VENDOR_LICENSES = ("vega", "vega-lite", "vega-interpreter")

# vega-interpreter is published as an ES module that imports from the bare name
# 'vega-util', which a browser cannot resolve without an import map (an inline script a
# strict CSP would have to allow). vega re-exports vega-util, so the staged copy takes the
# three names from the vega global instead. It also exports the tables the page's own
# evaluator (content/assets/sim/expressions.js) reads, so that they are vega-interpreter's,
# not copies. Both exact lines are checked so that a new release that imports or exports
# something else fails the build instead of failing in a browser.
INTERPRETER_SOURCE = "vega-interpreter/build/vega-interpreter.js"
INTERPRETER_IMPORT = "import { ascending, isString, DisallowedObjectProperties } from 'vega-util';"
INTERPRETER_SHIM = "const { ascending, isString, DisallowedObjectProperties } = globalThis.vega;"
INTERPRETER_EXPORT = "export { expression as expressionInterpreter };"
INTERPRETER_TABLES = (
    "Constants", "DisallowedMethods", "DisallowedObjectProperties", "EventFunctions",
    "Functions", "Ops", "Unary", "adjustSpatial",
)
INTERPRETER_EXPORTS = (
    f"export {{ expression as expressionInterpreter, {', '.join(INTERPRETER_TABLES)} }};"
)


class StagingError(Exception):
    """The runtime cannot be staged: a package is missing or a sim imports what it may not."""


def _module_file(sims_dir: Path, dotted: str) -> Path | None:
    """The source file of a module inside the sims package, or None if there is none."""
    parts = dotted.split(".")
    if parts[0] != PACKAGE:
        return None
    base = sims_dir.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if len(parts) > 1 and candidate.is_file():
            return candidate
    return sims_dir / "__init__.py" if len(parts) == 1 else None


def _imports(sims_dir: Path, path: Path) -> frozenset[str]:
    """Every module a file imports, as absolute dotted names (relative imports resolved).

    Parsed once per file version: every page embedding a sim asks for its closure."""
    stat = path.stat()
    return _parsed_imports(path, sims_dir, stat.st_mtime_ns, stat.st_size)


def sims_imported_by(sims_dir: Path, dotted: str) -> frozenset[str]:
    """The sims modules (dotted names) that the sims module `dotted` imports."""
    path = _module_file(sims_dir, dotted)
    if path is None:
        return frozenset()
    return frozenset(name for name in _imports(sims_dir, path)
                     if _module_file(sims_dir, name) not in (None, path))


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


@functools.lru_cache(maxsize=1024)
def _parsed_imports(path: Path, sims_dir: Path, mtime_ns: int, size: int) -> frozenset[str]:
    """_imports for one version of a file (the stat values are the cache key)."""
    package = ".".join((PACKAGE, *path.relative_to(sims_dir).parent.parts))
    found: set[str] = set()
    for node in _import_statements(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            found.add(base)
            # `from sims import charts` may name a submodule rather than an attribute.
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return frozenset(found)


def import_closure(sims_dir: Path, module: str) -> list[str]:
    """Files (relative to `sims_dir`, POSIX) that `import sims.<module>` executes, sorted.

    Raises StagingError when a file imports something outside the sims package that is
    not in the standard library: Pyodide ships the standard library only.
    """
    start = _module_file(sims_dir, f"{PACKAGE}.{module}")
    if start is None:
        raise StagingError(f"no sim module named {module!r} in {sims_dir}")
    seen: set[Path] = set()
    todo = [start, sims_dir / "__init__.py"]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _imports(sims_dir, path):
            top = name.split(".")[0]
            if top == PACKAGE:
                target = _module_file(sims_dir, name)
                if target is not None:
                    todo.append(target)
            elif top not in sys.stdlib_module_names and top != "__future__":
                where = path.relative_to(sims_dir.parent).as_posix()
                raise StagingError(
                    f"{where} imports {name!r}, which is neither part of the sims package "
                    f"nor of the standard library (Pyodide ships only that)"
                )
    return sorted(path.relative_to(sims_dir).as_posix() for path in seen)


def browser_files(sims_dir: Path, module: str) -> list[str]:
    """The sims files a page fetches to run `module`: its import closure plus the runner
    the worker calls (sims/_runner.py)."""
    closure = set(import_closure(sims_dir, module)) | set(import_closure(sims_dir, "_runner"))
    return sorted(closure)


def _copy(source: Path, target: Path) -> None:
    """Copy unless an identical copy (same size and mtime) is already there: rebuilds are
    mostly no-ops, and the 9.6 MB wasm is not rewritten every time."""
    if not source.is_file():
        raise StagingError(f"{source} is missing: run `npm ci` (or `make setup`) first")
    if target.is_file():
        old, new = target.stat(), source.stat()
        if old.st_size == new.st_size and old.st_mtime_ns == new.st_mtime_ns:
            return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)


def _write(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.is_file() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")


def interpreter_module(node_modules: Path) -> str:
    """vega-interpreter's ES module, reading its vega-util names from the vega global and
    exporting its tables (INTERPRETER_TABLES) beside its evaluator."""
    source = node_modules / INTERPRETER_SOURCE
    if not source.is_file():
        raise StagingError(f"{source} is missing: run `npm ci` (or `make setup`) first")
    text = source.read_text(encoding="utf-8")
    for line, keyword in ((INTERPRETER_IMPORT, "import "), (INTERPRETER_EXPORT, "export ")):
        if text.count(keyword) != 1 or line not in text:
            raise StagingError(
                f"{source} no longer has the one {keyword.strip()} line this build rewrites "
                f"({line!r}); update ridgepoint.runtime for the new release"
            )
    return text.replace(INTERPRETER_IMPORT, INTERPRETER_SHIM).replace(
        INTERPRETER_EXPORT, INTERPRETER_EXPORTS
    )


def lock_stub(node_modules: Path) -> dict[str, object]:
    """Pyodide's lock file without its packages: the sims load none, and Pyodide only
    checks the lock's ABI (its `info`). The worker passes it as `lockFileContents`, so the
    119 KB lock is neither fetched nor parsed."""
    lock = json.loads((node_modules / "pyodide" / "pyodide-lock.json").read_text("utf-8"))
    return {"info": lock["info"], "packages": {}}


def stage_snapshot(layout: Layout, target_dir: Path) -> snapshot.Snapshot | None:
    """Put the current Pyodide snapshot (ridgepoint.snapshot), its trimmed standard library
    and the manifest naming them into `target_dir`, the wasm gzipped beside them, and drop
    every other file there but Pyodide's loaders. Without a snapshot (RIDGEPOINT_SNAPSHOT,
    or Node failed: the build says why and goes on) the manifest says so and names Pyodide's
    whole standard library, and the worker starts Python the normal way."""
    try:
        made = snapshot.current(layout)
    except snapshot.SnapshotError as error:
        print(f"warning: no Pyodide snapshot, pages will start Python the slow way: {error}",
              file=sys.stderr)
        made = None
    pyodide = layout.node_modules / "pyodide"
    # Gzipped under its own name: the name is what the offline worker and the tests know it
    # by, and the worker inflates whatever it gets (a host may gzip it once more).
    wasm = WASM
    _copy(packed.gzipped(pyodide / WASM, layout.packed), target_dir / wasm)
    manifest: dict[str, object] = {"file": None, "stdlib": FULL_STDLIB}
    if made is None:
        _copy(pyodide / FULL_STDLIB, target_dir / FULL_STDLIB)
    else:
        manifest = made.manifest()
        _copy(made.path, target_dir / made.file_name)
        _copy(made.stdlib, target_dir / made.stdlib_name)
    manifest = {**manifest, "wasm": wasm, "lock": lock_stub(layout.node_modules)}
    _write(target_dir / snapshot.MANIFEST, json.dumps(manifest, indent=1) + "\n")
    kept = {*PYODIDE_FILES, snapshot.MANIFEST, wasm, str(manifest["stdlib"]), str(manifest["file"])}
    for old in target_dir.iterdir():
        if old.is_file() and old.name not in kept:
            old.unlink()
    return made


def stage_runtime(layout: Layout, stage_dir: Path, modules: set[str]) -> None:
    """Copy Pyodide (with its memory snapshot), the chart library and the given sims (with
    their imports) into `stage_dir/assets/{pyodide,vendor,sims}/`. Files from earlier
    builds that are no longer needed are removed from assets/sims/, so the site ships only
    what pages use."""
    assets = Path(stage_dir) / "assets"
    node_modules = layout.node_modules
    for name in PYODIDE_FILES:
        _copy(node_modules / "pyodide" / name, assets / "pyodide" / name)
    for name, source in VENDOR_FILES.items():
        _copy(node_modules / source, assets / "vendor" / name)
    _write(assets / "vendor" / "vega-interpreter.js", interpreter_module(node_modules))
    for package in VENDOR_LICENSES:
        _copy(node_modules / package / "LICENSE", assets / "vendor" / f"{package}.LICENSE.txt")
    stage_snapshot(layout, assets / "pyodide")
    # Builds before the theme's bundle was hinted in the built site staged a copy here; left
    # in place, it would ship beside the bundle the builder writes.
    shutil.rmtree(assets / "javascripts", ignore_errors=True)

    files = {file for module in sorted(modules) for file in browser_files(layout.sims, module)}
    sims_target = assets / "sims"
    for file in sorted(files):
        _copy(layout.sims / file, sims_target / file)
    if sims_target.is_dir():
        for stale in sims_target.rglob("*.py"):
            if stale.relative_to(sims_target).as_posix() not in files:
                stale.unlink()
