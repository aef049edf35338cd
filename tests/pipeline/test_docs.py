"""The maintainers' documents name only what exists: every `make` target and every path.

README.md and docs/*.md tell a newcomer where things live and what to run. A file moved or
a target renamed leaves them pointing at nothing, which nobody notices until a newcomer
follows them; this test reads every code span, code block and relative link in them.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from tests.repo import LAYOUT

ROOT = LAYOUT.code
DOCUMENTS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
# Where a path may start: the repository's own folders and files. Anything else in a code
# span (a URL path such as `feed/tags/<tag>/`, a command, a value) is not a repository path.
TOP = ("content/", "sims/", "scripts/", "tests/", "glossary/", "feed/", "overrides/",
       "docs/", "types/", ".vscode/", ".ci/", "ridgepoint/")
FILES = ("Makefile", "mkdocs.yml", "pyproject.toml", "package.json", "package-lock.json",
         "requirements.lock", "requirements-experiments.lock", "requirements-experiments.in",
         "tsconfig.json", "tsconfig.workers.json", "README.md")
GENERATED = ("build/", "site/", ".venv/", "node_modules/")
SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
MAKE = re.compile(r"\bmake ([a-z][\w-]*)")
TOKEN = re.compile(r"[\w.{},/<>*-]+")  # a pattern (`<slug>`, `*.yaml`) is one token


def _code(text: str) -> list[str]:
    """Every code span and code block of a Markdown text."""
    return [*SPAN.findall(text), *FENCE.findall(text)]


def _expand(token: str) -> list[str]:
    """`scripts/{build,check}.py` -> both paths."""
    parts = re.split(r"\{([^{}]*)\}", token)
    choices = [[part] if i % 2 == 0 else part.split(",") for i, part in enumerate(parts)]
    return ["".join(combination) for combination in itertools.product(*choices)]


def _repository_paths(text: str) -> set[str]:
    found = set()
    for code in _code(text):
        for token in TOKEN.findall(code):
            token = token.rstrip(".,)")
            if "<" in token or "*" in token:
                continue  # a pattern, not a path: `content/explainers/<slug>.md`
            if token.startswith(TOP) or token in FILES:
                found.update(_expand(token))
    return found


def _targets() -> set[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][\w-]*):", makefile, re.MULTILINE))


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_make_target_a_document_names_exists(document: Path) -> None:
    named = {target for code in _code(document.read_text("utf-8"))
             for target in MAKE.findall(code)}
    assert named - _targets() == set()


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_path_a_document_names_exists(document: Path) -> None:
    text = document.read_text("utf-8")
    missing = []
    for path in sorted(_repository_paths(text)):
        where = ROOT / "scripts" / path if path.startswith("ridgepoint/") else ROOT / path
        if not where.exists():
            missing.append(path)
    for target in LINK.findall(text):
        if "://" not in target and not (document.parent / target).exists():
            missing.append(target)
    assert missing == []


def test_the_reader_finds_paths_in_spans_blocks_and_braces() -> None:
    sample = ("See `sims/kit/contract.py` and `scripts/{build,check}.py`.\n"
              "```sh\npython -m sims\nls content/explainers/\nmake serve\n```\n"
              "Patterns `feed/tags/<tag>/` and `glossary/*.yaml` are not paths, nor `x/y`.")
    assert _repository_paths(sample) == {
        "sims/kit/contract.py", "scripts/build.py", "scripts/check.py", "content/explainers/"}
    assert {t for code in _code(sample) for t in MAKE.findall(code)} == {"serve"}
