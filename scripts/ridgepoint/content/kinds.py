"""The content kinds, each registered once: its folder, its JSON Schema, its record, its rules.

Everything else follows from an entry in KINDS: the loader (ridgepoint.content.load) finds the
files, parses them, validates them against the schema, runs the kind's cross-file rules
and builds its records with no code of its own (ridgepoint.content.records); `make check` counts
them; serving watches their folder. The schema also gives editors completion through the
files' `yaml-language-server` modeline.

Adding a kind, e.g. one YAML file per GPU under content/catalogue/gpus/:

1. Its schema, scripts/ridgepoint/schemas/gpu.schema.json: `additionalProperties: false`,
   a `title` on every property (the title is the "expected ..." of its errors) and a
   `patternErrorMessage` on every pattern (what editors show); each file starts with
   `# yaml-language-server: $schema=<relative path to the schema>` (ridgepoint.base.modeline;
   `make check` requires it). A field naming files of another kind refers to that kind's
   value set (ridgepoint.content.schemafiles), as a term's `related` does to `$defs/term`.
2. Its record in ridgepoint/content/model.py: a frozen dataclass with `slug: str` (the file name),
   one field per schema property under the same name (a default for each property the
   schema does not require) and `source: Path | None = None`; a nested object is a nested
   dataclass, a list a `tuple[X, ...]`, a date `date`. Then a Site field holding the
   records by slug: `gpus: dict[str, Gpu] = field(default_factory=dict)`.
3. Its entry below: `Kind("gpus", "content/catalogue/gpus", "gpu.schema.json", Gpu,
   noun="GPU")`, plus `checks=(...)` for rules that span files (ridgepoint.content.checks), e.g.
   that a model names a GPU that exists, and `value_set="gpu"` if other files name GPUs.
4. Tests: a file of the kind in the golden sample site (tests/pipeline/golden/site/input/)
   using every property, and a failing fixture in tests/pipeline/fixtures/bad/ for each
   constraint of the new schema.
5. Editors: its folder in .vscode/settings.json, and what an editor types into its empty
   fields in FILLS of tests/pipeline/test_scaffold.py; `make new KIND=gpu` then works, as
   it writes every kind from its schema (ridgepoint.editing.scaffold).

tests/pipeline/test_kinds.py then holds the declaration together: it fails when the schema
has a property the record lacks (or the reverse, at any depth), when Site and KINDS
disagree, or when a property of a sample file does not reach its record; the rule audit
(test_load_rules.py) fails for a schema constraint no fixture breaks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ridgepoint.base.layout import Layout
from ridgepoint.content import calibration_checks, catalogue_checks, checks, records
from ridgepoint.content.calibration_records import CalibrationSet
from ridgepoint.content.catalogue_records import Gpu, LanguageModel
from ridgepoint.content.checks import SLUG, Check
from ridgepoint.content.model import Article, Explainer, Hub, Reading, Tag, Term
from ridgepoint.content.profile_records import Engine, KernelProfile
from ridgepoint.content.schemafiles import schemas

YAML_SUFFIXES = (".yaml", ".yml")

# The tag vocabulary is one file rather than a folder of them: a mapping of tag slug to
# a Tag's fields, loaded first because every kind's tags are checked against it.
VOCABULARY = "feed/tags/_vocabulary.yaml"
VOCABULARY_SCHEMA = "vocabulary.schema.json"
VOCABULARY_RECORD = Tag
# The value sets (ridgepoint.content.schemafiles) that are not a kind's slugs: the vocabulary's tags
# and the sim modules in sims/.
TAG_SET = "tag"
SIM_SET = "sim"


@dataclass(frozen=True)
class Kind:
    """One kind of content file and what becomes of it."""

    name: str  # the Site field its records fill, e.g. "terms"
    folder: str  # where its files are, relative to the content tree (not recursive)
    schema: str  # its JSON Schema's file name in schemas/
    record: type  # its record in ridgepoint.content.model: one field per schema property
    noun: str  # one file of it, as `make check` counts: "term", "hub file"
    markdown: bool = False  # the front matter of .md files, rather than YAML files
    slug: str = "slug"  # the record field the file name fills
    checks: tuple[Check, ...] = ()  # rules beyond the schema (ridgepoint.content.checks)
    # The value set its slugs are to other files' schemas (`values.schema.json#/$defs/<it>`,
    # see ridgepoint.content.schemafiles): a term's `related` names terms, so terms are "term".
    value_set: str | None = None
    # What a file name must be, when not a slug: a schema definition ("<schema>#/$defs/<name>")
    # with a pattern and a title. Catalogue keys may hold dots (llama-3.1-8b).
    file_name: str | None = None

    def __post_init__(self) -> None:
        records.converters(self.record, frozenset((self.slug, "source")))  # buildable?
        if self.schema not in schemas():
            raise LookupError(f"kind {self.name}: no schema {self.schema}")

    @property
    def file_name_rule(self) -> tuple[re.Pattern[str], str]:
        """The pattern a file name (without suffix) must match, and the error's "expected"."""
        if self.file_name is None:
            return SLUG, "a file name that is a slug: lowercase letters, digits, single hyphens"
        document, _, name = self.file_name.partition("#/$defs/")
        definition = schemas()[document]["$defs"][name]
        return re.compile(definition["pattern"]), f"a file name that is {definition['title']}"

    @property
    def suffixes(self) -> tuple[str, ...]:
        return (".md",) if self.markdown else YAML_SUFFIXES

    @property
    def key(self) -> str:
        """What `make new KIND=...` calls it: its schema's name, e.g. "term"."""
        return self.schema.removesuffix(".schema.json")

    def files(self, root: Path) -> list[Path]:
        """Its files in the content tree `root`, sorted (not hidden ones, not the vocabulary)."""
        directory = root / self.folder
        if not directory.is_dir():
            return []
        return [
            file for file in sorted(directory.iterdir())
            if file.suffix in self.suffixes and not file.name.startswith(".")
            and f"{self.folder}/{file.name}" != VOCABULARY and file.is_file()
        ]

    @property
    def rules(self) -> tuple[Check, ...]:
        """Its own rules, and the vocabulary's for a kind whose schema has `tags`."""
        tagged = "tags" in schemas()[self.schema].get("properties", {})
        return ((checks.tags_in_vocabulary,) if tagged else ()) + self.checks


KINDS = (
    Kind("terms", "glossary", "term.schema.json", Term, "term", checks=(checks.terms,),
         value_set="term"),
    Kind("readings", "feed", "reading.schema.json", Reading, "reading", value_set="reading"),
    Kind("hubs", "feed/tags", "hub.schema.json", Hub, "hub file", slug="tag",
         checks=(checks.hubs,)),
    Kind("explainers", "content/explainers", "explainer.schema.json", Explainer, "explainer",
         markdown=True, checks=(checks.explainers,)),
    Kind("articles", "content/articles", "article.schema.json", Article, "article",
         markdown=True, checks=(checks.articles,)),
    # The catalogue (ridgepoint.catalogue.units): the sims read the GPUs and models through
    # sims/physics/catalogue_data.py, written from these records.
    Kind("gpus", "content/catalogue/gpus", "gpu.schema.json", Gpu, "GPU",
         checks=(catalogue_checks.gpus,), file_name=catalogue_checks.KEY),
    Kind("models", "content/catalogue/models", "model.schema.json", LanguageModel, "model",
         checks=(catalogue_checks.models,), file_name=catalogue_checks.KEY),
    Kind("calibration", "content/catalogue/calibration", "calibration.schema.json",
         CalibrationSet, "calibration set", checks=(calibration_checks.calibration,),
         file_name=catalogue_checks.KEY),
    Kind("kernels", "content/catalogue/kernels", "kernels.schema.json", KernelProfile,
         "kernel profile", checks=(catalogue_checks.kernels,), file_name=catalogue_checks.KEY),
    Kind("engines", "content/catalogue/engines", "engine.schema.json", Engine,
         "engine profile", checks=(catalogue_checks.engines,), file_name=catalogue_checks.KEY),
)


def sources(layout: Layout) -> tuple[Path, ...]:
    """Everything staging reads that an editor changes: under `make serve`, a change to any
    of these re-stages the site (each kind's top folder, content/, the sims, mkdocs.yml)."""
    folders = [layout.root / kind.folder.split("/")[0] for kind in KINDS]
    candidates = [layout.content, *folders, layout.sims, layout.mkdocs_yml]
    return tuple(dict.fromkeys(path for path in candidates if path.exists()))
