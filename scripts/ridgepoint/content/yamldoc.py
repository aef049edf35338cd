"""Read one YAML document (a file or a front matter block) keeping the line of every value.

Errors must name the line of the offending field, so a document is kept twice: as plain
data (what the schemas validate) and as the composed node tree (where the lines are). It is
read by the bounded, date-as-text loaders of ridgepoint.content.yamlload: libyaml's first, and for a
document libyaml refuses, or that breaks a bound, the pure-Python one again, whose messages
and lines the error reports here are written for. libyaml also reads a few documents the
pure-Python scanner refuses although YAML allows them (a tab inside a plain scalar, a '?'
inside a flow scalar).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ridgepoint.base.errors import ContentError, ContentErrors
from ridgepoint.content.yamlload import FastLoader, Loader, Refused, load

Location = Sequence[str | int]
# What PyYAML says of a tab where a token should start: in practice, a tab indenting a line.
_TAB = "found character '\\t' that cannot start any token"


def field_name(location: Location) -> str:
    """`["path", 0, "readings"]` -> `path[0].readings`; the top level is `document`. A key
    with a line break or another unprintable character is quoted, so an error stays one line."""
    name = ""
    for step in location:
        if isinstance(step, int):
            name += f"[{step}]"
        else:
            key = str(step) if str(step).isprintable() else repr(str(step))
            name += f".{key}" if name else key
    return name or "document"


@dataclass
class Document:
    """A parsed YAML document: its data, its nodes, and problems PyYAML lets pass."""

    path: str
    data: Any
    node: yaml.Node | None
    first_line: int = 1
    problems: list[ContentError] = field(default_factory=list)
    text: str = ""  # the YAML text parsed, for turning PyYAML's marks into file lines

    def line(self, location: Location) -> int:
        """The file line of the value at `location`: for a mapping entry the line of its key,
        for a list item the item's line; where the path stops existing, the deepest line."""
        node = self.node
        mark = node.start_mark if node is not None else None
        for step in location:
            found = _child(node, step)
            if found is None:
                break
            mark, node = found
        return self.mark_line(mark)

    def mark_line(self, mark: yaml.Mark | None) -> int:
        """The file line of a PyYAML mark; see `file_line`."""
        return file_line(self.text, mark, self.first_line)

    def error(
        self, location: Location, message: str, expected: str = "", at: Location | None = None
    ) -> ContentError:
        """A problem with the field at `location`, on the line of `at` (default: the field)."""
        line = self.line(location if at is None else at)
        return ContentError(self.path, line, field_name(location), message, expected)


def file_line(text: str, mark: yaml.Mark | None, first_line: int) -> int:
    """The file line of a position in `text`, whose first line is line `first_line`.

    Lines are counted by newlines, as editors and every other error line count them; PyYAML's
    own `mark.line` also counts a lone CR, NEL, LS and PS as line ends, which would send the
    reader to a line the editor does not have.
    """
    return (text.count("\n", 0, mark.index) if mark is not None else 0) + first_line


def _child(node: yaml.Node | None, step: str | int) -> tuple[yaml.Mark, yaml.Node] | None:
    """Where one step down the tree starts, and its node; None where it does not exist."""
    if isinstance(node, yaml.MappingNode):
        # The last of duplicate keys, as that is the value the data holds.
        for key, value in reversed(node.value):
            if isinstance(key, yaml.ScalarNode) and key.value == str(step):
                return key.start_mark, value
    elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
        item = node.value[step]
        return item.start_mark, item
    return None


def decode(raw: bytes, path: str) -> str:
    """UTF-8 text (a leading BOM is dropped), or ContentErrors naming the line of the bad byte."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        bad = raw[exc.start]
        raise ContentErrors(
            [ContentError(path, line, "encoding", f"byte 0x{bad:02x} is not UTF-8", "UTF-8 text")]
        ) from None


def read_text(file: Path, path: str) -> str:
    """A content file's text; see `decode`. An unreadable file is a content error too."""
    try:
        raw = file.read_bytes()
    except OSError as exc:
        error = ContentError(path, 1, "file", f"cannot be read: {exc.strerror}", "a readable file")
        raise ContentErrors([error]) from None
    return decode(raw, path)


def parse(text: str, path: str, first_line: int = 1) -> Document:
    """Parse one YAML document whose first line is line `first_line` of the file.

    Raises ContentErrors for a syntax error (with its line). Duplicate keys, which PyYAML
    would silently resolve to the last one, are recorded in `Document.problems`.
    """
    try:
        node, data = load(FastLoader, text)
    except (yaml.YAMLError, Refused):
        node, data = _load_or_explain(text, path, first_line)
    document = Document(path, data, node, first_line, text=text)
    document.problems.extend(_duplicate_keys(document, node, [], set()))
    return document


def _load_or_explain(text: str, path: str, first_line: int) -> tuple[yaml.Node | None, Any]:
    """`load` with the pure-Python Loader, its refusal turned into a content error."""
    try:
        return load(Loader, text)
    except yaml.constructor.ConstructorError as exc:  # e.g. !!python/object: not plain data
        line = file_line(text, exc.problem_mark, first_line)
        message = f"cannot load: {exc.problem}"
        expected = "plain YAML values, no !!tags"
        raise ContentErrors([ContentError(path, line, "yaml", message, expected)]) from None
    except yaml.MarkedYAMLError as exc:
        raise ContentErrors([_syntax_error(exc, text, path, first_line)]) from None
    except yaml.reader.ReaderError as exc:  # a control character YAML does not allow
        line = text[: exc.position].count("\n") + first_line
        message = f"character U+{exc.character:04X} is not allowed in YAML"
        raise ContentErrors([ContentError(path, line, "yaml", message, "printable text")]) from None
    except Refused as exc:
        line = file_line(text, exc.mark, first_line)
        raise ContentErrors([ContentError(path, line, "yaml", exc.message, exc.expected)]) from None


def _syntax_error(
    exc: yaml.MarkedYAMLError, text: str, path: str, first_line: int
) -> ContentError:
    """A syntax error at the line PyYAML gave up on, naming where the broken construct began
    (an unclosed quote fails at the end of the file, but the quote is what to fix)."""
    line = file_line(text, exc.problem_mark or exc.context_mark, first_line)
    if exc.problem == _TAB and exc.problem_mark is not None:
        column = exc.problem_mark.column + 1
        message = f"a tab at column {column}: YAML indents with spaces only, never tabs"
        expected = "spaces instead: set the editor to indent with spaces"
        return ContentError(path, line, "yaml", message, expected)
    context = exc.context or ""
    started = file_line(text, exc.context_mark, first_line) if exc.context_mark else line
    if context and started != line:
        context += f" (started on line {started})"
    if context.startswith("while"):
        message = f"syntax error {context}: {exc.problem}"
    else:
        message = f"syntax error: {', '.join(part for part in (context, exc.problem) if part)}"
    return ContentError(path, line, "yaml", " ".join(message.split()), "valid YAML")


def _duplicate_keys(
    document: Document, node: yaml.Node | None, location: list[str | int], seen: set[int]
) -> list[ContentError]:
    """Every key that appears twice in one mapping, at the line of its second appearance."""
    if node is None or id(node) in seen:
        return []
    seen.add(id(node))
    problems: list[ContentError] = []
    if isinstance(node, yaml.MappingNode):
        keys: set[str] = set()
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else None
            if name is not None and name != "<<":
                if name in keys:
                    problems.append(
                        ContentError(
                            document.path,
                            document.mark_line(key.start_mark),
                            field_name([*location, name]),
                            "appears twice in one mapping; the last one would silently win",
                            "each key once",
                        )
                    )
                keys.add(name)
            step = name if name is not None else "?"
            problems.extend(_duplicate_keys(document, value, [*location, step], seen))
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            problems.extend(_duplicate_keys(document, item, [*location, index], seen))
    return problems
