"""How far a long run has got, for a page that shows it while the reader waits.

A sim that runs for a noticeable time (the planner's search: estimates, then runs of `serve`)
calls `report` between its steps. Natively nobody listens and a report costs one check; the
browser's worker (content/assets/sim/worker.js) listens and posts each report to the page,
which shows it as the status line and a progress bar until the result arrives.
"""

from __future__ import annotations

from collections.abc import Callable

Listener = Callable[[int, int, str], None]

_listeners: list[Listener] = []  # at most one: the worker's


def listen(listener: Listener | None) -> None:
    """Send every later report to `listener` (None: to nobody)."""
    _listeners[:] = [listener] if listener is not None else []


def report(done: int, total: int, text: str) -> None:
    """`done` of `total` steps are done; `text` says what is under way."""
    for listener in _listeners:
        listener(done, total, text)
