"""The pipeline runs the sims from the very bytes it read: a private copy of the package,
never the `sims` a process imported first, never a stale .pyc."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

import sims as imported_sims
from ridgepoint.base.errors import ContentErrors
from ridgepoint.sims import simcode
from ridgepoint.sims.simsource import SimSource
from tests.pipeline.test_simsource import fake_sims
from tests.repo import LAYOUT

TOY = (
    "from sims.kit.contract import Number, simulation\n"
    "INPUTS = (Number('n', 'N', default={default}, min=1, max=99),)\n"
    "@simulation(INPUTS)\n"
    "def simulate(n):\n"
    "    return {{'summary': {{'twice': {factor} * n}}, 'charts': []}}\n"
)


def toy_sims(root: Path, default: int = 3, factor: int = 2) -> SimSource:
    """The real contract (with the modules it imports) and a toy sim using it."""
    kit = LAYOUT.sims / "kit"
    return fake_sims(root, {"kit/contract.py": (kit / "contract.py").read_text(),
                            "kit/phased.py": (kit / "phased.py").read_text(),
                            "kit/rounding.py": (kit / "rounding.py").read_text(),
                            "toy.py": TOY.format(default=default, factor=factor)})


def run_defaults(source: SimSource) -> dict:
    code = simcode.load(source)
    sim = code.load("toy")
    return code.simulate("toy", code.contract.validate(sim.INPUTS, {}))


def test_an_edited_sim_runs_its_new_code_in_the_same_process(tmp_path: Path) -> None:
    assert run_defaults(toy_sims(tmp_path))["summary"] == {"twice": 6}
    assert run_defaults(toy_sims(tmp_path, default=4))["summary"] == {"twice": 8}  # default
    assert run_defaults(toy_sims(tmp_path, default=4, factor=3))["summary"] == {"twice": 12}


def test_a_same_size_edit_in_the_same_second_is_not_hidden_by_bytecode(tmp_path: Path) -> None:
    """Python trusts a .pyc whose source has the same size and modification second; the
    pipeline never reads one."""
    first = toy_sims(tmp_path, default=3)
    path = tmp_path / "sims" / "toy.py"
    stamp = path.stat().st_mtime_ns
    sys.path.insert(0, str(tmp_path))
    try:  # leave a .pyc for the old source, as an earlier import would have
        import py_compile
        py_compile.compile(str(path), doraise=True)
    finally:
        sys.path.remove(str(tmp_path))
    assert run_defaults(first)["summary"] == {"twice": 6}
    path.write_text(TOY.format(default=7, factor=2))  # same size
    os.utime(path, ns=(stamp, stamp))
    assert run_defaults(SimSource.read(tmp_path / "sims"))["summary"] == {"twice": 14}


def test_the_copy_never_replaces_the_sims_a_process_imported(tmp_path: Path) -> None:
    before = {name: module for name, module in sys.modules.items() if name.startswith("sims")}
    code = simcode.load(toy_sims(tmp_path))
    assert code.modules["sims"] is not imported_sims
    assert code.names == ("toy",)
    run_defaults(code.source)
    after = {name: module for name, module in sys.modules.items() if name.startswith("sims")}
    assert after == before


def test_a_module_the_source_lacks_is_not_imported_from_disk(tmp_path: Path) -> None:
    source = fake_sims(tmp_path, {"a.py": "def later():\n    from sims import b\n    return b\n"})
    (tmp_path / "sims" / "b.py").write_text("X = 1\n")  # saved after the build read sims/
    code = simcode.load(source)
    with code.active(), pytest.raises(ImportError, match="cannot import name .b."):
        code.modules["sims.a"].later()


def test_a_sim_that_fails_to_import_is_a_content_error_at_its_line(tmp_path: Path) -> None:
    source = fake_sims(tmp_path, {"a.py": "X = 1\nY = 1 / 0\n"})
    with pytest.raises(ContentErrors) as raised:
        simcode.load(source)
    assert str(raised.value) == (
        "sims/a.py:2: python: fails to import: ZeroDivisionError: division by zero "
        "(expected a module that imports cleanly)"
    )


def test_the_real_sims_load_as_the_package_lists_them(tmp_path: Path) -> None:
    copy = tmp_path / "sims"
    shutil.copytree(LAYOUT.sims, copy, ignore=shutil.ignore_patterns("__pycache__"))
    code = simcode.load(SimSource.read(copy))
    assert list(code.names) == imported_sims.sim_names()
    assert code.modules["sims.batching"].__file__ == str(copy / "batching.py")
