"""The browser runtime is staged from pinned local packages, with only the sims pages use."""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import re
from pathlib import Path

import pytest

from ridgepoint.browser import runtime
from ridgepoint.browser.runtime import PYODIDE_FILES, StagingError, stage_runtime
from ridgepoint.sims.simsource import SimSource
from tests.repo import LAYOUT

SIMS = SimSource.read(LAYOUT.sims)
NODE_MODULES = LAYOUT.node_modules


def test_staging_copies_pyodide_the_chart_library_and_only_the_needed_sims(
    tmp_path: Path,
) -> None:
    stage_runtime(LAYOUT, tmp_path, {"batching"}, SIMS)
    assets = tmp_path / "assets"
    for name in PYODIDE_FILES:
        assert (assets / "pyodide" / name).read_bytes() == (
            NODE_MODULES / "pyodide" / name
        ).read_bytes()
    manifest = json.loads((assets / "pyodide" / "snapshot.json").read_text())
    assert manifest["lock"]["info"]["python"].startswith("3.14")
    assert manifest["lock"]["packages"] == {}  # the sims load no package
    assert not (assets / "pyodide" / "pyodide-lock.json").exists()
    # Gzipped by the build, under its own name: hosts do not compress wasm alike.
    wasm = (assets / "pyodide" / runtime.WASM).read_bytes()
    assert wasm[:2] == b"\x1f\x8b" and "wasm" not in manifest  # asked for by its name
    # Each file the build gzipped, by the hash its inflated copy is cached under (sw.js).
    staged = {p.name: p.read_bytes() for p in (assets / "pyodide").iterdir()}
    assert manifest["unpacked"] == {
        name: hashlib.sha256(data).hexdigest()[:16]
        for name, data in staged.items() if data[:2] == b"\x1f\x8b"}
    assert runtime.WASM in manifest["unpacked"]
    assert gzip.decompress(wasm) == (NODE_MODULES / "pyodide" / runtime.WASM).read_bytes()
    assert tuple(sorted(p.name for p in (assets / "sims").iterdir())) == SIMS.files_of("batching")
    for path in (assets / "sims").iterdir():
        assert path.read_bytes() == SIMS.files[path.name]  # the very bytes the build read
    vendor = sorted(p.name for p in (assets / "vendor").iterdir())
    assert vendor == [
        "vega-interpreter.LICENSE.txt", "vega-interpreter.js", "vega-lite.LICENSE.txt",
        "vega-lite.min.js", "vega.LICENSE.txt", "vega.min.js",
    ]
    interpreter = (assets / "vendor" / "vega-interpreter.js").read_text()
    assert "from 'vega-util'" not in interpreter
    assert interpreter.startswith(runtime.INTERPRETER_SHIM)
    assert "export { expression as expressionInterpreter, Constants, DisallowedMethods, " \
        "DisallowedObjectProperties, EventFunctions, Functions, Ops, Unary, adjustSpatial };" \
        in interpreter
    assert interpreter.count("export ") == 1


def test_every_table_the_page_evaluator_imports_is_exported() -> None:
    """content/assets/sim/expressions.js imports vega-interpreter's tables by name: each is
    a top-level name of the module, and exported."""
    evaluator = (LAYOUT.content / "assets" / "sim" / "expressions.js").read_text()
    imported = re.search(r"import \{([^}]*)\} from \"\.\./vendor/vega-interpreter\.js\";",
                         evaluator)
    assert imported is not None
    names = sorted(name.strip() for name in imported.group(1).split(",") if name.strip())
    assert names == sorted(runtime.INTERPRETER_TABLES)
    source = (NODE_MODULES / runtime.INTERPRETER_SOURCE).read_text()
    for name in names:
        assert re.search(rf"^(const|var|function) {name}\b", source, re.MULTILINE) \
            or name in runtime.INTERPRETER_SHIM, name


@pytest.mark.parametrize("line", [runtime.INTERPRETER_IMPORT, runtime.INTERPRETER_EXPORT])
def test_a_release_with_other_imports_or_exports_fails_the_build(
    tmp_path: Path, line: str
) -> None:
    source = tmp_path / "node_modules" / runtime.INTERPRETER_SOURCE
    source.parent.mkdir(parents=True)
    text = (NODE_MODULES / runtime.INTERPRETER_SOURCE).read_text()
    source.write_text(text.replace(line, line.replace(" }", ", more }")))
    with pytest.raises(StagingError, match="update ridgepoint.browser.runtime"):
        runtime.interpreter_module(tmp_path / "node_modules")
    source.write_text(text)
    assert runtime.interpreter_module(tmp_path / "node_modules").count("export ") == 1


def test_restaging_drops_sims_no_page_uses(tmp_path: Path) -> None:
    stage_runtime(LAYOUT, tmp_path, {"batching", "roofline"}, SIMS)
    assert (tmp_path / "assets" / "sims" / "roofline.py").is_file()
    stage_runtime(LAYOUT, tmp_path, {"batching"}, SIMS)
    assert not (tmp_path / "assets" / "sims" / "roofline.py").exists()
    assert (tmp_path / "assets" / "sims" / "batching.py").is_file()


def test_a_missing_package_says_how_to_get_it(tmp_path: Path) -> None:
    without = dataclasses.replace(LAYOUT, node_modules=tmp_path / "node_modules")
    with pytest.raises(StagingError, match="npm ci"):
        stage_runtime(without, tmp_path / "out", {"batching"}, SIMS)


def test_vega_lite_matches_what_vl_convert_renders() -> None:
    """The prerendered SVG and the live chart must come from the same Vega-Lite minor."""
    from ridgepoint.sims.charts import VL_VERSION

    package = json.loads((NODE_MODULES / "vega-lite" / "package.json").read_text())
    major, minor, _ = package["version"].split(".")
    assert f"v{major}_{minor}" == VL_VERSION
