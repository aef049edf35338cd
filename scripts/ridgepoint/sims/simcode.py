"""The sims executed from exactly the bytes a build read: a private copy of the package.

Importing `sims` the usual way cannot promise that a result comes from the code its cache
key names: a long-lived process (`make serve`) keeps the modules it imported first, and
Python runs a cached .pyc whose source changed within the same second at the same size. So
the pipeline never imports `sims` through sys.path. It executes the bytes of a `SimSource`
(ridgepoint.sims.simsource) as a package of its own: a save in sims/ gives new bytes, so new
digests and a fresh execution, and nothing keyed by the old digests is read for the new code.

The copy is installed as `sims` in sys.modules only while it executes (`SimCode.active()`:
loading, and each run, so an import inside a function finds the same copy), so a test or tool that
imported `sims` itself keeps its own modules, and two trees' sims never mix. A sim that fails
to import is a content error at its file and line.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.util
import sys
import traceback
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

from ridgepoint.base.errors import ContentError, ContentErrors
from ridgepoint.sims.simsource import PACKAGE, SimSource

SKIPPED = ("__main__.py",)  # the command line: executing it is not importing the package
_LOADED: dict[tuple[str, str], SimCode] = {}  # (folder, digest) -> code, the latest few
KEEP = 4


@dataclass(frozen=True)
class SimCode:
    """One execution of a SimSource: its modules by dotted name."""

    source: SimSource
    modules: Mapping[str, ModuleType]

    @functools.cached_property
    def names(self) -> tuple[str, ...]:
        """The sims (modules declaring INPUTS and simulate), as `sims.sim_names()` does."""
        return tuple(sorted(
            name.removeprefix(f"{PACKAGE}.") for name, module in self.modules.items()
            if name.count(".") == 1 and not name.rsplit(".", 1)[1].startswith("_")
            and hasattr(module, "INPUTS") and hasattr(module, "simulate")
        ))

    def load(self, name: str) -> ModuleType:
        """A sim by module name; LookupError (listing the sims) for anything else."""
        if name not in self.names:
            raise LookupError(f"no sim named {name!r} (sims: {', '.join(self.names)})")
        return self.modules[f"{PACKAGE}.{name}"]

    def module(self, name: str) -> ModuleType:
        """This copy's `sims.<name>`, a sim or not (the generated pages price with
        sims.physics and read sims.hardware's constants from the same bytes as the sims)."""
        return self.modules[f"{PACKAGE}.{name}"]

    @property
    def contract(self) -> ModuleType:
        """This copy's sims.contract: its Number, Choice, validate and InputError are the
        ones its sims use."""
        return self.modules[f"{PACKAGE}.contract"]

    def active(self) -> AbstractContextManager[None]:
        """This copy is `sims` while the block runs (an import inside a sim finds it)."""
        return _active(self.source, self.modules)

    def simulate(self, name: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """`sims.<name>.simulate(**values)` with this copy active."""
        with self.active():
            return self.load(name).simulate(**values)


def load(source: SimSource) -> SimCode:
    """The source executed (once per process for each version of it)."""
    key = (str(source.folder), source.digest)
    if key not in _LOADED:
        _LOADED[key] = _execute(source)
        while len(_LOADED) > KEEP:
            del _LOADED[next(iter(_LOADED))]
    return _LOADED[key]


@contextmanager
def _active(source: SimSource, modules: Mapping[str, ModuleType]) -> Iterator[None]:
    """`modules` are the sims package in sys.modules, and any other module of the package
    comes from `source` (never from sims/ on disk), while the block runs; whatever was there
    before (another tree's sims, or none) is put back afterwards."""
    saved = {name: sys.modules.pop(name) for name in _package_names()}
    sys.modules.update(modules)
    finder = _Finder(source)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in _package_names():
            del sys.modules[name]
        sys.modules.update(saved)


def _package_names() -> list[str]:
    return [name for name in sys.modules if name == PACKAGE or name.startswith(f"{PACKAGE}.")]


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `sims` and `sims.*` in one SimSource only, and executes their bytes."""

    def __init__(self, source: SimSource) -> None:
        self.source = source

    def find_spec(self, fullname: str, path: object = None, target: object = None
                  ) -> ModuleSpec | None:
        if fullname != PACKAGE and not fullname.startswith(f"{PACKAGE}."):
            return None
        relative = self.source.module_file(fullname)
        if relative is None:  # never fall through to sims/ on disk: not what was read
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        spec = importlib.util.spec_from_loader(
            fullname, self, origin=str(self.source.folder / relative),
            is_package=relative.endswith("__init__.py"))
        assert spec is not None
        spec.has_location = True
        if spec.submodule_search_locations is not None:
            spec.submodule_search_locations.append(str((self.source.folder / relative).parent))
        return spec

    def create_module(self, spec: ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        relative = self.source.module_file(module.__name__)
        assert relative is not None
        exec(self.source.code(relative), module.__dict__)  # noqa: S102 - the sims are this repository's code


def _execute(source: SimSource) -> SimCode:
    """Import every module of the source (the package first) with only it visible."""
    names = [_dotted(relative) for relative in source.files
             if relative.rsplit("/", 1)[-1] not in SKIPPED]
    with _active(source, {}):
        for name in sorted(names, key=lambda dotted: (dotted.count("."), dotted)):
            try:
                importlib.import_module(name)
            except Exception as error:  # noqa: BLE001 - reported at the sim's line
                raise _import_failure(source, error) from None
        modules = {name: sys.modules[name] for name in _package_names()}
    return SimCode(source, modules)


def _dotted(relative: str) -> str:
    parts = relative.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join((PACKAGE, *parts))


def _import_failure(source: SimSource, error: Exception) -> ContentErrors:
    """Where in the sims an import failed: the innermost frame in a sims file."""
    where, line = "", 1
    prefix = str(source.folder) + "/"
    if isinstance(error, SyntaxError) and (error.filename or "").startswith(prefix):
        where, line = error.filename.removeprefix(prefix), error.lineno or 1
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename.startswith(prefix):
            where, line = frame.filename.removeprefix(prefix), frame.lineno or 1
    message = f"fails to import: {type(error).__name__}: {error}"
    return ContentErrors([ContentError(source.where(where or "__init__.py"), line, "python",
                                       message, "a module that imports cleanly")])
