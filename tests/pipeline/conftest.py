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

from ridgepoint.content.load import load_site
from ridgepoint.content.model import Site
from tests.builders import builder_of, parametrize_builders
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


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Modules with EVERY_BUILDER = True check the sample site as each builder builds it."""
    parametrize_builders(metafunc, "built_sample")


@pytest.fixture(scope="session")
def sample_builds() -> dict[str, Path]:
    return {}  # builder -> its build of the sample site, made when first needed


@pytest.fixture(scope="session")
def built_sample(request: pytest.FixtureRequest, sample_builds: dict[str, Path],
                 tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample site, built once per builder (the default, or the one a test is
    parametrised with): returns its site/ folder."""
    return sample_build(builder_of(request), sample_builds, tmp_path_factory)


def sample_build(builder: str, builds: dict[str, Path],
                 tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample site as `builder` builds it, from `builds` or built into it now."""
    from ridgepoint.build.builder import build  # here, so unit tests do not need the build chain

    if builder not in builds:
        base = tmp_path_factory.mktemp(f"sample-build-{builder}")
        root = sample_tree(base / "root")
        site = base / "site"
        status = build(LAYOUT.with_content(root), site, config_file=LAYOUT.mkdocs_yml,
                       stage_dir=base / "stage" / "docs", builder=builder)
        assert status == 0, f"the sample site failed to build with {builder} (see the output)"
        builds[builder] = site
    return builds[builder]


@pytest.fixture(scope="session")
def built_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once into temporary folders: returns its site/ folder."""
    from ridgepoint.build.builder import build

    base = tmp_path_factory.mktemp("repo-build")
    site = base / "site"
    status = build(LAYOUT, site, stage_dir=base / "stage" / "docs")
    assert status == 0, "the real site failed to build (see the captured output)"
    return site
