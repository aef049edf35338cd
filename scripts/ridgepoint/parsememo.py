"""The loader's per-file work, remembered across loads in one process (`make serve`).

Each save re-loads every content file, and at ten times today's content parsing the YAML
and checking it against its schema took most of a rebuild's staging, though only the saved
file changed. Both steps are pure functions of a file's path, its text and the schema (the
schemas and this code do not change in a running process), so a memo keyed by exactly those
returns what the loader would compute. Only the serve hook holds one; builds and `make check`
load afresh.
"""

from __future__ import annotations

from ridgepoint.errors import ContentError
from ridgepoint.validate import ValueSets, schema_errors
from ridgepoint.yamldoc import Document, parse

LIMIT = 20_000  # entries of each kind; past it the memo starts over


class ParseMemo:
    """Parsed documents by (path, first line, text); their schema problems by schema too."""

    def __init__(self) -> None:
        self._documents: dict[tuple[str, int, str], Document] = {}
        self._problems: dict[tuple[str, int, str, str], list[ContentError]] = {}

    def parse(self, text: str, path: str, first_line: int = 1) -> Document:
        """yamldoc.parse, once per text (a syntax error is not remembered: it raises)."""
        key = (path, first_line, text)
        if key not in self._documents:
            if len(self._documents) >= LIMIT:
                self._documents.clear()
            self._documents[key] = parse(text, path, first_line)
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
        if self._problems[key]:
            return schema_errors(document, schema, values)
        return self._problems[key]
