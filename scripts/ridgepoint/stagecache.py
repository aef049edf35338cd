"""Staged Markdown, cached: a page whose inputs did not change is not staged again.

Staging a content page (figures, glossary links, sim blocks) is a pure function of: the
page's path and text, the glossary (each term's name, abbreviation and definition), the
sims' source (their results and charts), the experiment result files the figures read, and
the pipeline's own code. The key hashes all of them, so a hit returns exactly what staging
would produce; a page with content errors is never cached (staging raises). Entries live in
build/cache/staged/ (`Layout.staged`), and the least recently used beyond MAX_ENTRIES are
removed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

from ridgepoint import simrun
from ridgepoint.atomic import write_atomic
from ridgepoint.layout import Layout
from ridgepoint.model import Term

PACKAGE = Path(__file__).resolve().parent  # the pipeline's own code, part of every key
MAX_ENTRIES = 5000


@cache
def _code_digest() -> str:
    """The pipeline's source and the libraries whose output lands in a staged page (read
    once per process: code does not change under it)."""
    import vl_convert
    import yaml

    digest = hashlib.sha256(f"{vl_convert.__version__}|{yaml.__version__}".encode())
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def context_digest(layout: Layout, terms: Iterable[Term]) -> str:
    """Everything but the page itself that its staged text depends on."""
    digest = hashlib.sha256(_code_digest().encode())
    glossary = sorted((t.slug, t.term, t.abbreviation or "", t.definition) for t in terms)
    digest.update(json.dumps(glossary).encode())
    digest.update(simrun.fingerprint(layout.sims).encode())
    for path in sorted(layout.experiments.glob("*.json")):
        digest.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


class StagedCache:
    """Staged pages by (context, path, text)."""

    def __init__(self, context: str, folder: Path) -> None:
        self.context = context
        self.folder = folder
        self.written = 0

    def staged(self, relative: str, text: str, stage: Callable[[], str]) -> str:
        """The cached staging of this page, or `stage()`'s result, then cached."""
        key = hashlib.sha256(f"{self.context}\0{relative}\0{text}".encode()).hexdigest()
        path = self.folder / f"{key}.md"
        if path.is_file():
            path.touch()  # recently used: kept by the pruning below
            return path.read_text(encoding="utf-8")
        result = stage()
        write_atomic(path, result)
        self.written += 1
        return result

    def prune(self) -> None:
        """Keep the MAX_ENTRIES most recently used entries (only after new ones were added)."""
        if not self.written or not self.folder.is_dir():
            return
        entries = sorted(self.folder.glob("*.md"), key=lambda p: p.stat().st_mtime_ns)
        for stale in entries[: max(0, len(entries) - MAX_ENTRIES)]:
            stale.unlink(missing_ok=True)
