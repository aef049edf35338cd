"""The value sets editors complete from: every tag, term, reading and sim there is.

A term's `related`, a hub's readings, every `tags` list and an explainer's `sim` name things
that exist elsewhere in the content. The committed schemas say so where it applies, with a
`$ref` into build/editor/values.schema.json (ridgepoint.content.schemafiles.VALUES); this module
writes that file from the content at every `make check`, `make build` and serve rebuild, so
an editor's yaml-language-server completes those names and flags one that does not exist,
with a plain message, as the file is typed. The file is generated, never committed: on a
fresh clone the editor says it cannot load the reference until `make check` has run once.

The loader does not read this file: ridgepoint.content.checks checks the same names, with file lines
and did-you-mean, against whichever tree it loads.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

from ridgepoint.base.atomic import write_atomic
from ridgepoint.base.errors import ContentErrors
from ridgepoint.base.layout import Layout
from ridgepoint.content.checks import SLUG
from ridgepoint.content.kinds import KINDS, SIM_SET, TAG_SET, VOCABULARY
from ridgepoint.content.schemafiles import value_sets
from ridgepoint.content.yamldoc import parse, read_text
from ridgepoint.sims.simrun import SimRuns

TITLE = "Ridgepoint value sets: written by `make check` from the content; do not edit"


def editor_schema(root: Path, sims: Collection[str]) -> dict[str, Any]:
    """The value sets of the content tree `root`, as the schema document editors read."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": TITLE,
        "$defs": {name: _definition(name, root, sims) for name in sorted(value_sets())},
    }


def refresh(layout: Layout) -> None:
    """Write the repository's value sets from its content and its sims as they are now."""
    write(layout, SimRuns.of(layout).names())


def write(layout: Layout, sims: Collection[str]) -> None:
    """Write the repository's value sets where its schemas refer to them, if they changed."""
    text = json.dumps(editor_schema(layout.root, sims), indent=2, ensure_ascii=False) + "\n"
    target = layout.editor_values
    if not target.is_file() or target.read_text(encoding="utf-8") != text:
        write_atomic(target, text)


def _definition(name: str, root: Path, sims: Collection[str]) -> dict[str, Any]:
    if name == TAG_SET:
        tags = _vocabulary(root)
        if tags is None:  # broken or missing: `make check` says so; flag nothing meanwhile
            return {}
        message = f"Not a tag of {VOCABULARY}; completion lists the tags. A new tag is added there."
        return _enum(tags, message, descriptions=list(tags.values()))
    if name == SIM_SET:
        message = "Not a sim module in sims/; completion lists them."
        return _enum(sorted(sims), message)
    kind = next((kind for kind in KINDS if kind.value_set == name), None)
    if kind is None:
        raise LookupError(f"the schemas refer to value set {name!r}, which no kind declares")
    slugs = [file.stem for file in kind.files(root) if SLUG.fullmatch(file.stem)]
    where = f"{kind.folder}/<slug>{kind.suffixes[0]}"
    return _enum(slugs, f"Not a {kind.noun}: there is no {where} of that slug; completion "
                        f"lists the {kind.noun}s.")


def _enum(values: Collection[str], message: str, descriptions: list[str] | None = None
          ) -> dict[str, Any]:
    definition: dict[str, Any] = {"enum": list(values), "errorMessage": message}
    if descriptions:
        definition["enumDescriptions"] = descriptions
    return definition


def _vocabulary(root: Path) -> dict[str, str] | None:
    """Each well-formed tag of the vocabulary, with its label and description as one line."""
    try:
        document = parse(read_text(root / VOCABULARY, VOCABULARY), VOCABULARY)
    except (ContentErrors, OSError):
        return None
    tags = document.data.get("tags") if isinstance(document.data, dict) else None
    if not isinstance(tags, dict):
        return None
    return {
        tag: _describe(entry)
        for tag, entry in sorted(tags.items(), key=lambda item: str(item[0]))
        if isinstance(tag, str) and SLUG.fullmatch(tag)
    }


def _describe(entry: Any) -> str:
    if not isinstance(entry, dict):
        return ""
    parts = [entry.get("label"), entry.get("description")]
    return ": ".join(part for part in parts if isinstance(part, str) and part.strip())
