"""`make new KIND=... SLUG=...`: a new content file, written from its kind's schema.

Every kind in ridgepoint.content.kinds can be scaffolded, because the file is written from the
schema rather than from a template per kind: the modeline, each required field (empty, so that
`make check` names it until it is filled; a date is today), each optional one commented
out, and beside each field what belongs there (the schema's title) with its allowed values
(an enum, or the tags, terms, readings or sims that exist: the editors' value sets). A kind
added later is covered the day it is declared. An explainer also gets its sim: the module
SIM names, or a new sims/<module>.py from templates/sim.py, a working sim that passes the
contract tests.

A request is refused, in one line and before anything is written, for an unknown kind, a
slug that is not one, a slug already taken, a hub for a tag the vocabulary lacks, or a sim
module that is taken or unknown.
"""

from __future__ import annotations

import importlib.util
import keyword
import textwrap
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import sims
from ridgepoint.base import modeline
from ridgepoint.base.layout import Layout
from ridgepoint.base.suggest import plain
from ridgepoint.content.checks import SLUG
from ridgepoint.content.kinds import KINDS, SIM_SET, TAG_SET, VOCABULARY, Kind
from ridgepoint.content.schemafiles import chain, drawn_from, resolve, schemas
from ridgepoint.editing import valuesets

TEMPLATE = Path(__file__).parent / "templates" / "sim.py"
# Kinds whose full form is mostly a script's work: the fields an editor writes by hand (written
# out as if required; the schema's other fields are left out), and a closing comment on the
# rest. A kernel profile's own constants are fitted and rewritten, with the errors they make,
# by `make fit` (scripts/calibration.py --fit); what an editor writes by hand is a profile that
# takes another's constants, and why.
BY_HAND = {
    "kernels": (("name", "like", "assumption"),
                "A profile with constants of its own gives instead every section "
                "(overlap_exponent, gemm, prefill_attention, decode_attention, moe, elementwise, "
                "all_reduce), with starting values and their source; make fit "
                "(scripts/calibration.py --fit) then fits each class that has training points "
                "and writes the errors they make (accuracy). See docs/catalogue.md."),
}
_SIM = "sim"  # the explainer field that names its sim module
WIDTH = 100  # comment lines are wrapped to the repository's line length


class Refused(Exception):
    """What `make new` will not do, said in one line."""


@dataclass(frozen=True)
class Written:
    """The files one `make new` wrote, content file first, relative to the content tree."""

    paths: tuple[str, ...]
    sim: str | None  # the sim module written from the template, if one was


def scaffold(layout: Layout, key: str, slug: str, today: date, sim_names: Collection[str],
             sim: str | None = None) -> Written:
    """Write a new file of the kind `key` ("term", "explainer", ...) named `slug`;
    `sim_names` are the sims there are, `sim` the one an explainer is to explain."""
    kind = kind_of(key)
    check_slug(layout, kind, slug)
    sets = valuesets.editor_schema(layout.root, sim_names)["$defs"]
    if kind.key == "hub" and slug not in sets[TAG_SET].get("enum", ()):
        raise Refused(f"{slug!r} is not a tag of {VOCABULARY}: add it there first")
    path = f"{kind.folder}/{slug}{kind.suffixes[0]}"
    fill: dict[str, str] = {}
    new_sim, metrics = None, {}
    if kind.key == "explainer":
        fill[_SIM], new_sim = _sim_module(layout, slug, sim, sim_names)
        metrics = _metrics(None if new_sim else fill[_SIM])
    text = _text(kind, path, today, sets, fill, metrics)
    if new_sim is not None:
        title = slug.replace("-", " ").capitalize()
        create(layout.sims / f"{new_sim}.py", TEMPLATE.read_text().replace("__TITLE__", title))
    create(layout.root / path, text)
    written = (path, f"sims/{new_sim}.py") if new_sim else (path,)
    return Written(written, new_sim)


def check_slug(layout: Layout, kind: Kind, slug: str) -> None:
    """Refuse a slug that is not one (a catalogue kind's is a catalogue key, which may have
    dots: llama-3.1-8b), or that a file of the kind already has."""
    pattern, expected = kind.file_name_rule
    if kind.file_name is not None and not pattern.fullmatch(slug):
        raise Refused(f"SLUG={slug!r} is not {expected.removeprefix('a file name that is ')}, "
                      "e.g. llama-3.1-8b")
    if kind.file_name is None and not SLUG.fullmatch(slug):
        example = plain(slug) if SLUG.fullmatch(plain(slug)) else "time-to-first-token"
        raise Refused(f"SLUG={slug!r} is not a slug: lowercase letters and digits, words "
                      f"joined by single hyphens, e.g. {example}")
    taken = [file for file in kind.files(layout.root) if file.stem == slug]
    if taken:
        raise Refused(f"{layout.relative(taken[0])} already exists")


def kind_of(key: str) -> Kind:
    for kind in KINDS:
        if kind.key == key:
            return kind
    raise Refused(f"KIND={key!r} is not a kind of content: one of "
                  + "|".join(kind.key for kind in KINDS))


def _sim_module(layout: Layout, slug: str, sim: str | None,
                sim_names: Collection[str]) -> tuple[str, str | None]:
    """(the module the explainer names, the module to write from the template or None)."""
    if sim is not None:
        if sim not in sim_names:
            known = ", ".join(sorted(sim_names))
            raise Refused(f"SIM={sim!r} is not a sim module: one of {known}")
        return sim, None
    module = slug.replace("-", "_")
    if not module[0].isalpha() or keyword.iskeyword(module):
        raise Refused(f"{module!r} cannot be a module name (it must start with a letter and "
                      "not be a Python keyword): name one with SIM=")
    if (layout.sims / f"{module}.py").exists():
        raise Refused(f"sims/{module}.py already exists: pass SIM={module} to explain it")
    return module, module


def create(file: Path, text: str) -> None:
    """Write a new file; never overwrite one (a race with another editor included)."""
    file.parent.mkdir(parents=True, exist_ok=True)
    with file.open("x", encoding="utf-8") as handle:
        handle.write(text)


def _text(kind: Kind, path: str, today: date, sets: Mapping[str, Any],
          fill: Mapping[str, str], metrics: Mapping[str, str]) -> str:
    schema, note = schemas()[kind.schema], []
    if kind.key in BY_HAND:
        keep, rest = BY_HAND[kind.key]
        schema = {"properties": {key: schema["properties"][key] for key in keep},
                  "required": list(keep)}
        note = wrap(rest, "")
    fields = Fields(today, sets, fill).lines(kind.schema, schema, True, "")
    if not kind.markdown:
        return "\n".join([modeline.modeline(path, kind.schema), *fields, *note]) + "\n"
    return "\n".join(["---", *fields, "---", "", *_body(kind, fill, metrics)]) + "\n"


def _body(kind: Kind, fill: Mapping[str, str], metrics: Mapping[str, str]) -> list[str]:
    if kind.key != "explainer":
        return ["Write the page here, in Markdown. Every figure in it comes from a sim, a",
                "measurement by code in this repository, or a cited source."]
    module = fill[_SIM]
    metric, label = next(iter(metrics.items()))
    return [
        "Write the prose around the simulation here: what to try, what to notice, why it",
        "matters. A number from the sim is a placeholder that the build fills in",
        "(scripts/ridgepoint/prose/figures.py); at the starting inputs, for example:",
        f"{label} = {{{{ sim:{module}.{metric} | .3g }}}}.",
        "",
        "```sim",
        f"module: {module}",
        "```",
    ]


def _metrics(sim: str | None) -> dict[str, str]:
    """The METRICS of the sim `sim`, or of the template (not a module of sims/ yet)."""
    if sim is not None:
        return dict(sims.load(sim).METRICS)
    spec = importlib.util.spec_from_file_location("_sim_template", TEMPLATE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.METRICS)


@dataclass(frozen=True)
class Fields:
    """Writes the fields of one schema as YAML lines, each with what belongs in it.

    A field is written out when it is required and its parent is; otherwise it is commented
    out (`# ` at the very start of the line, so removing it leaves valid YAML)."""

    today: date
    sets: Mapping[str, Any]
    fill: Mapping[str, str]

    def lines(self, document: str, schema: dict[str, Any], active: bool, indent: str
              ) -> list[str]:
        document, resolved = resolve(document, schema)
        needed = set(resolved.get("required", ()))
        out: list[str] = []
        for key, prop in resolved.get("properties", {}).items():
            out += self._field(document, key, prop, key in needed, active, indent)
        return out

    def _field(self, document: str, key: str, prop: dict[str, Any], required: bool,
               active: bool, indent: str) -> list[str]:
        target_document, target = resolve(document, prop)
        title = next((node["title"] for _, node in chain(document, prop) if node.get("title")),
                     "")
        note = title if required else f"optional: {title}"
        written = active and required
        mark = "" if written else "# "
        # What the field means (the schema's description, where it has one), then its values.
        allowed = [*wrap(prop.get("description", ""), indent),
                   *wrap(self._allowed(document, prop, target_document, target), indent)]
        items = target.get("items")
        if target.get("type") == "object" and "properties" in target:
            nested = self.lines(target_document, target, written, indent + "  ")
            return [f"{mark}{indent}{key}:  # {note}", *allowed, *nested]
        if target.get("type") == "array" and isinstance(items, dict):
            item_document, item = resolve(target_document, items)
            if item.get("type") == "object":
                nested = self.lines(item_document, item, written, indent + "    ")
                first = f"{mark}{indent}    "
                nested[0] = f"{mark}{indent}  - " + nested[0].removeprefix(first)
                return [f"{mark}{indent}{key}:  # {note}", *allowed, *nested]
            return [f"{mark}{indent}{key}: []  # {note}", *allowed]
        default = self.today.isoformat() if target.get("format") == "date" else ""
        value = self.fill.get(key, default)
        return [f"{mark}{indent}{key}: {value}".rstrip() + f"  # {note}", *allowed]

    def _allowed(self, document: str, prop: dict[str, Any], target_document: str,
                 target: dict[str, Any]) -> str:
        """The allowed values of a field (or of its items), as one phrase, or ""."""
        if "enum" in target:
            return "one of " + ", ".join(map(str, target["enum"]))
        items = target.get("items")
        if isinstance(items, dict):
            name = drawn_from(target_document, items)
        else:
            name = drawn_from(document, prop)
        values = self.sets.get(name, {}).get("enum") if name else None
        if not values:
            return ""
        what = {TAG_SET: "tags", SIM_SET: "sims"}.get(name, f"{name}s")
        return f"the {what}: " + ", ".join(values)


def wrap(text: str, indent: str) -> list[str]:
    """A phrase as comment lines under its field, wrapped to WIDTH."""
    prefix = f"{indent}#   "
    return textwrap.wrap(text, WIDTH, initial_indent=prefix, subsequent_indent=prefix,
                         break_on_hyphens=False) if text else []
