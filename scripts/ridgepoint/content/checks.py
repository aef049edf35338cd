"""The content rules a schema cannot state: what spans files, and orders between fields.

A schema checks one file on its own; these check a file against the others (a tag against
the vocabulary, a related term, a hub's readings, an explainer's sim) and the few rules
between two fields of one file (an article is not updated before it was published). Each
content kind names its rules in ridgepoint.content.kinds; every rule yields content errors and
never raises.

They run on the raw documents of every file that parsed, whether or not it passed its
schema (so that an editor sees every problem in one pass), and therefore read the data
defensively: a value of the wrong shape was reported by the schema already and is skipped
here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from ridgepoint.base.errors import ContentError
from ridgepoint.base.suggest import did_you_mean
from ridgepoint.content.schemafiles import schemas
from ridgepoint.content.yamldoc import Document

# File names are slugs: they become URLs. The pattern is the schemas' own.
SLUG = re.compile(schemas()["common.schema.json"]["$defs"]["slug"]["pattern"])
_SIM = re.compile(schemas()["explainer.schema.json"]["properties"]["sim"]["pattern"])

Documents = dict[str, Document]  # one kind's files by slug


@dataclass(frozen=True)
class CrossFile:
    """What a rule may look at beyond the files of its own kind."""

    documents: Mapping[str, Documents]  # every kind's files that parsed, by kind name
    # Every kind's well-formed slugs, by kind name: the files that exist, parsed or not, so
    # that a file broken in itself is not also "missing" wherever another file names it.
    slugs: Mapping[str, frozenset[str]]
    folders: Mapping[str, str]  # every kind's folder, by kind name, for messages
    vocabulary: str  # the vocabulary's path, for messages
    tags: set[str] | None  # the vocabulary's well-formed tags; None when missing or broken
    sims: Callable[[], Collection[str]]  # the sim modules, asked only when needed


Check = Callable[[Documents, CrossFile], Iterable[ContentError]]


def tags_in_vocabulary(documents: Documents, other: CrossFile) -> Iterator[ContentError]:
    """Every tag is in the vocabulary (for every kind whose schema has `tags`)."""
    if other.tags is None:  # the vocabulary is broken; that is the error to fix first
        return
    for document in documents.values():
        for index, tag in _slugs(document.data, "tags"):
            if tag not in other.tags:
                message = f"{tag!r} is not in the vocabulary{did_you_mean(tag, other.tags)}"
                expected = f"a tag listed in {other.vocabulary}"
                yield document.error(["tags", index], message, expected)


def terms(documents: Documents, other: CrossFile) -> Iterator[ContentError]:
    """Related terms exist and are other terms; no two terms share a name or abbreviation."""
    names: dict[str, str] = {}
    terms = other.slugs["terms"]
    for slug, document in documents.items():
        for index, related in _slugs(document.data, "related"):
            if related == slug:
                message = "names the term itself"
            elif related not in terms:
                message = f"{related!r} is not a term{did_you_mean(related, terms)}"
            else:
                continue
            expected = f"the slug of another file in {other.folders['terms']}/"
            yield document.error(["related", index], message, expected)
        for key in ("term", "abbreviation"):
            name = _field(document.data, key)
            if name is None:
                continue
            folded = " ".join(name.casefold().split())
            if folded in names:
                message = f"{name!r} is already used by {names[folded]}"
                yield document.error([key], message, "a name and abbreviation no other term uses")
            else:
                names[folded] = document.path


def hubs(documents: Documents, other: CrossFile) -> Iterator[ContentError]:
    """A hub is for a tag of the vocabulary; its path lists existing readings, each once."""
    readings = other.slugs["readings"]
    for tag, document in documents.items():
        if other.tags is not None and SLUG.fullmatch(tag) and tag not in other.tags:
            message = f"hub file for {tag!r}, which is not in the vocabulary"
            expected = f"a tag listed in {other.vocabulary}"
            yield ContentError(document.path, 1, "tag", message, expected)
        sections = document.data.get("path") if isinstance(document.data, dict) else None
        if not isinstance(sections, list):
            continue
        seen: set[str] = set()
        for number, section in enumerate(sections):
            for index, slug in _slugs(section, "readings"):
                where = ["path", number, "readings", index]
                if slug not in readings:
                    message = f"{slug!r} is not a reading{did_you_mean(slug, readings)}"
                    expected = f"the slug of a file in {other.folders['readings']}/"
                    yield document.error(where, message, expected)
                elif slug in seen:
                    message = f"{slug!r} is already on this path"
                    yield document.error(where, message, "each reading once")
                seen.add(slug)


def explainers(documents: Documents, other: CrossFile) -> Iterator[ContentError]:
    """An explainer's sim is a sim module."""
    for document in documents.values():
        sim = _field(document.data, "sim")
        if sim is None or not _SIM.fullmatch(sim) or sim in other.sims():
            continue
        known = ", ".join(sorted(other.sims()))
        expected = f"one of the sims: {known}" if known else "a sim module in sims/"
        message = f"{sim!r} is not a sim module{did_you_mean(sim, other.sims())}"
        yield document.error(["sim"], message, expected)


def articles(documents: Documents, other: CrossFile) -> Iterator[ContentError]:
    """An article is updated on or after the day it was published."""
    for document in documents.values():
        published = _date(_field(document.data, "published"))
        updated = _date(_field(document.data, "updated"))
        if published and updated and updated < published:
            message = f"{updated.isoformat()} is before published {published.isoformat()}"
            yield document.error(["updated"], message, "a date on or after it")


def _field(data: Any, key: str) -> str | None:
    """A non-blank string field of a mapping, or None."""
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, str) and value.strip() else None


def _slugs(data: Any, key: str) -> Iterator[tuple[int, str]]:
    """(index, slug) for each well-formed slug in the list `data[key]`."""
    values = data.get(key) if isinstance(data, dict) else None
    if isinstance(values, list):
        for index, value in enumerate(values):
            if isinstance(value, str) and SLUG.fullmatch(value):
                yield index, value


def _date(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None
