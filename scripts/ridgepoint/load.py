"""Load every content file into one validated `Site`, reporting every problem in one pass.

Three phases: parse and schema-check each file on its own; check what spans files (tags
against the vocabulary, related terms, hub readings, sims, duplicate names); only when
nothing is wrong, build the typed records. Each phase keeps going after a problem, so an
editor sees the whole list at once; the cross-file checks read the raw data defensively
because a file may have failed its schema.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Collection, Iterator
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

from ridgepoint.errors import ContentError, ContentErrors
from ridgepoint.model import Article, Explainer, Hub, HubSection, Reading, Site, Tag, Term
from ridgepoint.validate import schema_errors, schemas
from ridgepoint.yamldoc import Document, parse, read_text

GLOSSARY = "glossary"
FEED = "feed"
HUBS = "feed/tags"
VOCABULARY = "feed/tags/_vocabulary.yaml"
EXPLAINERS = "content/explainers"
ARTICLES = "content/articles"
FOLDERS = (GLOSSARY, FEED, HUBS, EXPLAINERS, ARTICLES)
YAML_SUFFIXES = (".yaml", ".yml")

# File names are slugs: they become URLs. The pattern is the schemas' own.
SLUG = re.compile(schemas()["common.schema.json"]["$defs"]["slug"]["pattern"])
_SIM = re.compile(schemas()["explainer.schema.json"]["properties"]["sim"]["pattern"])
_FENCE = re.compile(r"---[ \t]*")
_END_FENCE = re.compile(r"(---|\.\.\.)[ \t]*")

Record = TypeVar("Record")


def load_site(root: Path, sim_modules: Collection[str] | None = None) -> Site:
    """Read and validate all content under `root` (a repository-shaped tree).

    `sim_modules` names the sims an explainer may use; by default, `sims.sim_names()`.
    Raises ContentErrors holding every problem found.
    """
    return _Loader(root, sim_modules).run()


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

    def __init__(self, root: Path, sim_modules: Collection[str] | None) -> None:
        self.root = root
        self.errors: list[ContentError] = []
        self._sim_modules = sim_modules

    def run(self) -> Site:
        vocabulary = self._yaml(VOCABULARY, "vocabulary.schema.json", required=True)
        terms = self._all(GLOSSARY, YAML_SUFFIXES, self._yaml, "term.schema.json")
        readings = self._all(FEED, YAML_SUFFIXES, self._yaml, "reading.schema.json")
        hubs = self._all(HUBS, YAML_SUFFIXES, self._yaml, "hub.schema.json")
        explainers = self._all(EXPLAINERS, (".md",), self._markdown, "explainer.schema.json")
        articles = self._all(ARTICLES, (".md",), self._markdown, "article.schema.json")

        tags = _tag_slugs(vocabulary)
        for group in (terms, readings, explainers, articles):
            for document in group.values():
                self._check_tags(document, tags)
        self._check_terms(terms)
        self._check_hubs(hubs, tags, set(readings))
        self._check_explainers(explainers)
        self._check_articles(articles)
        if self.errors or vocabulary is None:
            raise ContentErrors(self.errors)
        return Site(
            tags=_build_tags(vocabulary.data),
            terms=self._build(terms, _term),
            readings=self._build(readings, _reading),
            hubs=self._build(hubs, _hub),
            explainers=self._build(explainers, _explainer),
            articles=self._build(articles, _article),
        )

    # Phase 1: each file on its own.

    def _problem(self, path: str, line: int, field: str, message: str, expected: str) -> None:
        self.errors.append(ContentError(path, line, field, message, expected))

    def _all(
        self,
        folder: str,
        suffixes: tuple[str, ...],
        read: Callable[[str, str], Document | None],
        schema: str,
    ) -> dict[str, Document]:
        """Every content file in `folder`, by slug, parsed and schema-checked."""
        documents: dict[str, Document] = {}
        for slug, path in self._sources(folder, suffixes).items():
            document = read(path, schema)
            if document is not None:
                documents[slug] = document
        return documents

    def _sources(self, folder: str, suffixes: tuple[str, ...]) -> dict[str, str]:
        """slug -> path of each content file in `folder`; a slug must be unique and well-formed."""
        directory = self.root / folder
        found: dict[str, str] = {}
        if not directory.is_dir():
            return found
        for file in sorted(directory.iterdir()):
            path = f"{folder}/{file.name}"
            if path == VOCABULARY or file.name.startswith(".") or file.suffix not in suffixes:
                continue
            if not file.is_file():
                continue
            slug = file.stem
            if not SLUG.fullmatch(slug):
                expected = "a file name that is a slug: lowercase letters, digits, single hyphens"
                self._problem(path, 1, "slug", f"{slug!r} is malformed", expected)
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
            document = parse(read_text(file, path), path)
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
            document = parse(front, path, front_line)
        except ContentErrors as exc:
            self.errors.extend(exc.errors)
            return None
        return self._validated(document, schema)

    def _validated(self, document: Document, schema: str) -> Document:
        self.errors.extend(document.problems)
        self.errors.extend(schema_errors(document, schema))
        return document

    # Phase 2: what spans files. Values of the wrong shape were reported in phase 1.

    def _check_tags(self, document: Document, tags: set[str] | None) -> None:
        if tags is None:  # the vocabulary is broken; that is the error to fix first
            return
        for index, tag in _slugs(document.data, "tags"):
            if tag not in tags:
                message = f"{tag!r} is not in the vocabulary{_did_you_mean(tag, tags)}"
                expected = f"a tag listed in {VOCABULARY}"
                self.errors.append(document.error(["tags", index], message, expected))

    def _check_terms(self, terms: dict[str, Document]) -> None:
        names: dict[str, str] = {}
        for slug, document in terms.items():
            for index, other in _slugs(document.data, "related"):
                if other == slug:
                    message = "names the term itself"
                elif other not in terms:
                    message = f"{other!r} is not a term{_did_you_mean(other, terms)}"
                else:
                    continue
                expected = f"the slug of another file in {GLOSSARY}/"
                self.errors.append(document.error(["related", index], message, expected))
            for key in ("term", "abbreviation"):
                name = _field(document.data, key)
                if name is None:
                    continue
                folded = " ".join(name.casefold().split())
                if folded in names:
                    message = f"{name!r} is already used by {names[folded]}"
                    expected = "a name and abbreviation no other term uses"
                    self.errors.append(document.error([key], message, expected))
                else:
                    names[folded] = document.path

    def _check_hubs(
        self, hubs: dict[str, Document], tags: set[str] | None, readings: set[str]
    ) -> None:
        for tag, document in hubs.items():
            if tags is not None and SLUG.fullmatch(tag) and tag not in tags:
                message = f"hub file for {tag!r}, which is not in the vocabulary"
                self._problem(document.path, 1, "tag", message, f"a tag listed in {VOCABULARY}")
            sections = document.data.get("path") if isinstance(document.data, dict) else None
            if not isinstance(sections, list):
                continue
            seen: set[str] = set()
            for number, section in enumerate(sections):
                for index, slug in _slugs(section, "readings"):
                    where = ["path", number, "readings", index]
                    if slug not in readings:
                        message = f"{slug!r} is not a reading{_did_you_mean(slug, readings)}"
                        expected = f"the slug of a file in {FEED}/"
                        self.errors.append(document.error(where, message, expected))
                    elif slug in seen:
                        message = f"{slug!r} is already on this path"
                        self.errors.append(document.error(where, message, "each reading once"))
                    seen.add(slug)

    def _check_explainers(self, explainers: dict[str, Document]) -> None:
        for document in explainers.values():
            sim = _field(document.data, "sim")
            if sim is None or not _SIM.fullmatch(sim) or sim in self._sims():
                continue
            known = ", ".join(sorted(self._sims()))
            message = f"{sim!r} is not a sim module"
            expected = f"one of the sims: {known}" if known else "a sim module in sims/"
            self.errors.append(document.error(["sim"], message, expected))

    def _sims(self) -> Collection[str]:
        if self._sim_modules is None:
            import sims  # only when an explainer needs it: importing runs every sim module

            self._sim_modules = frozenset(sims.sim_names())
        return self._sim_modules

    def _check_articles(self, articles: dict[str, Document]) -> None:
        for document in articles.values():
            published = _date(_field(document.data, "published"))
            updated = _date(_field(document.data, "updated"))
            if published and updated and updated < published:
                message = f"{updated.isoformat()} is before published {published.isoformat()}"
                self.errors.append(document.error(["updated"], message, "a date on or after it"))

    # Phase 3: records, built only from valid documents.

    def _build(
        self, documents: dict[str, Document], make: Callable[[str, dict[str, Any], Path], Record]
    ) -> dict[str, Record]:
        return {
            slug: make(slug, document.data, self.root / document.path)
            for slug, document in documents.items()
        }


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


def _did_you_mean(name: str, known: Collection[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.8)
    return f"; did you mean {close[0]!r}?" if close else ""


def _tag_slugs(vocabulary: Document | None) -> set[str] | None:
    """The vocabulary's tags, or None when there is no usable vocabulary to check against."""
    tags = vocabulary.data.get("tags") if vocabulary and isinstance(vocabulary.data, dict) else None
    return {tag for tag in tags if isinstance(tag, str)} if isinstance(tags, dict) else None


def _build_tags(data: dict[str, Any]) -> dict[str, Tag]:
    return {
        slug: Tag(slug, entry["label"], entry["description"])
        for slug, entry in data["tags"].items()
    }


def _term(slug: str, data: dict[str, Any], source: Path) -> Term:
    return Term(
        slug=slug,
        term=data["term"],
        definition=data["definition"],
        tags=tuple(data["tags"]),
        abbreviation=data.get("abbreviation"),
        related=tuple(data.get("related", ())),
        source=source,
    )


def _reading(slug: str, data: dict[str, Any], source: Path) -> Reading:
    return Reading(
        slug=slug,
        kind=data["kind"],
        title=data["title"],
        authors=tuple(data["authors"]),
        added=date.fromisoformat(data["added"]),
        tags=tuple(data["tags"]),
        why=data["why"],
        where=data.get("where"),
        url=data.get("url"),
        source=source,
    )


def _hub(slug: str, data: dict[str, Any], source: Path) -> Hub:
    sections = tuple(
        HubSection(section["heading"], section["purpose"], tuple(section["readings"]))
        for section in data.get("path", ())
    )
    return Hub(tag=slug, intro=data["intro"], path=sections, source=source)


def _explainer(slug: str, data: dict[str, Any], source: Path) -> Explainer:
    return Explainer(
        slug=slug,
        title=data["title"],
        level=data["level"],
        hook=data["hook"],
        sim=data["sim"],
        tags=tuple(data["tags"]),
        source=source,
    )


def _article(slug: str, data: dict[str, Any], source: Path) -> Article:
    return Article(
        slug=slug,
        title=data["title"],
        summary=data["summary"],
        tags=tuple(data["tags"]),
        published=date.fromisoformat(data["published"]),
        updated=date.fromisoformat(data["updated"]),
        source=source,
    )
