"""The browser runtime, staged from pinned local packages: Pyodide, the chart library, sims.

Everything the reader's browser runs is copied into the staging tree from `node_modules/`
(pinned by package-lock.json) and the sims' source as this build read it (SimSource), so the
built site never asks another host for anything and the Python a page fetches is the Python
its prerendered results came from. Only the sims the pages embed are staged, with the
modules they import (SimSource.files_of), so a page fetches exactly the Python it needs.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from ridgepoint.base.filehash import GZIP_MAGIC, content_hash
from ridgepoint.base.layout import Layout
from ridgepoint.base.unchanged import write_changed
from ridgepoint.browser import packed, snapshot
from ridgepoint.sims.simsource import SimSource

# Pyodide's files as the worker fetches them: its loader and Emscripten's module factory
# (JavaScript, which every host compresses), the wasm gzipped here (ridgepoint.browser.packed,
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
    """The runtime cannot be staged: a package is missing or changed shape."""


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
                f"({line!r}); update ridgepoint.browser.runtime for the new release"
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


def unpacked_keys(target_dir: Path, names: list[str]) -> dict[str, str]:
    """The staged files the build gzipped -> the start of their SHA-256, as the service
    worker's release has it: the worker reads the inflated copy the service worker keeps of
    each (content/sw.js) straight from the cache, under a key naming those very bytes, so a
    copy of another build's file can never be taken for this one's."""
    keys = {}
    for name in names:
        path = target_dir / name
        data = path.read_bytes() if path.is_file() else b""
        if data[:2] == GZIP_MAGIC:
            keys[name] = content_hash(data)
    return keys


def stage_snapshot(layout: Layout, target_dir: Path, sims: SimSource
                   ) -> snapshot.Snapshot | None:
    """Put the current Pyodide snapshot of `sims` (ridgepoint.browser.snapshot), its trimmed
    standard library and the manifest naming them into `target_dir`, the wasm gzipped
    beside them, and drop
    every other file there but Pyodide's loaders. Without a snapshot (RIDGEPOINT_SNAPSHOT,
    or Node failed: the build says why and goes on) the manifest says so and names Pyodide's
    whole standard library, and the worker starts Python the normal way."""
    try:
        made = snapshot.current(layout, sims)
    except snapshot.SnapshotError as error:
        print(f"warning: no Pyodide snapshot, pages will start Python the slow way: {error}",
              file=sys.stderr)
        made = None
    pyodide = layout.node_modules / "pyodide"
    # Gzipped under its own name: the name is what Pyodide asks for, what the offline worker
    # and the tests know it by; the worker inflates whatever it gets (a host may gzip it
    # once more).
    _copy(packed.gzipped(pyodide / WASM, layout.packed), target_dir / WASM)
    manifest: dict[str, object] = {"file": None, "stdlib": FULL_STDLIB}
    if made is None:
        _copy(pyodide / FULL_STDLIB, target_dir / FULL_STDLIB)
    else:
        manifest = made.manifest()
        _copy(made.path, target_dir / made.file_name)
        _copy(made.stdlib, target_dir / made.stdlib_name)
    staged = [WASM, str(manifest["stdlib"]), str(manifest["file"])]
    manifest = {**manifest, "unpacked": unpacked_keys(target_dir, staged),
                "lock": lock_stub(layout.node_modules)}
    write_changed(target_dir / snapshot.MANIFEST, json.dumps(manifest, indent=1) + "\n")
    kept = {*PYODIDE_FILES, snapshot.MANIFEST, *staged}
    for old in target_dir.iterdir():
        if old.is_file() and old.name not in kept:
            old.unlink()
    return made


def stage_runtime(layout: Layout, stage_dir: Path, modules: set[str], sims: SimSource
                  ) -> None:
    """Copy Pyodide (with its memory snapshot of `sims`), the chart library and the given
    sims (with their imports, from `sims`) into `stage_dir/assets/{pyodide,vendor,sims}/`.
    Files from earlier builds that are no longer needed are removed from assets/sims/, so
    the site ships only what pages use."""
    assets = Path(stage_dir) / "assets"
    node_modules = layout.node_modules
    for name in PYODIDE_FILES:
        _copy(node_modules / "pyodide" / name, assets / "pyodide" / name)
    for name, source in VENDOR_FILES.items():
        _copy(node_modules / source, assets / "vendor" / name)
    write_changed(assets / "vendor" / "vega-interpreter.js", interpreter_module(node_modules))
    for package in VENDOR_LICENSES:
        _copy(node_modules / package / "LICENSE", assets / "vendor" / f"{package}.LICENSE.txt")
    stage_snapshot(layout, assets / "pyodide", sims)
    # Builds before the theme's bundle was hinted in the built site staged a copy here; left
    # in place, it would ship beside the bundle the builder writes.
    shutil.rmtree(assets / "javascripts", ignore_errors=True)

    files = {file for module in sorted(modules) for file in sims.files_of(module)}
    sims_target = assets / "sims"
    for file in sorted(files):
        write_changed(sims_target / file, sims.files[file])
    if sims_target.is_dir():
        for stale in sims_target.rglob("*.py"):
            if stale.relative_to(sims_target).as_posix() not in files:
                stale.unlink()
