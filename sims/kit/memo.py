"""Runs a sim keeps between a reader's changes, and the one call that forgets them all.

A load sim serves hundreds of requests per run, several runs per result; a reader's change
often leaves most of those runs' inputs alone (the SLO, which run is shown), and a reader
often moves an input back. `kept` remembers a pure function's last results by its
arguments (`functools.lru_cache`), so such a change reruns only what it changed.

`forget` empties every kept function (and the rounded floats sims.kit.rounding keeps
across results): the native bench calls it before each timed run, so
that it times the work a run does rather than a lookup, and tests call it to compare a
result made from kept runs with a fresh process's. The physics' own caches (the step table's
priced points, the serving engine's step clocks, a shape's matrices) are not kept here: they
are warm on a page after its first run, and the bench counts them so.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

from sims.kit import rounding

Function = TypeVar("Function", bound=Callable[..., Any])

_KEPT: list[Any] = []


def kept(maxsize: int) -> Callable[[Function], Function]:
    """Remember the `maxsize` latest results of a pure function of hashable arguments. Its
    results are shared by every caller that asks again: they must only be read."""

    def wrap(function: Function) -> Function:
        cached = lru_cache(maxsize=maxsize)(function)
        _KEPT.append(cached)
        return cached  # type: ignore[return-value]

    return wrap


def forget() -> None:
    """Empty every kept function's results, and the floats sims.kit.rounding keeps."""
    for cached in _KEPT:
        cached.cache_clear()
    rounding.forget()
