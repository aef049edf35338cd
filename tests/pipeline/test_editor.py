"""What an editor shows: the pinned yaml-language-server, driven over stdio as an editor drives
it, on a fresh clone after one `make check`: unknown tags, terms and readings flagged in plain
words, tags, terms and readings completed, every pattern explained, and every YAML file
routed to its schema by the committed VS Code settings even without its modeline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ridgepoint.base.modeline import SCHEMAS
from ridgepoint.content.kinds import KINDS, VOCABULARY, VOCABULARY_SCHEMA
from ridgepoint.content.schemafiles import SCHEMA_DIR, VALUES, schemas
from tests.clone import clone, run
from tests.pipeline.lsp import SERVER, LanguageServer
from tests.repo import LAYOUT, REPO

SETTINGS = REPO / ".vscode" / "settings.json"
TERM = "glossary/time-to-first-token.yaml"
READING = "feed/sarathi-serve.yaml"
HUB = "feed/tags/latency.yaml"
COMMON = schemas()["common.schema.json"]["$defs"]


def pattern_message(definition: str) -> str:
    return COMMON[definition]["patternErrorMessage"]


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh clone after one `make check`."""
    root = clone(tmp_path_factory.mktemp("editor") / "repo")
    result = run(root, "scripts/check.py")
    assert result.returncode == 0, result.stderr
    return root


@pytest.fixture(scope="module")
def editor(checked: Path) -> LanguageServer:
    """The language server on that clone, with the committed VS Code settings."""
    settings = json.loads(SETTINGS.read_text())
    with LanguageServer(checked, {"schemas": settings["yaml.schemas"]}) as server:
        yield server


def shown(editor: LanguageServer, root: Path, path: str, old: str, new: str) -> list[tuple]:
    """(line, message) of what the editor shows for `path` with `old` replaced by `new`."""
    text = (root / path).read_text()
    assert old in text, f"{path} no longer holds {old!r}"
    return [(d["range"]["start"]["line"] + 1, d["message"])
            for d in editor.diagnostics(root / path, text.replace(old, new, 1))]


def line_of(root: Path, path: str, fragment: str) -> int:
    lines = (root / path).read_text().split("\n")
    return next(number for number, line in enumerate(lines, 1) if fragment in line)


def test_the_language_server_is_pinned_exactly() -> None:
    wanted = json.loads((REPO / "package.json").read_text())["dependencies"]
    assert wanted["yaml-language-server"] == "1.25.0"
    installed = json.loads((SERVER.parent.parent / "package.json").read_text())
    assert installed["version"] == "1.25.0"


def test_the_schemas_refer_to_where_make_check_writes_the_value_sets() -> None:
    assert (SCHEMA_DIR / VALUES).resolve() == LAYOUT.editor_values
    assert LAYOUT.code / SCHEMAS == SCHEMA_DIR


def test_make_check_writes_every_value_set_the_schemas_name(checked: Path) -> None:
    written = json.loads((checked / "build" / "editor" / "values.schema.json").read_text())
    sets = written["$defs"]
    assert set(sets) == {"tag", "term", "reading", "sim"}
    assert "latency" in sets["tag"]["enum"] and "time-to-first-token" in sets["term"]["enum"]
    assert "sarathi-serve" in sets["reading"]["enum"] and "batching" in sets["sim"]["enum"]
    assert all(definition["errorMessage"] for definition in sets.values())


@pytest.mark.lsp
def test_before_the_first_make_check_the_editor_names_the_missing_file(
    tmp_path: Path,
) -> None:
    root = clone(tmp_path / "repo")
    with LanguageServer(root) as server:
        messages = [d["message"] for d in server.diagnostics(root / TERM)]
    assert any("build/editor/values.schema.json" in message for message in messages), messages


UNKNOWN = [  # (file, text, the mistake, the line it is on, what the editor says)
    (TERM, "tags: [latency", "tags: [latncy", "tags:",
     "Not a tag of feed/tags/_vocabulary.yaml; completion lists the tags. A new tag is added "
     "there."),
    (TERM, "inter-token-latency", "inter-token-latncy", "related:",
     "Not a term: there is no glossary/<slug>.yaml of that slug; completion lists the terms."),
    (HUB, "- sarathi-serve", "- sarathi-serv", "- sarathi-serve",
     "Not a reading: there is no feed/<slug>.yaml of that slug; completion lists the readings."),
]


@pytest.mark.lsp
@pytest.mark.parametrize(("path", "old", "new", "where", "message"), UNKNOWN,
                         ids=["unknown tag", "misspelt related term", "missing hub reading"])
def test_a_name_that_does_not_exist_is_flagged_in_plain_words_on_its_line(
    editor: LanguageServer, checked: Path, path: str, old: str, new: str, where: str,
    message: str,
) -> None:
    assert shown(editor, checked, path, old, new) == [(line_of(checked, path, where), message)]


@pytest.mark.lsp
def test_slug_url_date_and_blank_mistakes_read_as_plain_words(
    editor: LanguageServer, checked: Path
) -> None:
    url = shown(editor, checked, READING, "url: https://", "url: arxiv.org/")
    assert url == [(line_of(checked, READING, "url:"), pattern_message("url"))]
    date = shown(editor, checked, READING, "added: 2026-", "added: 30/11/")
    assert [message for _, message in date] == [pattern_message("date")]
    # The server's date format checks each part's range only: 2026-13-01 is flagged, 2026-11-31
    # is not (make check catches it: "is not a real date").
    unreal = shown(editor, checked, READING, "added: 2026-11-30", "added: 2026-13-01")
    assert [message for _, message in unreal] == [pattern_message("date")]
    slug = shown(editor, checked, TERM, "inter-token-latency", "Inter Token Latency")
    assert pattern_message("slug") in [message for _, message in slug]
    blank = shown(editor, checked, TERM, "term: Time to first token", 'term: " "')
    assert [message for _, message in blank] == [pattern_message("text")]
    for message in (url + date + unreal + slug + blank):
        assert "pattern" not in message[1] and "^" not in message[1]


@pytest.mark.lsp
def test_the_editor_completes_tags_terms_and_readings(
    editor: LanguageServer, checked: Path
) -> None:
    sets = json.loads((checked / "build" / "editor" / "values.schema.json").read_text())["$defs"]
    text = (checked / TERM).read_text()
    line = line_of(checked, TERM, "tags:") - 1
    tags = editor.completion(checked / TERM, text.replace("tags: [latency, ", "tags: [", 1),
                             line, len("tags: ["))
    assert set(sets["tag"]["enum"]) <= set(tags)
    related_line = line_of(checked, TERM, "related:") - 1
    emptied = "\n".join("related: [" if number == related_line else part
                        for number, part in enumerate(text.split("\n")))
    terms = editor.completion(checked / TERM, emptied, related_line, len("related: ["))
    assert set(sets["term"]["enum"]) <= set(terms)
    hub = (checked / HUB).read_text()
    at = line_of(checked, HUB, "- sarathi-serve") - 1
    cleared = "\n".join(part.split("- ")[0] + "- " if number == at else part
                        for number, part in enumerate(hub.split("\n")))
    readings = editor.completion(checked / HUB, cleared, at, len(cleared.split("\n")[at]))
    assert set(sets["reading"]["enum"]) <= set(readings)


@pytest.mark.lsp
def test_a_term_added_is_completed_once_make_check_has_run(
    editor: LanguageServer, checked: Path
) -> None:
    new = checked / "glossary" / "queue-delay.yaml"
    new.write_text((checked / TERM).read_text().replace("Time to first token", "Queue delay")
                   .replace("abbreviation: TTFT\n", ""))
    try:
        assert run(checked, "scripts/check.py").returncode == 0
        editor.changed(checked / "build" / "editor" / "values.schema.json")
        found = shown(editor, checked, TERM, "inter-token-latency", "queue-delay")
        assert found == []
    finally:
        new.unlink()
        run(checked, "scripts/check.py")
        editor.changed(checked / "build" / "editor" / "values.schema.json")


def expected_settings() -> dict[str, list[str]]:
    """What .vscode/settings.json must say: every YAML kind's folder to its schema, the
    vocabulary to its own (and not to the hubs', whose folder it is in)."""
    routes: dict[str, list[str]] = {}
    for kind in KINDS:
        if not kind.markdown:
            globs = [f"{kind.folder}/*{suffix}" for suffix in kind.suffixes]
            if kind.folder == VOCABULARY.rsplit("/", 1)[0]:
                globs.append(f"!{VOCABULARY}")
            routes[f"./{SCHEMAS}/{kind.schema}"] = globs
    routes[f"./{SCHEMAS}/{VOCABULARY_SCHEMA}"] = [VOCABULARY]
    return routes


def test_the_vs_code_settings_name_every_yaml_kind() -> None:
    assert json.loads(SETTINGS.read_text())["yaml.schemas"] == expected_settings()


@pytest.mark.lsp
def test_the_vs_code_settings_check_a_file_without_its_modeline(
    editor: LanguageServer, checked: Path
) -> None:
    """An empty mapping in each kind's folder, no modeline: the editor checks it against that
    kind's schema (the diagnostic's source names the schema by its title)."""
    files: dict[str, str] = {f"{kind.folder}/no-modeline.yaml": kind.schema
                             for kind in KINDS if not kind.markdown}
    files[VOCABULARY] = VOCABULARY_SCHEMA
    for path, schema in files.items():
        diagnostics: list[dict[str, Any]] = editor.diagnostics(checked / path, "{}\n")
        sources = {d.get("source") for d in diagnostics}
        assert sources == {f"yaml-schema: {schemas()[schema]['title']}"}, (path, diagnostics)
