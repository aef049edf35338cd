"""The JSON Schemas in schemas/, read once, and how one names another.

Every content kind has its schema here (ridgepoint.content.kinds); a schema refers to the shared
definitions of common.schema.json and, where a value must name something elsewhere in the
content (a tag, a term, a reading, a sim), to a value set in VALUES: build/editor/
values.schema.json, which `make check` writes from the content for editors
(ridgepoint.editing.valuesets). The loader checks those names in ridgepoint.content.checks instead,
with file lines and against the tree being loaded (a fixture is not the repository), so to it
each value set is "anything" (`documents`); validate.py uses the sets only to suggest what
a malformed name meant.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from typing import Any

from ridgepoint.base.pipelinecode import SCHEMA_DIR

# The editors' value sets as the schemas name them, from SCHEMA_DIR (a test checks that this
# is Layout.editor_values).
VALUES = "../../../build/editor/values.schema.json"
_SET = f"{VALUES}#/$defs/"


@functools.cache
def schemas() -> dict[str, dict[str, Any]]:
    """Every schema in `schemas/`, by file name (the name `$ref`s use)."""
    return {file.name: json.loads(file.read_text()) for file in sorted(SCHEMA_DIR.glob("*.json"))}


@functools.cache
def value_sets() -> frozenset[str]:
    """The names of the value sets the schemas refer to (`tag`, `term`, ...)."""
    return frozenset(
        ref.removeprefix(_SET)
        for schema in schemas().values()
        for ref in _refs(schema)
        if ref.startswith(_SET)
    )


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


@functools.cache
def documents() -> dict[str, dict[str, Any]]:
    """Every document a `$ref` may name, as the loader reads them: the schemas, and VALUES
    with each value set accepting anything."""
    return {**schemas(), VALUES: {"$defs": {name: {} for name in value_sets()}}}


def chain(document: str, schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The schema and each one its `$ref`s lead to in turn (this schema's `$defs` or another
    file's), with the document each is in: a `tags` item is a tag, which is a slug."""
    yield document, schema
    while "$ref" in schema:
        target, _, pointer = schema["$ref"].partition("#")
        document = target or document
        schema = documents()[document]
        for part in filter(None, pointer.split("/")):
            schema = schema[part]
        yield document, schema


def resolve(document: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The schema at the end of `chain`: the one that holds the type and its constraints."""
    *_, last = chain(document, schema)
    return last


def drawn_from(document: str, schema: dict[str, Any]) -> str | None:
    """The value set a schema draws its value from, if any: an `allOf` along its chain of
    `$ref`s refers to it."""
    for _, node in chain(document, schema):
        for part in node.get("allOf", ()):
            ref = part.get("$ref", "") if isinstance(part, Mapping) else ""
            if ref.startswith(_SET):
                return ref.removeprefix(_SET)
    return None
