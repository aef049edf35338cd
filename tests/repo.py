"""The repository under test, found once: every test takes its paths from this Layout."""

from __future__ import annotations

from ridgepoint.layout import repository

LAYOUT = repository()
REPO = LAYOUT.root
