"""Validate a YAML document against one of the JSON Schemas in `schemas/`, as content errors.

The schemas are the single statement of each format: editors get completion from them (the
`yaml-language-server` modeline) and the loader checks with them. Each jsonschema error is
turned into `path:line: field: what is wrong (expected ...)`, one per field, where the
expected phrase is the `title` of the schema at that field.

A value that must name something elsewhere in the content (a tag, a term, a reading, a sim)
is checked by ridgepoint.content.checks, not here (see ridgepoint.content.schemafiles); here its
value set serves only to suggest what a malformed name meant ('Latency': did you mean 'latency'?),
as an unknown field gets the field it was probably meant to be.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ridgepoint.base.errors import ContentError
from ridgepoint.base.suggest import did_you_mean
from ridgepoint.content.schemafiles import chain, documents, drawn_from, resolve, schemas
from ridgepoint.content.yamldoc import Document, Location

if TYPE_CHECKING:  # imported when a document is first checked: a build whose documents
    # are all kept (ridgepoint.content.parsememo) checks none, and importing them is some 40 ms
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

ValueSets = Callable[[str], Collection[str]]  # a value set's name -> the names it holds

# When one value breaks several keywords (an empty string fails minLength and the "not
# blank" pattern), only the most telling one is reported.
_PRIORITY = (
    "type",
    "required",
    "additionalProperties",
    "propertyNames",
    "enum",
    "minLength",
    "pattern",
    "format",
    "minItems",
    "minProperties",
    "uniqueItems",
)


@functools.cache
def _ref_targets() -> dict[int, dict[str, Any]]:
    """id() of every subschema holding a `$ref` -> the schema it names, followed once here
    (the schemas are fixed) instead of through jsonschema's resolver on every use, which
    took a third of validation time."""
    targets: dict[int, dict[str, Any]] = {}

    def walk(document: str, node: Any) -> None:
        if isinstance(node, dict):
            if "$ref" in node:
                targets[id(node)] = resolve(document, node)[1]
            for value in node.values():
                walk(document, value)
        elif isinstance(node, list):
            for value in node:
                walk(document, value)

    for document, schema in documents().items():
        walk(document, schema)
    return targets


def _ref(
    validator: Draft202012Validator, ref: str, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    """The `$ref` keyword: validate against the schema it names, as jsonschema does."""
    yield from validator.descend(instance, _ref_targets()[id(schema)])


@functools.cache
def _validator_class() -> type[Draft202012Validator]:
    """Draft 2020-12 with `$ref` followed as `_ref` does."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(Draft202012Validator, {"$ref": _ref})


@functools.cache
def _validator(name: str) -> Draft202012Validator:
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    registry: Registry = Registry().with_resources(
        (key, DRAFT202012.create_resource(schema)) for key, schema in documents().items()
    )
    checker = _validator_class()
    return checker(schemas()[name], registry=registry, format_checker=checker.FORMAT_CHECKER)


def schema_errors(
    document: Document, name: str, values: ValueSets | None = None
) -> list[ContentError]:
    """Every way `document` breaks schema `name` (e.g. `term.schema.json`), one per field.

    `values` gives the value sets' names (see VALUES), for suggestions only."""
    found: dict[str, ContentError] = {}
    raw = sorted(_validator(name).iter_errors(document.data), key=_rank)
    for error in raw:
        for problem in _describe(error, document, name, values or _no_values):
            found.setdefault(problem.field, problem)
    return list(found.values())


def _no_values(name: str) -> Collection[str]:
    return ()


def _rank(error: ValidationError) -> int:
    keyword = "propertyNames" if _in_property_names(error) else str(error.validator)
    return _PRIORITY.index(keyword) if keyword in _PRIORITY else len(_PRIORITY)


def _in_property_names(error: ValidationError) -> bool:
    return "propertyNames" in error.absolute_schema_path


def _describe(
    error: ValidationError, document: Document, name: str, values: ValueSets
) -> list[ContentError]:
    """One jsonschema error as content errors (several for several unknown fields)."""
    location = list(error.absolute_path)
    instance = error.instance
    keyword = error.validator
    if keyword == "required" and isinstance(instance, Mapping):
        # A missing field has no line of its own: point at the mapping that lacks it.
        return [
            document.error(
                [*location, missing], "missing", _title(name, [*location, missing]), at=location
            )
            for missing in error.validator_value
            if missing not in instance
        ]
    if keyword == "additionalProperties" and isinstance(instance, Mapping):
        allowed = _properties(name, location)
        expected = "one of the fields " + ", ".join(allowed)
        return [
            document.error(
                [*location, key], f"unknown field{did_you_mean(str(key), allowed)}", expected
            )
            for key in instance
            if key not in allowed
        ]
    if _in_property_names(error):
        message = f"key {_quote(instance)} is malformed"
        return [document.error([*location, instance], message, error.schema.get("title", ""))]
    expected = _title(name, location)
    if keyword == "type":
        message = f"is {_kind(instance)}"
    elif keyword in ("minLength", "pattern") and isinstance(instance, str):
        if not instance.strip():
            message = "is empty"
        else:
            found = _at(name, location)
            drawn = drawn_from(*found) if found else None
            known = values(drawn) if drawn else ()
            message = f"{_quote(instance)} is malformed{did_you_mean(instance, known)}"
    elif keyword == "format":
        message = f"{_quote(instance)} is not a real {error.validator_value}"
    elif keyword == "enum":
        message = "is empty" if instance is None else f"{_quote(instance)} is not allowed"
        expected = "one of " + ", ".join(str(choice) for choice in error.validator_value)
    elif keyword in ("minItems", "minProperties"):
        message = "is empty"
    elif keyword == "uniqueItems" and isinstance(instance, list):
        message = f"lists {_quote(_first_repeat(instance))} more than once"
    else:
        message = error.message
    return [document.error(location, message, expected)]


def _at(name: str, location: Location) -> tuple[str, dict[str, Any]] | None:
    """The schema governing the value at `location`, unresolved (so its own title shows)."""
    document, schema = name, schemas()[name]
    for step in location:
        document, resolved = resolve(document, schema)
        if isinstance(step, int):
            child = resolved.get("items")
        else:
            child = resolved.get("properties", {}).get(step)
            extra = resolved.get("additionalProperties")
            if child is None and isinstance(extra, dict):
                child = extra
        if child is None:
            return None
        schema = child
    return document, schema


def _title(name: str, location: Location) -> str:
    """What belongs at `location`, as a phrase: the schema's title there."""
    if not location:
        return "a mapping of fields"
    found = _at(name, location)
    if found is None:
        return ""
    titles = (node.get("title") for _, node in chain(*found))
    return str(next((title for title in titles if title), ""))


def _properties(name: str, location: Location) -> list[str]:
    """The field names the schema allows at `location`."""
    found = _at(name, location)
    return list(resolve(*found)[1].get("properties", {})) if found else []


def _kind(value: Any) -> str:
    """What a YAML value is, as an editor would say it."""
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "a boolean (true/false)"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a mapping"
    return type(value).__name__


def _quote(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_repeat(items: list[Any]) -> Any:
    seen: list[Any] = []
    for item in items:
        if item in seen:
            return item
        seen.append(item)
    return None
