"""The `yaml-language-server` modeline every content YAML file starts with, and its check.

The modeline is how an editor finds a file's schema: yaml-language-server (VS Code's YAML
extension, and any editor speaking LSP to it) reads `# yaml-language-server: $schema=<path>`
among the comments before the first value, resolves the path from the file's own folder,
and from then on completes and checks the file as it is typed. Without it, or with a path
to the wrong schema, the editor checks nothing (or the wrong thing) and says nothing, so
`make check` treats both as errors.

The expected path is written as it is in the repository: from the file's folder up to the
content tree's root, then SCHEMAS. A fixture or synthetic tree is checked the same way, so
a file copied between a tree and the repository keeps a working modeline.
"""

from __future__ import annotations

import re

from ridgepoint.base.errors import ContentError

SCHEMAS = "scripts/ridgepoint/schemas"  # the schemas' folder, from the repository's root
PREFIX = "# yaml-language-server: $schema="
# What yaml-language-server 1.25 takes for a modeline (its modelineUtil.ts): a comment line
# starting '#', whitespace, 'yaml-language-server' and a colon, then `$schema=<path>`.
_MODELINE = re.compile(r"#\s+yaml-language-server\s*:(?P<rest>.*)")
_SCHEMA = re.compile(r"\$schema(?:=|:[^\S\r\n]*)(?P<target>\S+)")


def target(path: str, schema: str) -> str:
    """The `$schema=` path for the content file `path` (relative to the content tree)."""
    return "../" * path.count("/") + f"{SCHEMAS}/{schema}"


def modeline(path: str, schema: str) -> str:
    """The whole first line the content file `path`, of schema `schema`, starts with."""
    return PREFIX + target(path, schema)


def problems(text: str, path: str, schema: str) -> list[ContentError]:
    """A missing modeline, one naming another schema, or one after the first value (which the
    language server does not read), as a content error; none if it is right. `text` is the
    file without its byte-order mark."""
    expected = modeline(path, schema)
    first_value = True
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        found = _MODELINE.fullmatch(line.rstrip("\r"))
        if found is not None and not first_value:
            message = "comes after the first field, where editors do not read it"
            return [ContentError(path, number, "modeline", message, f"{expected!r} first")]
        if found is not None:
            return _named(found["rest"], path, schema, number, expected)
        if stripped and not stripped.startswith("#"):
            first_value = False
    why = "as the first line, so that editors check the file as it is typed"
    return [ContentError(path, 1, "modeline", "is missing", f"{expected!r} {why}")]


def _named(rest: str, path: str, schema: str, number: int, expected: str) -> list[ContentError]:
    """The modeline on line `number`, whose text after the colon is `rest`, checked."""
    schema_path = _SCHEMA.search(rest)
    written = schema_path["target"] if schema_path else ""
    if written == target(path, schema):
        return []
    if written == "none":
        message = "is '$schema=none', which turns the editor's checks off"
    else:
        message = f"names {written!r}" if written else "names no schema"
    return [ContentError(path, number, "modeline", message, f"{expected!r}")]
