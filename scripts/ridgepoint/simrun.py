"""Native sim runs for staging, cached: each distinct (sims source, module, inputs) runs once.

Staging runs a sim for every ```sim block (once to validate the starting inputs, once to
prerender) and for every distinct `{{ sim:... }}` figure. Sims take milliseconds, but a
site with many pages embedding the same sims at the same inputs pays them over and over,
on every rebuild. Results are kept in memory for the process and on disk under
build/cache/sim-runs/<fingerprint>/ (`Layout.sim_runs`), where the fingerprint hashes every
sims file: editing a sim starts a fresh cache (the old one is removed), so a cached result
is always what the current source returns. Sims are deterministic given their inputs (the
sim contract), and results are plain JSON, so a cached result equals a fresh one.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import sims
from ridgepoint.atomic import write_atomic
from ridgepoint.layout import Layout
from sims.contract import validate

_fingerprints: dict[tuple[tuple[str, int, int], ...], str] = {}
_memory: dict[tuple[str, str], str] = {}


def fingerprint(sims_dir: Path) -> str:
    """A hash of every sims file's bytes (and the Python minor version); recomputed only
    when a file's size or modification time changes."""
    files = sorted(p for p in sims_dir.rglob("*.py") if "__pycache__" not in p.parts)
    stats = tuple((p.as_posix(), p.stat().st_mtime_ns, p.stat().st_size) for p in files)
    if stats not in _fingerprints:
        digest = hashlib.sha256(f"{sys.version_info[:2]}".encode())
        for path in files:
            digest.update(path.relative_to(sims_dir).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        _fingerprints[stats] = digest.hexdigest()[:24]
    return _fingerprints[stats]


def run(layout: Layout, module: str, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """`sims.load(module).simulate(**inputs)`, from the cache when these exact (validated)
    inputs ran before on the same source. Raises what simulate raises (LookupError for an
    unknown sim, ValueError for refused inputs); refusals are not cached."""
    sim = sims.load(module)
    values = validate(sim.INPUTS, inputs)
    key = json.dumps([module, values], sort_keys=True, separators=(",", ":"))
    current = fingerprint(layout.sims)
    text = _memory.get((current, key))
    if text is None:
        folder = layout.sim_runs / current
        path = folder / f"{hashlib.sha256(key.encode()).hexdigest()}.json"
        if path.is_file():
            text = path.read_text(encoding="utf-8")
        else:
            text = json.dumps(sim.simulate(**values), separators=(",", ":"))
            _store(folder, path, text)
        _memory[(current, key)] = text
    return json.loads(text)


def _store(folder: Path, path: Path, text: str) -> None:
    if not folder.is_dir() and folder.parent.is_dir():
        for old in folder.parent.iterdir():  # results of an older sims source: never read
            if old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
    write_atomic(path, text)
