"""`make model-from-config CONFIG=<config.json> SLUG=<key>`: a catalogue model from its config.

A model file mirrors its config.json (docs/catalogue.md): each field under `config` is the
config field of the same name. This writes that part from the config itself, so nothing is
retyped: every field the model schema knows (ridgepoint/schemas/model.schema.json, so a
field added there is copied the day it is added), with "source: config" and the line of the
config.json it was read from beside it. What a config says that the schema cannot hold
(a quantization method or a layer kind the physics does not price, a window the config
switches off) is left out, with the reason, rather than copied into an error.

The citation is the editor's: `name` and `config_json` (the title and URL of this very
config.json, at a fixed commit) are written empty, and `make check` names them until they
are filled; `published` (the model card's parameter counts) is commented out. The file is
refused, like `make new`'s, if its slug is not one or is taken.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from ridgepoint.base import modeline
from ridgepoint.base.layout import Layout
from ridgepoint.content.schemafiles import resolve, schemas
from ridgepoint.editing.scaffold import Fields, Refused, check_slug, create, kind_of, wrap

SCHEMA = "model.schema.json"
WIDTH = 100  # the repository's line length, for the lists written in flow style
ALIASES = {"torch_dtype": ("torch_dtype", "dtype")}  # newer configs name it dtype
Path_ = tuple[str, ...]  # a field's place in the config: ("quantization_config", "fmt")


def key_lines(text: str) -> dict[Path_, int]:
    """The line (from 1) each key of the JSON text is on, by its path of keys: json.loads
    keeps no positions, so the text is walked once more (lists entered, not indexed)."""
    starts = [0] + [index + 1 for index, char in enumerate(text) if char == "\n"]
    lines: dict[Path_, int] = {}

    def line_of(position: int) -> int:
        return bisect.bisect_right(starts, position)

    def space(position: int) -> int:
        while position < len(text) and text[position] in " \t\r\n":
            position += 1
        return position

    def value(position: int, path: Path_) -> int:
        position = space(position)
        char = text[position]
        if char == '"':
            return json.decoder.scanstring(text, position + 1)[1]
        if char in "{[":
            closing = "}" if char == "{" else "]"
            position = space(position + 1)
            while text[position] != closing:
                if char == "{":
                    key, after = json.decoder.scanstring(text, position + 1)
                    lines.setdefault((*path, key), line_of(position))
                    position = value(space(after) + 1, (*path, key))  # past the colon
                else:
                    position = value(position, path)
                position = space(position)
                if text[position] == ",":
                    position = space(position + 1)
            return position + 1
        while position < len(text) and text[position] not in ",}] \t\r\n":
            position += 1  # a number, true, false or null
        return position

    value(0, ())
    return lines


@dataclass(frozen=True)
class Field:
    """One config field as the model file will hold it, or why it is left out."""

    name: str
    value: Any
    line: int | None  # in the config.json
    read_as: str  # the config's own name for it ("dtype" for torch_dtype)
    left_out: str | None = None  # why the value is not copied


def fields(config: Mapping[str, Any], lines: Mapping[Path_, int], prefix: Path_ = ()
           ) -> Iterator[Field]:
    """The model schema's config fields that `config` gives, in the schema's order."""
    document, schema = resolve(SCHEMA, schemas()[SCHEMA]["properties"]["config"])
    for name, prop in schema["properties"].items():
        for read_as in ALIASES.get(name, (name,)):
            if config.get(read_as) is not None:
                value = config[read_as]
                yield Field(name, value, lines.get((*prefix, read_as)), read_as,
                            _refusal(name, value, config, document, prop))
                break


def _refusal(name: str, value: Any, config: Mapping[str, Any], document: str,
             prop: dict[str, Any]) -> str | None:
    """Why `value` cannot be copied as `name`, or None."""
    if name == "sliding_window" and config.get("use_sliding_window") is False:
        return "use_sliding_window is false: no layer slides"
    if name == "quantization_config":
        method = value.get("quant_method") if isinstance(value, dict) else None
        allowed = _enum(document, prop["properties"]["quant_method"])
        if method not in allowed:
            return f"quant_method {method!r} is not one the physics prices ({', '.join(allowed)})"
        return None
    target_document, target = resolve(document, prop)
    items = target.get("items")
    allowed = _enum(target_document, items if isinstance(items, dict) else target)
    values = value if isinstance(value, list) else [value]
    unknown = sorted({str(v) for v in values if allowed and v not in allowed})
    if unknown:
        return f"{', '.join(unknown)} is not one the catalogue can hold ({', '.join(allowed)})"
    return None


def _enum(document: str, prop: dict[str, Any]) -> list[Any]:
    return list(resolve(document, prop)[1].get("enum", ()))


def render(text: str, where: str) -> str:
    """The model file for the config.json `text` (read from `where`, named in the header)."""
    config = json.loads(text)
    if not isinstance(config, dict):
        raise Refused(f"{where} is not a JSON object: a config.json holds one")
    lines, prefix = key_lines(text), ()
    if "hidden_size" not in config and isinstance(config.get("text_config"), dict):
        config, prefix = config["text_config"], ("text_config",)  # a multimodal checkpoint
    found = list(fields(config, lines, prefix))
    if not found:
        raise Refused(f"{where} has none of the fields a model file holds (hidden_size, "
                      "num_hidden_layers, ...): is it a Hugging Face config.json?")
    kept = [field for field in found if field.left_out is None]
    out = [modeline.modeline("content/catalogue/models/model.yaml", SCHEMA),
           *_wrap_comment(
               f"Made by `make model-from-config` from {where}"
               + (", its text_config (the language model)" if prefix else "")
               + ". Each field under config is the config.json field of the same name: its "
               "source and the line it is on are beside it. Fill in name and config_json (the "
               "title and the URL of this very config.json at a fixed commit); `make check` "
               "names both until you do. The config's other fields are not read by the "
               "physics and were left out."),
           *_citation()]
    out += ["config:"] + [line for field in kept for line in _field_lines(field)]
    left = [field for field in found if field.left_out is not None]
    if left:
        out += _wrap_comment("Left out on purpose: " + "; ".join(
            f"{field.read_as} (line {field.line}): {field.left_out}" for field in left))
    return "\n".join(out) + "\n"


def _citation() -> list[str]:
    """name, config_json (title and url, both to fill) and published (commented out), each
    with what belongs there, as `make new KIND=model` writes them."""
    schema = schemas()[SCHEMA]
    document, source = resolve(SCHEMA, schema["properties"]["config_json"])
    cited = {**schema["properties"]["config_json"], **source, "required": ["title", "url"]}
    cited.pop("$ref", None)
    part = {"properties": {"name": schema["properties"]["name"], "config_json": cited,
                           "published": schema["properties"]["published"]},
            "required": ["name", "config_json"]}
    return Fields(date.today(), {}, {}).lines(document, part, True, "")


def _field_lines(field: Field) -> list[str]:
    where = f"source: config, line {field.line}" if field.line else "source: config"
    if field.read_as != field.name:
        where += f" ({field.read_as})"
    if isinstance(field.value, dict):
        config = schemas()[SCHEMA]["properties"]["config"]["properties"]
        inner = _mapping(field.value, SCHEMA, config[field.name], "    ")
        return [f"  {field.name}:  # {where}", *inner]
    written = f"  {field.name}: {_scalar(field.value)}"
    if len(written) + len(where) + 4 <= WIDTH:
        return [f"{written}  # {where}"]
    return [f"  # {field.name}: {where}", *_flow(field.name, field.value, "  ")]


def _mapping(value: Mapping[str, Any], document: str, prop: dict[str, Any], indent: str
             ) -> list[str]:
    """A config object's keys the schema `prop` knows, as block YAML at `indent`, nested
    objects (compressed-tensors' quantization groups) the same way; nulls and keys the schema
    does not hold are left out, as at the top."""
    document, schema = resolve(document, prop)
    known, other = schema.get("properties", {}), schema.get("additionalProperties")
    lines: list[str] = []
    for key, item in value.items():
        inner = known.get(key, other if isinstance(other, dict) else None)
        if item is None or inner is None:
            continue
        if isinstance(item, dict):
            lines += [f"{indent}{key}:", *_mapping(item, document, inner, indent + "  ")]
        else:
            lines += _flow(key, item, indent)
    return lines


def _scalar(value: Any) -> str:
    """A JSON value as YAML writes it: strings quoted only where YAML would misread them."""
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(item) for item in value) + "]"
    if isinstance(value, str):
        plain = value.replace("_", "").replace(".", "").replace("-", "").replace("*", "")
        return value if plain.isalnum() and not plain.isdigit() else json.dumps(value)
    return json.dumps(value)


def _flow(name: str, value: Any, indent: str) -> list[str]:
    """`name: value` at `indent`; a list that does not fit in WIDTH in flow style, wrapped,
    its further lines indented two more."""
    if not isinstance(value, list) or len(f"{indent}{name}: {_scalar(value)}") <= WIDTH:
        return [f"{indent}{name}: {_scalar(value)}"]
    items = [_scalar(item) for item in value]
    lines, current = [], f"{indent}{name}: ["
    for number, item in enumerate(items):
        piece = item + ("]" if number == len(items) - 1 else ",")
        if len(current) + len(piece) + 1 > WIDTH:
            lines.append(current.rstrip())
            current = indent + "  "
        current += piece + " "
    return [*lines, current.rstrip()]


def _wrap_comment(text: str) -> list[str]:
    return [line.replace("#   ", "# ", 1) for line in wrap(text, "")]


def write(layout: Layout, slug: str, config: Path) -> str:
    """Write content/catalogue/models/<slug>.yaml from the config.json `config`; the path
    written, relative to the content tree. Refused (Refused) as `make new` refuses."""
    kind = kind_of("model")
    check_slug(layout, kind, slug)
    try:
        text = config.read_text(encoding="utf-8")
    except OSError as error:
        raise Refused(f"CONFIG={str(config)!r} cannot be read: {error.strerror}") from None
    try:
        body = render(text, config.name)
    except json.JSONDecodeError as error:
        raise Refused(f"{config.name} is not JSON: {error.msg} at line {error.lineno}") from None
    path = f"{kind.folder}/{slug}{kind.suffixes[0]}"
    create(layout.root / path, body.replace(
        modeline.modeline("content/catalogue/models/model.yaml", SCHEMA),
        modeline.modeline(path, SCHEMA), 1))
    return path
