"""Tests that run once per builder (ridgepoint.adapters): a test module sets
`EVERY_BUILDER = True`, and each of its tests using the named built-site fixture runs as
`test_x[mkdocs]` and `test_x[zensical]`. Each conftest builds each builder's site at most
once per session, when a test first needs it."""

from __future__ import annotations

import pytest

from ridgepoint import adapters


def parametrize_builders(metafunc: pytest.Metafunc, fixture: str) -> None:
    """For pytest_generate_tests: `fixture` (a session fixture reading request.param) once
    per builder, in the modules that ask for it."""
    if getattr(metafunc.module, "EVERY_BUILDER", False) and fixture in metafunc.fixturenames:
        metafunc.parametrize(fixture, adapters.names(), indirect=True, scope="session")


def builder_of(request: pytest.FixtureRequest) -> str:
    """The builder a built-site fixture is parametrised with; the default when it is not."""
    return str(getattr(request, "param", adapters.DEFAULT))
