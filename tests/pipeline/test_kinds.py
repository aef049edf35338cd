"""Each content kind is declared once: its schema and its record agree, field for field.

Records are built generically from the validated data (ridgepoint.content.records), so what can
drift is the declaration itself: a property added to a schema but not to its record (it
would be validated, then dropped) or the reverse. `disagreements` compares the two at every
depth (properties and fields, which ones are optional, and their types); the tests below
run it on every kind, prove it catches drift, and load the sample site to see that every
property a file holds reaches its record.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from ridgepoint.content import records
from ridgepoint.content.kinds import KINDS, VOCABULARY, VOCABULARY_RECORD, VOCABULARY_SCHEMA, Kind
from ridgepoint.content.load import load_site, split_front_matter
from ridgepoint.content.model import HubSection, Site, Term
from ridgepoint.content.schemafiles import resolve, schemas
from ridgepoint.content.yamldoc import parse
from tests.pipeline.conftest import SAMPLE

GIVEN = {"source"}  # filled by the loader, from no property (with each kind's slug field)


def disagreements(record: type, document: str, schema: dict[str, Any], given: set[str]
                  ) -> list[str]:
    """How a record and the object schema describing it differ, one line per difference."""
    document, schema = resolve(document, schema)
    properties: dict[str, Any] = schema.get("properties", {})
    fields = {f.name: f for f in dataclasses.fields(record) if f.name not in given}
    hints = typing.get_type_hints(record)
    name = record.__name__
    found = [f"{document}: property {p!r} has no field in {name}"
             for p in sorted(properties.keys() - fields.keys())]
    found += [f"{name}.{f}: no property in {document}"
              for f in sorted(fields.keys() - properties.keys())]
    required = set(schema.get("required", ()))
    for prop in sorted(properties.keys() & fields.keys()):
        field = fields[prop]
        optional = (field.default is not dataclasses.MISSING
                    or field.default_factory is not dataclasses.MISSING)
        if prop not in required and not optional:
            found.append(f"{name}.{prop}: optional in the schema, without a default here")
        found += _type_disagreements(hints[prop], document, properties[prop], f"{name}.{prop}")
    return found


def _type_disagreements(hint: Any, document: str, schema: dict[str, Any], where: str
                        ) -> list[str]:
    document, schema = resolve(document, schema)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        (hint,) = [arg for arg in args if arg is not type(None)]
        origin, args = typing.get_origin(hint), typing.get_args(hint)
    kind = schema.get("type")
    if "enum" in schema and kind is None:
        kind = "string" if all(isinstance(v, str) for v in schema["enum"]) else None
    if origin is tuple:
        if kind != "array":
            return [f"{where}: a tuple, but the schema says {kind}"]
        return _type_disagreements(args[0], document, schema.get("items", {}), f"{where}[]")
    if origin is dict:  # a mapping of free keys: the schema's additionalProperties
        entry = schema.get("additionalProperties")
        if kind != "object" or not isinstance(entry, dict):
            return [f"{where}: a dict, but the schema has no additionalProperties schema"]
        return _type_disagreements(args[1], document, entry, f"{where}{{}}")
    if dataclasses.is_dataclass(hint):
        if kind != "object":
            return [f"{where}: a record, but the schema says {kind}"]
        return disagreements(typing.cast(type, hint), document, schema, set())
    expected = {str: "string", date: "string", int: "integer", float: "number", bool: "boolean"}
    if expected.get(hint) != kind:
        return [f"{where}: {getattr(hint, '__name__', hint)}, but the schema says {kind}"]
    if (hint is date) != (schema.get("format") == "date"):
        return [f"{where}: a date field and a date format go together"]
    return []


# Records for the tests of the checks themselves (module level: their hints must resolve).
@dataclasses.dataclass(frozen=True)
class Section(HubSection):
    colour: str = ""


@dataclasses.dataclass(frozen=True)
class Counted:
    intro: int


@dataclasses.dataclass(frozen=True)
class Inner:
    when: date
    share: float


@dataclasses.dataclass(frozen=True)
class Outer:
    slug: str
    inner: tuple[Inner, ...]
    by_name: dict[str, Inner]
    count: int = 0
    note: str | None = None


@dataclasses.dataclass(frozen=True)
class Odd:
    slug: str
    shape: set[str]


def _given(kind: Kind) -> set[str]:
    return GIVEN | {kind.slug}


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_each_kind_has_a_record_field_for_every_schema_property_and_no_other(kind: Kind) -> None:
    document = kind.schema
    assert disagreements(kind.record, document, schemas()[document], _given(kind)) == []


def test_the_vocabulary_entries_and_tags_agree() -> None:
    entry = schemas()[VOCABULARY_SCHEMA]["properties"]["tags"]["additionalProperties"]
    assert disagreements(VOCABULARY_RECORD, VOCABULARY_SCHEMA, entry, {"slug"}) == []


def test_a_schema_property_without_a_record_field_is_caught() -> None:
    """The check above can fail: a property added to the term schema alone, a field added
    to a nested record alone, and a type changed on one side are each reported."""
    term = dict(schemas()["term.schema.json"])
    term["properties"] = {**term["properties"], "pronunciation": {"type": "string"}}
    assert disagreements(Term, "term.schema.json", term, {"slug", "source"}) == [
        "term.schema.json: property 'pronunciation' has no field in Term"
    ]

    section = schemas()["hub.schema.json"]["$defs"]["section"]
    assert disagreements(Section, "hub.schema.json", section, set()) == [
        "Section.colour: no property in hub.schema.json"
    ]

    hub = schemas()["hub.schema.json"]
    only_intro = {**hub, "properties": {"intro": hub["properties"]["intro"]}}
    assert disagreements(Counted, "hub.schema.json", only_intro, set()) == [
        "Counted.intro: int, but the schema says string"
    ]


def test_site_holds_one_mapping_per_kind_and_the_tags() -> None:
    hints = typing.get_type_hints(Site)
    assert [f.name for f in dataclasses.fields(Site)] == ["tags", *(k.name for k in KINDS)]
    assert hints["tags"] == dict[str, VOCABULARY_RECORD]
    for kind in KINDS:
        assert hints[kind.name] == dict[str, kind.record], kind.name


def _source_data(path: Path) -> dict[str, Any]:
    """A content file's fields as written (YAML, or Markdown front matter)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        return split_front_matter(text, path.name)[0]
    return parse(text, path.name).data


def _plain(value: Any) -> Any:
    """A record value written back as YAML data, to compare with what the file says (a
    nested record's fields that the file leaves out, at their defaults, are left out)."""
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if dataclasses.is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)
                if getattr(value, f.name) != f.default}
    return value


@pytest.fixture(scope="module")
def loaded() -> Site:
    return load_site(SAMPLE)


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_every_property_of_a_sample_file_reaches_its_record(kind: Kind, loaded: Site) -> None:
    records_of_kind = getattr(loaded, kind.name)
    assert records_of_kind, f"the sample site has no {kind.noun}"
    seen: set[str] = set()
    for slug, record in records_of_kind.items():
        assert getattr(record, kind.slug) == slug
        data = _source_data(record.source)
        for prop, value in data.items():
            assert _plain(getattr(record, prop)) == value, f"{record.source.name}: {prop}"
        seen |= data.keys()
    properties = set(schemas()[kind.schema]["properties"])
    assert seen == properties, f"no sample {kind.noun} uses {sorted(properties - seen)}"


def test_every_vocabulary_entry_reaches_its_tag(loaded: Site) -> None:
    entries = parse((SAMPLE / VOCABULARY).read_text(encoding="utf-8"), VOCABULARY).data["tags"]
    assert {slug: _plain(tag) for slug, tag in loaded.tags.items()} == {
        slug: {"slug": slug, **entry} for slug, entry in entries.items()
    }


def test_records_convert_yaml_by_their_field_types() -> None:
    built = records.build(Outer, {"inner": [{"when": "2026-01-02", "share": 1}],
                                  "by_name": {"a": {"when": "2026-03-04", "share": 0.5}}},
                          slug="s")
    assert built == Outer("s", (Inner(date(2026, 1, 2), 1.0),),
                          {"a": Inner(date(2026, 3, 4), 0.5)})
    assert isinstance(built.inner[0].share, float)


def test_a_record_that_cannot_be_built_is_refused_when_its_kind_is_declared() -> None:
    with pytest.raises(TypeError, match=r"Odd\.shape: no conversion"):
        Kind("odd", "odd", "term.schema.json", Odd, "odd")
    with pytest.raises(LookupError, match="no schema"):
        Kind("terms", "glossary", "nope.schema.json", Term, "term")


def test_a_mapping_field_is_checked_against_its_schemas_free_keys() -> None:
    """A dict field reads the schema's additionalProperties: an entry of another type, or a
    mapping the schema does not describe, is reported."""
    inner = {"type": "object", "additionalProperties": False,
             "properties": {"when": {"type": "string", "format": "date"},
                            "share": {"type": "number"}},
             "required": ["when", "share"]}
    outer = {"type": "object", "additionalProperties": False, "required": ["inner", "by_name"],
             "properties": {"inner": {"type": "array", "items": inner},
                            "by_name": {"type": "object", "additionalProperties": inner},
                            "count": {"type": "integer"}, "note": {"type": "string"}}}
    assert disagreements(Outer, "outer", outer, {"slug"}) == []
    loose = {**outer, "properties": {**outer["properties"], "by_name": {"type": "object"}}}
    assert disagreements(Outer, "outer", loose, {"slug"}) == [
        "Outer.by_name: a dict, but the schema has no additionalProperties schema"
    ]
    counted = {**inner, "properties": {**inner["properties"], "share": {"type": "integer"}}}
    wrong = {**outer, "properties": {**outer["properties"], "by_name": {
        "type": "object", "additionalProperties": counted}}}
    assert disagreements(Outer, "outer", wrong, {"slug"}) == [
        "Inner.share: float, but the schema says integer"
    ]
