"""The sims as a build reads them: the files a sim needs (found by reading, not importing),
digests that name exactly those bytes, and problems at the sim's own file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgepoint.base.errors import ContentErrors
from ridgepoint.sims.simsource import SimSource
from tests.repo import LAYOUT


def fake_sims(root: Path, files: dict[str, str]) -> SimSource:
    package = root / "sims"
    package.mkdir(parents=True, exist_ok=True)
    runner = {"kit/__init__.py": "", "kit/runner.py": "import json\n"}  # every page needs it
    for name, text in {"__init__.py": "", **runner, **files}.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    return SimSource.read(package)


def test_the_closure_follows_imports_inside_the_package() -> None:
    sims = SimSource.read(LAYOUT.sims)
    physics = tuple(f"physics/{name}.py" for name in (  # the shared physics and its data
        "__init__", "accuracy", "attention_weights", "cache", "catalogue_data", "collectives",
        "families", "fits", "hardware", "kernels", "kinds", "layers", "model_choice",
        "model_config", "precision", "pricing", "profile", "reach", "reads", "shapes", "step"))
    kit = ("kit/__init__.py", "kit/charts.py", "kit/contract.py", "kit/phased.py",
           "kit/rounding.py")
    assert sims.closure("batching") == tuple(sorted(
        ("__init__.py", "batching.py", "batching_charts.py", *kit, *physics)))
    assert sims.files_of("batching") == tuple(sorted(
        ("__init__.py", "batching.py", "batching_charts.py", *kit, "kit/progress.py",
         "kit/runner.py", *physics)))


def test_relative_and_from_imports_count_too(tmp_path: Path) -> None:
    sims = fake_sims(tmp_path, {
        "a.py": "from . import b\nfrom sims.c import thing\nimport json\n",
        "b.py": "def f():\n    from .d import x\n",
        "c.py": "thing = 1\n",
        "d.py": "x = 2\n",
        "unused.py": "",
    })
    assert sims.closure("a") == ("__init__.py", "a.py", "b.py", "c.py", "d.py")


def test_imports_at_any_depth_count(tmp_path: Path) -> None:
    """Imports inside classes, branches, loops, handlers, finally blocks and match cases."""
    nested = (
        "class K:\n    from . import b\n"
        "if True:\n    pass\nelse:\n    from . import c\n"
        "for _ in ():\n    with open('x'):\n        from . import d\n"
        "try:\n    pass\nexcept ImportError:\n    from . import e\nfinally:\n    from . import f\n"
        "match 1:\n    case 1:\n        from . import g\n"
    )
    sims = fake_sims(tmp_path, {"a.py": nested, **{f"{name}.py": "" for name in "bcdefg"}})
    assert sims.closure("a") == ("__init__.py", *(f"{name}.py" for name in "abcdefg"))


def test_a_sim_that_imports_outside_the_standard_library_is_a_content_error(
    tmp_path: Path,
) -> None:
    sims = fake_sims(tmp_path, {"a.py": '"""Doc."""\nimport numpy as np\n'})
    with pytest.raises(ContentErrors) as raised:
        sims.closure("a")
    assert str(raised.value) == (
        "sims/a.py:2: import: imports 'numpy', which is neither part of the sims package nor "
        "of the standard library (expected standard-library modules only: Pyodide ships only "
        "those)"
    )
    with pytest.raises(LookupError, match="no sim module named 'nope'"):
        sims.closure("nope")


def test_a_sim_that_does_not_parse_is_a_content_error_at_its_line(tmp_path: Path) -> None:
    sims = fake_sims(tmp_path, {"a.py": "x = 1\ndef broken(:\n"})
    with pytest.raises(ContentErrors, match=r"^sims/a.py:2: python: does not parse: "):
        sims.closure("a")


def test_a_sims_digest_names_the_files_it_runs_and_only_those(tmp_path: Path) -> None:
    files = {"a.py": "from . import shared\n", "b.py": "", "shared.py": "K = 1\n"}
    before = fake_sims(tmp_path, files)
    again = fake_sims(tmp_path, files)
    assert again.digest_of("a") == before.digest_of("a") and again.digest == before.digest

    edited_b = fake_sims(tmp_path, {**files, "b.py": "# edited\n"})
    assert edited_b.digest_of("a") == before.digest_of("a")  # another sim's edit
    assert edited_b.digest != before.digest

    edited_shared = fake_sims(tmp_path, {**files, "shared.py": "K = 2\n"})
    assert edited_shared.digest_of("a") != before.digest_of("a")  # what it imports changed
    assert edited_shared.digest_of("b") == before.digest_of("b")


def test_the_source_is_read_once_so_a_later_save_does_not_change_it(tmp_path: Path) -> None:
    sims = fake_sims(tmp_path, {"a.py": "K = 1\n"})
    (tmp_path / "sims" / "a.py").write_text("K = 2\n")
    assert sims.files["a.py"] == b"K = 1\n"
    assert SimSource.read(tmp_path / "sims").files["a.py"] == b"K = 2\n"
