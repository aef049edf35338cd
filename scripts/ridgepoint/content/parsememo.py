"""The loader's per-file work, remembered across loads: in one process (`make serve`), and
on disk from one build to the next.

Each load parses every content file's YAML and checks it against its schema, though an
editor's save changes one file: at today's content both steps, with importing jsonschema,
were a fifth of a build's own time. Both are pure functions of a file's path, its text and
the schema, given the code: so a memo keyed by exactly those returns what the loader would
compute. On disk (`kept`, `Layout.parsed`) an entry is a document that passed its schema,
named by the path, first line, schema and text, and by KEPT_CODE: the Python, the
pipeline's source and schemas and the installed libraries' versions. So an entry is never
read for other text or other code, and a load whose every file is kept neither parses nor
imports jsonschema. A document that fails its schema is not kept: its messages suggest
names from the content as it is now (another file's save changes them).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import sysconfig
from pathlib import Path

from ridgepoint.base import lru
from ridgepoint.base.atomic import write_atomic
from ridgepoint.base.errors import ContentError
from ridgepoint.base.pipelinecode import SOURCE_DIGEST
from ridgepoint.content.validate import ValueSets, schema_errors
from ridgepoint.content.yamldoc import Document, parse

LIMIT = 20_000  # entries of each kind in memory; past it the memo starts over
MAX_KEPT = 20_000  # entries on disk (a few KB each), well above 100x today's content; the least
# recently used beyond it are removed


def _kept_code() -> bytes:
    """What a kept entry's parse and schema check depend on besides the file: the Python
    running them, the pipeline's code (ridgepoint.base.pipelinecode), and every installed
    library's name and version (the names of the `.dist-info` folders where PyYAML and
    jsonschema are installed: a listing costs far less than asking importlib.metadata)."""
    digest = hashlib.sha256(sys.version.encode() + SOURCE_DIGEST)
    for folder in sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}):
        installed = os.listdir(folder) if os.path.isdir(folder) else []
        digest.update(f"{folder}\0".encode() + "\0".join(
            sorted(name for name in installed if name.endswith(".dist-info"))).encode())
    return digest.digest()


KEPT_CODE = _kept_code()

Key = tuple[str, int, str]  # path, first line, text


class ParseMemo:
    """Parsed documents by (path, first line, text); their schema problems by schema too.
    With `kept`, documents that passed their schema are also kept in that folder."""

    def __init__(self, kept: Path | None = None) -> None:
        self.kept = kept
        self.written = 0
        self._documents: dict[Key, Document] = {}
        self._problems: dict[tuple[str, int, str, str], list[ContentError]] = {}

    def parse(self, text: str, path: str, first_line: int = 1, schema: str = "") -> Document:
        """yamldoc.parse, once per text (a syntax error is not remembered: it raises). A
        kept document that passed `schema` is read rather than parsed."""
        key = (path, first_line, text)
        if key not in self._documents:
            if len(self._documents) >= LIMIT:
                self._documents.clear()
            document = self._read(key, schema) if schema else None
            self._documents[key] = document if document is not None else \
                parse(text, path, first_line)
        return self._documents[key]

    def schema_errors(self, document: Document, schema: str, values: ValueSets
                      ) -> list[ContentError]:
        """validate.schema_errors, once per document text and schema while the document
        passes. A failing one is checked again each time: its messages suggest names from
        `values` (the slugs and tags that exist now), which another file's save changes."""
        key = (document.path, document.first_line, document.text, schema)
        if key not in self._problems:
            if len(self._problems) >= LIMIT:
                self._problems.clear()
            self._problems[key] = schema_errors(document, schema)
            if not self._problems[key]:
                self._keep(document, schema)
        if self._problems[key]:
            return schema_errors(document, schema, values)
        return self._problems[key]

    def prune(self) -> None:
        """Keep the MAX_KEPT most recently used entries (only after new ones were added)."""
        if self.kept is not None and self.written:
            lru.prune(self.kept, MAX_KEPT)

    def _entry(self, key: Key, schema: str) -> Path:
        assert self.kept is not None
        path, first_line, text = key
        digest = hashlib.sha256(KEPT_CODE)
        digest.update(f"{path}\0{first_line}\0{schema}\0{text}".encode())
        return self.kept / f"{digest.hexdigest()}.pickle"

    def _read(self, key: Key, schema: str) -> Document | None:
        """The kept document for `key` that passed `schema`, if there is one."""
        if self.kept is None:
            return None
        entry = self._entry(key, schema)
        try:
            document = pickle.loads(entry.read_bytes())  # noqa: S301 - written by _keep
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError):
            return None
        if not isinstance(document, Document):
            return None
        entry.touch()  # recently used: kept by prune()
        self._problems[(*key, schema)] = []  # it passed: schema_errors checks nothing
        return document

    def _keep(self, document: Document, schema: str) -> None:
        if self.kept is None:
            return
        key = (document.path, document.first_line, document.text)
        write_atomic(self._entry(key, schema), pickle.dumps(document, pickle.HIGHEST_PROTOCOL))
        self.written += 1
