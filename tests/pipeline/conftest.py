"""Shared fixtures for the pipeline tests: a small in-memory Site, and built fixture sites.

Builds are slow next to unit tests (MkDocs, sim prerendering), so each tree is built once
per session into temporary folders; the repository's own site/ and build/ are never
touched.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ridgepoint.model import Site
from tests.pipeline.sample_site import make_sample_site
from tests.repo import LAYOUT

FIXTURE_SITE = Path(__file__).parent / "fixtures" / "site"


@pytest.fixture(scope="session")
def sample_site() -> Site:
    return make_sample_site()


def fixture_tree(destination: Path) -> Path:
    """A copy of the fixture site with the repository's stylesheets and sim glue, which are
    machinery rather than content (the built pages link to them)."""
    shutil.copytree(FIXTURE_SITE, destination)
    shutil.copytree(LAYOUT.content / "assets", destination / "content" / "assets")
    return destination


@pytest.fixture(scope="session")
def built_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture site, built once: returns its site/ folder."""
    from ridgepoint.builder import build  # here, so unit tests do not need the build chain

    base = tmp_path_factory.mktemp("fixture-build")
    root = fixture_tree(base / "root")
    site = base / "site"
    status = build(LAYOUT.with_content(root), site, config_file=LAYOUT.mkdocs_yml,
                   stage_dir=base / "stage" / "docs")
    assert status == 0, "the fixture site failed to build (see the captured output)"
    return site


@pytest.fixture(scope="session")
def built_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once into temporary folders: returns its site/ folder."""
    from ridgepoint.builder import build

    base = tmp_path_factory.mktemp("repo-build")
    site = base / "site"
    status = build(LAYOUT, site, stage_dir=base / "stage" / "docs")
    assert status == 0, "the real site failed to build (see the captured output)"
    return site
