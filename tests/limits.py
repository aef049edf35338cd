"""A guard against hangs for property tests: a block that runs far past any reasonable time
fails with a message instead of stalling the whole suite.

The bound is about hangs (an endless loop, an alias bomb being expanded), not speed: it is
set orders of magnitude above the expected time, so a slow shared machine never trips it.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class Hang(BaseException):
    """Raised in the guarded block when its time is up. A BaseException, so that no
    `except Exception` in the code under test can swallow it."""


@contextmanager
def within(seconds: float, what: str) -> Iterator[None]:
    """Run the block; raise Hang if it is still running after `seconds` (main thread only)."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"{what} did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
