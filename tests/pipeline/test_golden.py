"""Generated pages and feeds against golden directories: each case an input and its output.

As in Observable Framework's build tests, every folder under tests/pipeline/golden/ is a
case: `input/` is a repository-shaped content tree (glossary/, feed/, content/) and
`output/` every page and feed generated from it, one file each (named by `case_name`). The
`site` case is also the sample site that the build tests build and the content-model tests
load (conftest.SAMPLE): one sample site serves all of them.

A mismatch writes `<file>.changed` beside the golden file and fails. To accept a change,
review the diff (`diff output/<file> output/<file>.changed`) and move the .changed file over
the golden one, or run `make golden` (UPDATE_GOLDEN=1) to rewrite every golden file.
"""

from __future__ import annotations

import functools
import os

import pytest

from ridgepoint.content.load import load_site
from ridgepoint.pages import generate_pages
from ridgepoint.pages.feeds import generate_feeds
from tests.pipeline.conftest import GOLDEN, SITE_URL
from tests.repo import sims_code

CASES = sorted(path.name for path in GOLDEN.iterdir() if (path / "input").is_dir())


def case_name(staged_path: str) -> str:
    """feed/tags/latency/index.md -> feed.tags.latency.md; feed.xml stays feed.xml."""
    if staged_path.endswith("/index.md"):
        staged_path = staged_path.removesuffix("/index.md") + ".md"
    return staged_path.replace("/", ".")


@functools.cache
def outputs(case: str) -> dict[str, bytes]:
    site = load_site(GOLDEN / case / "input")
    pages = {case_name(p): text.encode() for p, text in generate_pages(site, sims_code()).items()}
    feeds = generate_feeds(site, SITE_URL, "Ridgepoint", "A test feed.")
    return pages | {case_name(p): data for p, data in feeds.items()}


def test_there_is_a_case() -> None:
    assert "site" in CASES


@pytest.mark.parametrize("case", CASES)
def test_every_golden_file_is_produced(case: str) -> None:
    """A page that stops being generated must not leave its golden file behind unnoticed."""
    folder = GOLDEN / case / "output"
    golden = {p.name for p in folder.iterdir() if not p.name.endswith(".changed")}
    assert golden == set(outputs(case))


@pytest.mark.parametrize(
    ("case", "name"), [(case, name) for case in CASES for name in sorted(outputs(case))]
)
def test_output_matches_golden(case: str, name: str) -> None:
    actual = outputs(case)[name]
    golden = GOLDEN / case / "output" / name
    changed = golden.with_name(f"{name}.changed")
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_bytes(actual)
    if not golden.is_file() or golden.read_bytes() != actual:
        changed.write_bytes(actual)
        pytest.fail(f"{case}/{name} differs from its golden file; see {changed} (module docstring)")
    changed.unlink(missing_ok=True)
