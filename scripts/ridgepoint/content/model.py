"""The content model: every YAML file and Markdown front matter, as plain typed records.

The loader (`ridgepoint.content.load`) builds a `Site` once and validates it; every page and feed
is generated from it by plain functions. Records are frozen: generators read, never write.

A record's fields are its schema's properties, by the same names (plus the slug, which is
the file name, and the source path): records are built from the data generically
(ridgepoint.content.records), and tests/pipeline/test_kinds.py fails when a record and its schema
disagree. Allowed values (an explainer's levels, a reading's kinds) live in the schemas
only. How to add a kind: ridgepoint.content.kinds.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import date
from pathlib import Path

from ridgepoint.content.calibration_records import CalibrationSet
from ridgepoint.content.catalogue_records import Gpu, LanguageModel
from ridgepoint.content.profile_records import Engine, KernelProfile


@dataclass(frozen=True)
class Tag:
    """One entry of the controlled vocabulary (feed/tags/_vocabulary.yaml)."""

    slug: str
    label: str
    description: str


@dataclass(frozen=True)
class Term:
    """A glossary term (glossary/<slug>.yaml)."""

    slug: str
    term: str
    definition: str
    tags: tuple[str, ...]
    abbreviation: str | None = None
    related: tuple[str, ...] = ()
    source: Path | None = None


@dataclass(frozen=True)
class Reading:
    """An outside piece worth the time (feed/<slug>.yaml)."""

    slug: str
    kind: str
    title: str
    authors: tuple[str, ...]
    added: date
    tags: tuple[str, ...]
    why: str
    where: str | None = None
    url: str | None = None
    source: Path | None = None


@dataclass(frozen=True)
class HubSection:
    """One step of a tag's reading path: a heading, its purpose, readings in order."""

    heading: str
    purpose: str
    readings: tuple[str, ...]


@dataclass(frozen=True)
class Hub:
    """A tag hub file (feed/tags/<tag>.yaml). A tag without one gets an empty Hub."""

    tag: str
    intro: str | None = None
    path: tuple[HubSection, ...] = ()
    source: Path | None = None


@dataclass(frozen=True)
class Explainer:
    """An explainer page (content/explainers/<slug>.md) around one sim."""

    slug: str
    title: str
    level: str
    hook: str
    sim: str
    tags: tuple[str, ...]
    source: Path | None = None


@dataclass(frozen=True)
class Article:
    """A long-form article (content/articles/<slug>.md)."""

    slug: str
    title: str
    summary: str
    tags: tuple[str, ...]
    published: date
    updated: date
    source: Path | None = None


@dataclass(frozen=True)
class Site:
    """All content, loaded and validated. Mappings are keyed by slug: one per content kind
    (ridgepoint.content.kinds, under the kind's name) and the vocabulary's tags."""

    tags: dict[str, Tag] = field(default_factory=dict)
    terms: dict[str, Term] = field(default_factory=dict)
    readings: dict[str, Reading] = field(default_factory=dict)
    hubs: dict[str, Hub] = field(default_factory=dict)
    explainers: dict[str, Explainer] = field(default_factory=dict)
    articles: dict[str, Article] = field(default_factory=dict)
    gpus: dict[str, Gpu] = field(default_factory=dict)  # the catalogue (catalogue_records)
    models: dict[str, LanguageModel] = field(default_factory=dict)
    calibration: dict[str, CalibrationSet] = field(default_factory=dict)
    kernels: dict[str, KernelProfile] = field(default_factory=dict)  # (calibration_records)
    engines: dict[str, Engine] = field(default_factory=dict)  # (calibration_records)

    def tags_in_use(self) -> list[str]:
        """Every tag that a hub file is for or a record of any kind carries, sorted."""
        used: set[str] = set(self.hubs)
        for group in fields(self):
            if group.name != "tags":
                for item in getattr(self, group.name).values():
                    used.update(getattr(item, "tags", ()))
        return sorted(used)
