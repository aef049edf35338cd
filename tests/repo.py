"""The repository under test, found once: every test takes its paths from this Layout, and
its sims (as the pipeline executes them, from the bytes read) from `sims_code`."""

from __future__ import annotations

import functools

from ridgepoint.base.layout import repository
from ridgepoint.sims import simcode
from ridgepoint.sims.simsource import SimSource

LAYOUT = repository()
REPO = LAYOUT.root


@functools.cache
def sims_code() -> simcode.SimCode:
    """The repository's sims, executed once per test session as a build executes them."""
    return simcode.load(SimSource.read(LAYOUT.sims))
