"""Staged Markdown, cached: a page whose inputs did not change is not staged again.

Staging a content page (figures, glossary links, sim blocks) is a pure function of: the
page's path and text, the glossary's names (each term's slug, name and abbreviation: what
may match), the experiment result files the figures read, the pipeline's own code, the
definitions of the terms the page links and the code of the sims it uses. The first four
are known before staging and make the entry's name; the terms a page links and the sims it
uses are known only once it is staged, so the entry records them (`term:<slug>`,
`sim:<module>`), each with a digest of what it was (a definition; the files a sim executes,
ridgepoint.sims.simsource), and is used only while every one is still current. So editing a sim,
or a term's definition, re-stages exactly the pages that use it, and an entry is never read
for code or content other than what made it. A page with content errors is
never cached (staging raises). Entries live in build/cache/staged/ (`Layout.staged`), and
the least recently used beyond MAX_ENTRIES are removed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from ridgepoint.base import lru
from ridgepoint.base.atomic import write_atomic
from ridgepoint.base.errors import ContentErrors
from ridgepoint.base.layout import Layout
from ridgepoint.base.pipelinecode import SOURCE_DIGEST
from ridgepoint.content.model import Term

MAX_ENTRIES = 5000


def _code_digest() -> str:
    """The pipeline's code (ridgepoint.base.pipelinecode) and the libraries whose output lands
    in a staged page."""
    import vl_convert
    import yaml

    digest = hashlib.sha256(f"{vl_convert.__version__}|{yaml.__version__}".encode())
    digest.update(SOURCE_DIGEST)
    return digest.hexdigest()


CODE_DIGEST = _code_digest()


def context_digest(layout: Layout, terms: Iterable[Term], widget_imports: Iterable[str]
                   ) -> str:
    """What every page's staged text depends on, before it is known which terms it links
    and which sims it uses; `widget_imports`, the modules a page with a sim preloads, are
    read from content/assets/sim/, not from the pipeline's code."""
    digest = hashlib.sha256(CODE_DIGEST.encode())
    digest.update(json.dumps(list(widget_imports)).encode())
    glossary = sorted((t.slug, t.term, t.abbreviation or "") for t in terms)
    digest.update(json.dumps(glossary).encode())
    for path in sorted(layout.experiments.glob("*.json")):
        digest.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


Staging = Callable[[], tuple[str, Mapping[str, str]]]  # (staged text, dependency -> digest)


def term_digest(term: Term) -> str:
    """What a page that links `term` takes from it beyond its name: the definition."""
    return hashlib.sha256(term.definition.encode()).hexdigest()[:32]


class StagedCache:
    """Staged pages by (context, path, text), valid while what they used is unchanged.

    `current(dependency)` is the digest a dependency (`sim:<module>`, `term:<slug>`) has
    now: LookupError once it is gone."""

    def __init__(self, context: str, folder: Path, current: Callable[[str], str]) -> None:
        self.context = context
        self.folder = folder
        self.current = current
        self.written = 0

    def staged(self, relative: str, text: str, stage: Staging) -> str:
        """The cached staging of this page, or `stage()`'s result, then cached."""
        entry = self.get(relative, text)
        if entry is not None:
            return entry
        result, uses = stage()
        write_atomic(self._path(relative, text), json.dumps({"uses": dict(uses), "page": result}))
        self.written += 1
        return result

    def get(self, relative: str, text: str) -> str | None:
        """The cached staging of this page, if there is a current one."""
        path = self._path(relative, text)
        entry = self._read(path)
        if entry is not None:
            path.touch()  # recently used: kept by the pruning below
        return entry

    def _path(self, relative: str, text: str) -> Path:
        key = hashlib.sha256(f"{self.context}\0{relative}\0{text}".encode()).hexdigest()
        return self.folder / f"{key}.json"

    def _read(self, path: Path) -> str | None:
        """The entry's page, if it exists and every sim it used has the digest it had."""
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return None
        if not isinstance(entry, dict) or "uses" not in entry:  # an older format
            return None
        try:
            if any(self.current(name) != digest for name, digest in entry["uses"].items()):
                return None
        except (LookupError, ContentErrors):  # what it used is gone, or broken: stage again
            return None
        return entry["page"]

    def prune(self) -> None:
        """Keep the MAX_ENTRIES most recently used entries (only after new ones were added)."""
        if self.written:
            lru.prune(self.folder, MAX_ENTRIES)
