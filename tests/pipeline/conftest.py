"""Shared fixtures for the pipeline tests: the sample site, loaded and built, and the real site.

The sample site is the golden `site` case's input (golden/site/input, see test_golden.py):
the same files give the golden pages, the loaded Site of the generator and model tests, and
the build tests' site. Builds are slow next to unit tests (MkDocs, sim prerendering), so
each tree is built once per session into temporary folders; the repository's own site/ and
build/ are never touched.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ridgepoint.load import load_site
from ridgepoint.model import Site
from tests.repo import LAYOUT

GOLDEN = Path(__file__).parent / "golden"
SAMPLE = GOLDEN / "site" / "input"
SITE_URL = "https://ridgepoint.test/"  # the sample site's address in generated feeds


@pytest.fixture(scope="session")
def sample_site() -> Site:
    return load_site(SAMPLE)


def sample_tree(destination: Path) -> Path:
    """A copy of the sample site with the repository's stylesheets and sim glue, which are
    machinery rather than content (the built pages link to them)."""
    shutil.copytree(SAMPLE, destination)
    shutil.copytree(LAYOUT.content / "assets", destination / "content" / "assets")
    return destination


@pytest.fixture(scope="session")
def built_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample site, built once: returns its site/ folder."""
    from ridgepoint.builder import build  # here, so unit tests do not need the build chain

    base = tmp_path_factory.mktemp("sample-build")
    root = sample_tree(base / "root")
    site = base / "site"
    status = build(LAYOUT.with_content(root), site, config_file=LAYOUT.mkdocs_yml,
                   stage_dir=base / "stage" / "docs")
    assert status == 0, "the sample site failed to build (see the captured output)"
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
