"""Records built generically from validated content: no kind has a builder of its own.

A content kind's JSON Schema says what a file may hold; its record (a frozen dataclass in
ridgepoint.content.model) says what pages read. Each record field is filled from the schema
property of the same name, converted by the field's type hint, so a property cannot be
validated and then silently dropped by a builder that forgot it: there is no such builder.
Which fields exist is checked against the schema by tests/pipeline/test_kinds.py (a
property without a field, or a field without a property, fails it).

The conversions are those JSON-shaped YAML needs: a list becomes a tuple, a mapping a
nested record (or a dict), a YYYY-MM-DD string a `date`, an integer where a float is
declared a float; text, integers and booleans stay as they are. A field the file leaves
out takes the record's default.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Collection, Mapping
from datetime import date
from typing import Any, TypeVar

Record = TypeVar("Record")
Converter = Callable[[Any], Any]


def build(record_type: type[Record], data: Mapping[str, Any], **given: Any) -> Record:
    """A `record_type` from schema-valid `data`; `given` fills the fields no file holds (the
    slug, which is the file name, and the source path)."""
    values = dict(given)
    for name, convert in converters(record_type, frozenset(given)).items():
        if name in data:
            values[name] = convert(data[name])
    return record_type(**values)


@functools.cache
def converters(record_type: type, given: Collection[str] = frozenset()) -> dict[str, Converter]:
    """Field name -> conversion from YAML data, for every field of `record_type` except the
    `given` ones. Raises TypeError for a field whose type has no conversion, so a record
    that cannot be built fails when its kind is declared, not when a file is loaded."""
    if not dataclasses.is_dataclass(record_type):
        raise TypeError(f"{record_type!r} is not a dataclass")
    hints = typing.get_type_hints(record_type)
    return {
        field.name: _converter(hints[field.name], f"{record_type.__name__}.{field.name}")
        for field in dataclasses.fields(record_type)
        if field.name not in given
    }


def _converter(hint: Any, where: str) -> Converter:
    """The conversion for one type hint (see the module docstring)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        present = [arg for arg in args if arg is not type(None)]
        if len(present) != 1:
            raise TypeError(f"{where}: only `X | None` unions can be built, not {hint}")
        inner = _converter(present[0], where)
        return lambda value: None if value is None else inner(value)
    if origin is tuple:
        if len(args) != 2 or args[1] is not Ellipsis:
            raise TypeError(f"{where}: a list becomes tuple[X, ...], not {hint}")
        item = _converter(args[0], where)
        return lambda value: tuple(item(v) for v in value)
    if origin is dict:
        entry = _converter(args[1], where)
        return lambda value: {key: entry(v) for key, v in value.items()}
    if dataclasses.is_dataclass(hint):
        converters(hint)  # refuse an unbuildable nested record now
        return functools.partial(build, hint)
    if hint is date:
        return date.fromisoformat
    if hint is float:
        return float
    if hint in (str, int, bool):
        return _same
    raise TypeError(f"{where}: no conversion from YAML to {hint}")


def _same(value: Any) -> Any:
    return value
