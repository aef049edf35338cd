"""The trimmed standard library keeps what Python loaded, its packages' __init__ files, and
nothing else, stored, in a stable order and with stable bytes."""

from __future__ import annotations

import io
import zipfile

import pytest

from ridgepoint.browser import stdlib
from tests.repo import LAYOUT

FULL = (LAYOUT.node_modules / "pyodide" / "python_stdlib.zip").read_bytes()


def test_a_loaded_module_brings_the_packages_above_it_and_nothing_else() -> None:
    names = ["a.py", "json/__init__.py", "json/decoder.py", "xml/__init__.py",
             "xml/dom/__init__.py", "xml/dom/minidom.py", "zipfile/__init__.py"]
    assert stdlib.members_to_keep(names, ["xml/dom/minidom.py", "a.py"]) == [
        "a.py", "xml/__init__.py", "xml/dom/__init__.py", "xml/dom/minidom.py"]


def test_a_file_pyodide_does_not_have_is_refused_by_name() -> None:
    with pytest.raises(stdlib.TrimError, match="nowhere.py"):
        stdlib.members_to_keep(["a.py"], ["a.py", "nowhere.py"])


def test_the_trimmed_zip_is_stored_stable_and_holds_the_real_bytes() -> None:
    loaded = ["json/decoder.py", "random.py"]
    made = stdlib.trimmed_zip(FULL, loaded)
    assert made == stdlib.trimmed_zip(FULL, loaded)  # same files, same bytes
    with zipfile.ZipFile(io.BytesIO(made)) as trimmed, zipfile.ZipFile(io.BytesIO(FULL)) as full:
        assert sorted(trimmed.namelist()) == ["json/__init__.py", "json/decoder.py", "random.py"]
        assert {info.compress_type for info in trimmed.infolist()} == {zipfile.ZIP_STORED}
        for name in trimmed.namelist():
            assert trimmed.read(name) == full.read(name)
