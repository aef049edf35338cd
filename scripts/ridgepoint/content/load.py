"""Load every content file into one validated `Site`, reporting every problem in one pass.

Three phases: parse and schema-check each file on its own; check what spans files (the
rules each kind names in ridgepoint.content.kinds, see ridgepoint.content.checks); only when
nothing is wrong, build the typed records (ridgepoint.content.records). Each phase keeps going
after a problem, so an editor sees the whole list at once. Which files there are, and what they
become, is the content kinds' declaration (ridgepoint.content.kinds): nothing here is specific to
one kind.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from ridgepoint.base import modeline
from ridgepoint.base.errors import ContentError, ContentErrors
from ridgepoint.base.suggest import plain
from ridgepoint.content import records
from ridgepoint.content.checks import SLUG, CrossFile, Documents, tags_in_vocabulary
from ridgepoint.content.kinds import (
    KINDS,
    SIM_SET,
    TAG_SET,
    VOCABULARY,
    VOCABULARY_RECORD,
    VOCABULARY_SCHEMA,
    Kind,
)
from ridgepoint.content.model import Site
from ridgepoint.content.parsememo import ParseMemo
from ridgepoint.content.yamldoc import Document, parse, read_text

_FENCE = re.compile(r"---[ \t]*")
_END_FENCE = re.compile(r"(---|\.\.\.)[ \t]*")


def load_site(
    root: Path, sim_modules: Collection[str] | None = None, kinds: Sequence[Kind] = KINDS,
    memo: ParseMemo | None = None,
) -> Site:
    """Read and validate all content under `root` (a repository-shaped tree).

    `sim_modules` names the sims an explainer may use; by default, `sims.sim_names()`.
    `kinds` limits the load to some kinds, checked among themselves (the sims' catalogue
    module needs the catalogue's alone): the other Site fields stay empty, and the
    vocabulary is read only when a kind has tags. `memo` remembers each file's parse and
    schema check across loads (ridgepoint.content.parsememo). Raises ContentErrors holding every
    problem found.
    """
    memo = memo or ParseMemo()
    try:
        return _Loader(root, sim_modules, kinds, memo).run()
    finally:
        memo.prune()  # its kept entries beyond their limit, if this load added any


def split_front_matter(text: str, path: str = "<markdown>") -> tuple[dict[str, Any], str, int]:
    """A Markdown file's front matter (empty if it has none), its body, and the file line
    (1-based) where the body starts. Dates in the front matter stay text. Raises
    ContentErrors (naming `path`) for front matter that is unclosed, not YAML or not a
    mapping."""
    front, front_line, body, body_line = _split(text, path)
    if front is None:
        return {}, body, body_line
    document = parse(front, path, front_line)
    if document.data is None:  # "---" then "---": empty front matter, as MkDocs allows
        return {}, body, body_line
    if not isinstance(document.data, dict):
        raise ContentErrors([document.error([], "is not a mapping", "a mapping of fields")])
    return document.data, body, body_line


def body_of(text: str, path: str = "<markdown>") -> tuple[str, int]:
    """A Markdown file's body and its first line, without parsing the front matter (cheap);
    ContentErrors for front matter that is not closed."""
    _, _, body, body_line = _split(text, path)
    return body, body_line


def _split(text: str, path: str) -> tuple[str | None, int, str, int]:
    """(front matter YAML or None, its first line, body, body's first line)."""
    # Split on "\n" only, as YAML and editors count lines (str.splitlines also splits on
    # form feeds and other separators, which would shift every line number after them).
    lines = text.split("\n")
    if not _FENCE.fullmatch(lines[0].rstrip("\r")):
        return None, 0, text, 1
    for index in range(1, len(lines)):
        if _END_FENCE.fullmatch(lines[index].rstrip("\r")):
            front = "".join(line + "\n" for line in lines[1:index])
            return front, 2, "\n".join(lines[index + 1 :]), index + 2
    raise ContentErrors(
        [ContentError(path, 1, "front matter", "is not closed", "a line '---' after it")]
    )


class _Loader:
    """One load: the root, the problems found so far, and the raw documents."""

    def __init__(
        self, root: Path, sim_modules: Collection[str] | None, kinds: Sequence[Kind],
        memo: ParseMemo,
    ) -> None:
        self.root = root
        self.errors: list[ContentError] = []
        self._sim_modules = sim_modules
        self._kinds = kinds
        self._memo = memo
        self._tags: set[str] | None = None
        self.slugs: dict[str, frozenset[str]] = {}

    def run(self) -> Site:
        # Every file's slug first: what other files may name is what exists, whether or not
        # it parses (a broken term must not make every mention of it an error too).
        sources = {kind.name: self._sources(kind) for kind in self._kinds}
        self.slugs = {
            kind.name: frozenset(filter(kind.file_name_rule[0].fullmatch, sources[kind.name]))
            for kind in self._kinds
        }
        tagged = any(tags_in_vocabulary in kind.rules for kind in self._kinds)
        vocabulary = self._yaml(VOCABULARY, VOCABULARY_SCHEMA, required=True) if tagged else None
        self._tags = _tag_slugs(vocabulary)
        documents = {kind.name: self._all(kind, sources[kind.name]) for kind in self._kinds}
        other = CrossFile(
            documents=documents,
            slugs=self.slugs,
            folders={kind.name: kind.folder for kind in self._kinds},
            vocabulary=VOCABULARY,
            tags=self._tags,
            sims=self._sims,
        )
        for kind in self._kinds:
            for rule in kind.rules:
                self.errors.extend(rule(documents[kind.name], other))
        if self.errors or (tagged and vocabulary is None):
            raise ContentErrors(self.errors)
        tags = {
            slug: records.build(VOCABULARY_RECORD, entry, slug=slug)
            for slug, entry in (vocabulary.data["tags"].items() if vocabulary else ())
        }
        built = {kind.name: self._build(kind, documents[kind.name]) for kind in self._kinds}
        return Site(tags=tags, **built)

    # Phase 1: each file on its own.

    def _problem(self, path: str, line: int, field: str, message: str, expected: str) -> None:
        self.errors.append(ContentError(path, line, field, message, expected))

    def _all(self, kind: Kind, sources: dict[str, str]) -> Documents:
        """Every file of a kind, by slug, parsed and schema-checked."""
        read = self._markdown if kind.markdown else self._yaml
        documents: Documents = {}
        for slug, path in sources.items():
            document = read(path, kind.schema)
            if document is not None:
                documents[slug] = document
        return documents

    def _sources(self, kind: Kind) -> dict[str, str]:
        """slug -> path of each file of a kind; a slug must be unique and well-formed."""
        found: dict[str, str] = {}
        for file in kind.files(self.root):
            path = f"{kind.folder}/{file.name}"
            slug = file.stem
            well_formed, expected = kind.file_name_rule
            if not well_formed.fullmatch(slug):
                renamed = plain(slug) + file.suffix
                hint = f"; rename it {renamed!r}?" if well_formed.fullmatch(plain(slug)) else ""
                self._problem(path, 1, "slug", f"{slug!r} is malformed{hint}", expected)
            elif slug in found:
                message = f"{slug!r} is already used by {found[slug]}"
                self._problem(path, 1, "slug", message, "one file per slug")
                continue
            found[slug] = path
        return found

    def _yaml(self, path: str, schema: str, required: bool = False) -> Document | None:
        file = self.root / path
        if not file.is_file():
            if required:
                self._problem(path, 1, "file", "is missing", "the tag vocabulary")
            return None
        try:
            text = read_text(file, path)
        except ContentErrors as exc:
            self.errors.extend(exc.errors)
            return None
        self.errors.extend(modeline.problems(text, path, schema))
        try:
            document = self._memo.parse(text, path, schema=schema)
        except ContentErrors as exc:
            self.errors.extend(exc.errors)
            return None
        return self._validated(document, schema)

    def _markdown(self, path: str, schema: str) -> Document | None:
        try:
            text = read_text(self.root / path, path)
            front, front_line, _, _ = _split(text, path)
            if front is None:
                expected = "a YAML block between '---' lines at the top of the file"
                self._problem(path, 1, "front matter", "is missing", expected)
                return None
            document = self._memo.parse(front, path, front_line, schema)
        except ContentErrors as exc:
            self.errors.extend(exc.errors)
            return None
        return self._validated(document, schema)

    def _validated(self, document: Document, schema: str) -> Document:
        self.errors.extend(document.problems)
        self.errors.extend(self._memo.schema_errors(document, schema, self._value_set))
        return document

    def _value_set(self, name: str) -> Collection[str]:
        """The names a value set holds (ridgepoint.content.schemafiles), for suggestions."""
        if name == TAG_SET:
            return self._tags or ()
        if name == SIM_SET:
            return self._sims()
        return next((self.slugs[kind.name] for kind in KINDS if kind.value_set == name), ())

    # Phase 2 needs the sims only when an explainer names one.

    def _sims(self) -> Collection[str]:
        if self._sim_modules is None:
            import sims  # only when an explainer needs it: importing runs every sim module

            self._sim_modules = frozenset(sims.sim_names())
        return self._sim_modules

    # Phase 3: records, built only from valid documents.

    def _build(self, kind: Kind, documents: Documents) -> dict[str, Any]:
        return {
            slug: records.build(
                kind.record, document.data, **{kind.slug: slug}, source=self.root / document.path
            )
            for slug, document in documents.items()
        }


def _tag_slugs(vocabulary: Document | None) -> set[str] | None:
    """The vocabulary's well-formed tags (a malformed one is reported, and never suggested),
    or None when there is no usable vocabulary to check against."""
    tags = vocabulary.data.get("tags") if vocabulary and isinstance(vocabulary.data, dict) else None
    if not isinstance(tags, dict):
        return None
    return {tag for tag in tags if isinstance(tag, str) and SLUG.fullmatch(tag)}
