"""Content errors: every problem an editor can fix, each pointing at a file, line and field.

Loading collects all problems in one pass and raises them together as `ContentErrors`, so an
editor fixes a broken tree in one round instead of one error per run. Anything that reports
a problem in content (the loader, the sim-block renderer) raises this, never a traceback.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class ContentError:
    """One problem: `path:line: field: message (expected ...)`.

    `path` is relative to the repository root with forward slashes, `line` is 1-based (the
    line of the offending field; for a missing field, of the mapping that lacks it), `field`
    names the place in the file (`tags[1]`, `path[0].readings`) or a file-level aspect
    (`yaml`, `encoding`, `slug`, `front matter`).
    """

    path: str
    line: int
    field: str
    message: str
    expected: str = ""

    def __str__(self) -> str:
        tail = f" (expected {self.expected})" if self.expected else ""
        return f"{self.path}:{self.line}: {self.field}: {self.message}{tail}"


class ContentErrors(Exception):
    """Every problem found in one pass, sorted by file and line."""

    def __init__(self, errors: Iterable[ContentError]) -> None:
        self.errors: list[ContentError] = sorted(set(errors))
        super().__init__("\n".join(str(error) for error in self.errors))

    def __str__(self) -> str:
        return "\n".join(str(error) for error in self.errors)
