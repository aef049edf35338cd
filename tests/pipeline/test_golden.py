"""Generated pages and feeds against golden files (tests/pipeline/golden/<case>).

A mismatch writes `<case>.changed` beside the golden file and fails. To accept a change,
review the diff (`diff golden/<case> golden/<case>.changed`) and move the .changed file over
the golden one, or run `UPDATE_GOLDEN=1 make test` to rewrite every golden file.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ridgepoint.feeds import generate_feeds
from ridgepoint.model import Site
from ridgepoint.pages import generate_pages
from tests.pipeline.sample_site import SITE_URL, make_sample_site

GOLDEN = Path(__file__).parent / "golden"


def case_name(staged_path: str) -> str:
    """feed/tags/latency/index.md -> feed.tags.latency.md; feed.xml stays feed.xml."""
    if staged_path.endswith("/index.md"):
        staged_path = staged_path.removesuffix("/index.md") + ".md"
    return staged_path.replace("/", ".")


def outputs(site: Site) -> dict[str, bytes]:
    pages = {case_name(p): text.encode() for p, text in generate_pages(site).items()}
    feeds = generate_feeds(site, SITE_URL, "Ridgepoint", "A test feed.")
    return pages | {case_name(p): data for p, data in feeds.items()}


def test_every_golden_file_is_produced(sample_site: Site) -> None:
    """A page that stops being generated must not leave its golden file behind unnoticed."""
    golden = {p.name for p in GOLDEN.iterdir() if not p.name.endswith(".changed")}
    assert golden == set(outputs(sample_site))


@pytest.mark.parametrize("case", sorted(outputs(make_sample_site())))
def test_output_matches_golden(sample_site: Site, case: str) -> None:
    actual = outputs(sample_site)[case]
    golden = GOLDEN / case
    changed = GOLDEN / f"{case}.changed"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_bytes(actual)
    if not golden.is_file() or golden.read_bytes() != actual:
        changed.write_bytes(actual)
        pytest.fail(f"{case} differs from its golden file; see {changed} (module docstring)")
    changed.unlink(missing_ok=True)
