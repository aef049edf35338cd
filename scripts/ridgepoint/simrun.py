"""Native sim runs for staging, cached: each distinct (sims source, module, inputs) runs once.

Staging runs a sim for every ```sim block (once to validate the starting inputs, once to
prerender) and for every distinct `{{ sim:... }}` figure. Sims take milliseconds, but a
site with many pages embedding the same sims at the same inputs pays them over and over,
on every rebuild. Results are kept in memory for the process and on disk under
build/cache/sim-runs/<fingerprint>/, where the fingerprint hashes every sims file: editing a
sim starts a fresh cache (the old one is removed), so a cached result is always what the
current source returns. Sims are deterministic given their inputs (the sim contract), and
results are plain JSON, so a cached result equals a fresh one.
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
from sims.contract import validate

ROOT = Path(__file__).resolve().parents[2]
SIMS_DIR = ROOT / "sims"
CACHE_DIR = ROOT / "build" / "cache" / "sim-runs"

_fingerprints: dict[tuple[tuple[str, int, int], ...], str] = {}
_memory: dict[tuple[str, str], str] = {}


def fingerprint(sims_dir: Path = SIMS_DIR) -> str:
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


def run(module: str, inputs: Mapping[str, Any], cache_dir: Path = CACHE_DIR) -> dict[str, Any]:
    """`sims.load(module).simulate(**inputs)`, from the cache when these exact (validated)
    inputs ran before on the same source. Raises what simulate raises (LookupError for an
    unknown sim, ValueError for refused inputs); refusals are not cached."""
    sim = sims.load(module)
    values = validate(sim.INPUTS, inputs)
    key = json.dumps([module, values], sort_keys=True, separators=(",", ":"))
    current = fingerprint()
    text = _memory.get((current, key))
    if text is None:
        folder = cache_dir / current
        path = folder / f"{hashlib.sha256(key.encode()).hexdigest()}.json"
        if path.is_file():
            text = path.read_text(encoding="utf-8")
        else:
            text = json.dumps(sim.simulate(**values), separators=(",", ":"))
            _store(folder, path, text)
        _memory[(current, key)] = text
    return json.loads(text)


def _store(folder: Path, path: Path, text: str) -> None:
    if not folder.is_dir():
        if folder.parent.is_dir():  # results of an older sims source: never read again
            for old in folder.parent.iterdir():
                if old.is_dir():
                    shutil.rmtree(old, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{id(text)}.tmp")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)  # atomic: a parallel build never reads half a file
