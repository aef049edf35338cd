"""The JSON Schemas: valid schemas, strict everywhere, and named by every YAML file's modeline
so an editor completes and checks the file as it is typed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from ridgepoint.content.kinds import KINDS, VOCABULARY, VOCABULARY_SCHEMA
from ridgepoint.content.schemafiles import SCHEMA_DIR, schemas
from tests.repo import REPO

MODELINE = "# yaml-language-server: $schema="


def subschemas(node: Any) -> Iterator[dict[str, Any]]:
    """Every mapping inside a schema, at any depth."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from subschemas(value)
    elif isinstance(node, list):
        for value in node:
            yield from subschemas(value)


@pytest.mark.parametrize("name", sorted(schemas()))
def test_schema_is_a_valid_draft_2020_12_schema(name: str) -> None:
    schema = schemas()[name]
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("name", sorted(schemas()))
def test_schema_is_strict(name: str) -> None:
    for node in subschemas(schemas()[name]):
        if "properties" in node:
            assert node.get("additionalProperties") is False, node.get("title")
        if node.get("type") == "string":
            # The pattern refuses the empty string and blanks, so no minLength is needed (an
            # editor would show minLength's own wording, which a schema cannot replace).
            assert "pattern" in node and "minLength" not in node, node.get("title")
            assert not re.search(node["pattern"], "") and not re.search(node["pattern"], " ")


@pytest.mark.parametrize("name", sorted(schemas()))
def test_every_pattern_has_a_plain_message_for_editors(name: str) -> None:
    """yaml-language-server shows `patternErrorMessage` instead of the regular expression."""
    for node in subschemas(schemas()[name]):
        if "pattern" in node:
            message = node.get("patternErrorMessage", "")
            assert message.endswith(".") and "^" not in message, node.get("title")


def expected_schema(file: Path) -> str:
    """Which schema a content YAML file is written against: its kind's, by its folder."""
    relative = file.relative_to(REPO).as_posix()
    if relative == VOCABULARY:
        return VOCABULARY_SCHEMA
    (schema,) = [kind.schema for kind in KINDS if kind.folder == file.parent.relative_to(
        REPO).as_posix()]
    return schema


CONTENT_YAML = sorted(
    file
    for kind in KINDS
    if not kind.markdown
    for pattern in ("*.yaml", "*.yml")
    for file in (REPO / kind.folder).glob(pattern)
)


def test_there_is_content_to_check() -> None:
    assert len(CONTENT_YAML) >= 18


@pytest.mark.parametrize("file", CONTENT_YAML, ids=lambda file: file.relative_to(REPO).as_posix())
def test_yaml_file_names_its_schema_in_a_modeline(file: Path) -> None:
    first = file.read_text(encoding="utf-8-sig").splitlines()[0]
    assert first.startswith(MODELINE)
    target = (file.parent / first.removeprefix(MODELINE)).resolve()
    assert target == SCHEMA_DIR / expected_schema(file)
