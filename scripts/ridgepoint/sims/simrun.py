"""Native sim runs for staging, cached: each distinct (sim's code, module, inputs) runs once.

Staging runs a sim for every ```sim block (once to validate the starting inputs, once to
prerender) and for every distinct `{{ sim:... }}` figure. Sims take milliseconds, but a
site with many pages embedding the same sims at the same inputs pays them over and over,
on every rebuild. Results are kept in memory and on disk under
build/cache/sim-runs/<module>/<digest>/ (`Layout.sim_runs`), where the digest names exactly
the files that sim executes (ridgepoint.sims.simsource: its import closure) and the Python
version: editing a sim, or anything it imports, starts that sim's cache afresh (the old
folder is removed) and leaves every other sim's alone. The code that runs is executed from
the very bytes the digest names (ridgepoint.sims.simcode), so a cached result is always what the
current source returns. Sims are deterministic given their inputs (the sim contract), and
results are plain JSON, so a cached result equals a fresh one.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from ridgepoint.base.atomic import write_atomic
from ridgepoint.base.errors import ContentErrors
from ridgepoint.base.layout import Layout
from ridgepoint.sims import simcode
from ridgepoint.sims.simcode import SimCode
from ridgepoint.sims.simsource import SimSource

PYTHON = f"{sys.implementation.name}-{sys.version_info[0]}.{sys.version_info[1]}"


class SimRuns:
    """One version of the sims (read once), run natively with their results cached.

    `used` collects every sim asked for, so staging can key a page by the sims it used."""

    def __init__(self, source: SimSource, cache_dir: Path) -> None:
        self.source = source
        self.cache_dir = cache_dir
        self.used: set[str] = set()
        self._memory: dict[tuple[str, str], str] = {}

    @classmethod
    def of(cls, layout: Layout) -> SimRuns:
        """The layout's sims as they are now, cached in the layout's sim-runs folder."""
        return cls(SimSource.read(layout.sims, layout.sim_code), layout.sim_runs)

    @functools.cached_property
    def code(self) -> SimCode:
        """The source executed; only when a sim is first needed."""
        return simcode.load(self.source)

    def names(self) -> Sequence[str]:
        """The sims by name; when one fails to import, every module by file name (what can
        be told without executing them; the load reports the failure)."""
        try:
            return self.code.names
        except ContentErrors:
            return self.source.module_names()

    def load(self, module: str) -> ModuleType:
        """The sim module (its INPUTS, METRICS, TITLE); LookupError for an unknown name."""
        self.used.add(module)
        return self.code.load(module)

    def digest(self, module: str) -> str:
        """What a run of `module` depends on: its files' digest and the interpreter."""
        return f"{self.source.digest_of(module)}-{PYTHON}"

    def run(self, module: str, inputs: Mapping[str, Any]) -> dict[str, Any]:
        """`simulate(**inputs)` of the sim, from the cache when these exact (validated)
        inputs ran before on the same code. Raises what simulate raises (LookupError for an
        unknown sim, ValueError for refused inputs); refusals are not cached."""
        sim = self.load(module)
        values = self.code.contract.validate(sim.INPUTS, inputs)
        key = json.dumps([module, values], sort_keys=True, separators=(",", ":"))
        digest = self.digest(module)
        text = self._memory.get((digest, key))
        if text is None:
            folder = self.cache_dir / module / digest
            path = folder / f"{hashlib.sha256(key.encode()).hexdigest()}.json"
            if path.is_file():
                text = path.read_text(encoding="utf-8")
            else:
                text = json.dumps(self.code.simulate(module, values), separators=(",", ":"))
                _store(folder, path, text)
            self._memory[(digest, key)] = text
        return json.loads(text)


def _store(folder: Path, path: Path, text: str) -> None:
    if not folder.is_dir() and folder.parent.is_dir():
        for old in folder.parent.iterdir():  # results of older code of this sim: never read
            if old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
    write_atomic(path, text)
