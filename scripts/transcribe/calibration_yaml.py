"""Write a calibration set (content/catalogue/calibration/<slug>.yaml) as YAML text.

The transcription scripts beside this module build a set as plain dicts and lists; this
module turns it into the layout the hand-written sets use: the schema modeline, a comment
naming the script that wrote the file, block mappings for the set and its points, and each
point's case on one line. Strings are written as JSON strings, which YAML reads unchanged.
"""

from __future__ import annotations

import json
from typing import Any

MODELINE = ("# yaml-language-server: "
            "$schema=../../../scripts/ridgepoint/schemas/calibration.schema.json")
# Words YAML 1.1 readers (PyYAML among them) take for booleans or null when bare.
RESERVED = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def scalar(value: Any) -> str:
    """One YAML scalar: a number as Python writes it, a catalogue key bare, text quoted."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    text = str(value)
    bare = text and text[0].isalpha() and all(c.isalnum() or c in "-._" for c in text)
    if bare and text.lower() not in RESERVED:
        return text
    return json.dumps(text, ensure_ascii=False)


def flow(mapping: dict[str, Any]) -> str:
    """A mapping of scalars on one line: {a: 1, b: bf16}."""
    return "{" + ", ".join(f"{key}: {scalar(value)}" for key, value in mapping.items()) + "}"


def dump(document: dict[str, Any], written_by: str) -> str:
    """The whole file: modeline, provenance comment, publication, measured_by, split (and
    whatever else the set gives: a list in flow style), points."""
    lines = [MODELINE, f"# Written by {written_by}; rerun it rather than editing this file."]
    for field, value in document.items():
        if field == "points":
            continue
        if isinstance(value, dict):
            lines.append(f"{field}:")
            lines.extend(f"  {key}: {scalar(item)}" for key, item in value.items())
        elif isinstance(value, list):
            lines.append(f"{field}: [{', '.join(scalar(item) for item in value)}]")
        else:
            lines.append(f"{field}: {scalar(value)}")
    lines.append("points:")
    for point in document["points"]:
        first = True
        for field, value in point.items():
            prefix = "- " if first else "  "
            first = False
            text = flow(value) if isinstance(value, dict) else scalar(value)
            lines.append(f"{prefix}{field}: {text}")
    return "\n".join(lines) + "\n"
