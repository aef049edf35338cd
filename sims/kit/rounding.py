"""A sim's result as plain JSON that CPython and Pyodide print byte for byte alike.

Every result goes through `normalise` (sims.kit.contract's `simulation` calls it): floats
rounded, tuples made lists, NaN and infinities refused with where they are. Apart from the
contract because it is a job of its own, and the hot one: it runs on every result a
reader's change produces.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

# Results are rounded to this many significant digits. Enough for every figure a page
# shows, and it absorbs last-bit differences between the C maths libraries of CPython and
# Pyodide, so the same inputs give the same JSON in both.
SIGNIFICANT_DIGITS = 6
# ...and to this many decimal places. A quantity that is zero in exact arithmetic but
# computed as a difference of nearly equal numbers comes out as noise around 1e-16, and
# noise differs between runtimes in every digit: significant-digit rounding cannot make it
# agree, absolute rounding can. No figure on the site is smaller than this.
DECIMAL_PLACES = 12


def normalise(value: Any, where: str = "result") -> Any:
    """Make a result plain JSON: round floats, turn tuples into lists, refuse NaN and inf.

    Rounding to SIGNIFICANT_DIGITS (and DECIMAL_PLACES) is what makes CPython and Pyodide
    agree to the byte. This runs on every result a reader's change produces, so the common
    case (plain dicts, lists, floats) takes a fast path that builds no error text; only a
    value that must be refused is walked again, to name where it is.
    """
    if len(_KEPT) > KEPT_FLOATS:
        _KEPT.clear()
    try:
        return _fast(value, _KEPT)
    except (ArithmeticError, TypeError):
        return _checked(value, where)  # raises, naming the place


# The floats rounded lately, whatever result they were in: a reader's change often brings
# back figures of the run before (a load sim's kept runs, under a new SLO or a move back),
# and rounding one is a few microseconds in a browser. Emptied past this many.
KEPT_FLOATS = 20_000
_KEPT: dict[float, float] = {}


def forget() -> None:
    """Empty the floats kept (sims.kit.memo.forget calls this: the native bench times
    rounding, not a lookup)."""
    _KEPT.clear()


# printf-style: the quickest way to the same digits as format(value, ".6g").
_SIGNIFICANT = f"%.{SIGNIFICANT_DIGITS}g"


def _round(value: float) -> float:
    value = round(value, DECIMAL_PLACES)
    if value == 0.0:
        return 0.0  # also turns -0.0 into 0.0
    return float(_SIGNIFICANT % value)


_PLAIN = frozenset((str, int, bool, type(None)))  # kept as they are


def _rounded(value: float, rounded: dict[float, float]) -> float:
    """A float rounded, remembered in `rounded` (_KEPT): rounding costs a few microseconds
    in a browser, and a timeline repeats most of its times (one span ends where the next
    starts)."""
    done = rounded.get(value)
    if done is None:
        if not math.isfinite(value):
            raise ArithmeticError
        done = rounded[value] = _round(value)
    return done


def _fast(value: Any, rounded: dict[float, float]) -> Any:
    """normalise's walk, with the floats already rounded in `rounded`."""
    kind = type(value)
    if kind is dict:
        # Charts' rows are dicts of plain values and floats: those are handled here,
        # without a call per value (the bulk of a large result).
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                key = str(key)
            kind = type(item)
            if kind is float:
                done = rounded.get(item)
                out[key] = _rounded(item, rounded) if done is None else done
            elif kind in _PLAIN:
                out[key] = item
            else:
                out[key] = _fast(item, rounded)
        return out
    if kind is list or kind is tuple:
        return [item if type(item) in _PLAIN else _fast(item, rounded) for item in value]
    if kind is float:
        return _rounded(value, rounded)
    if kind in _PLAIN:
        return value
    return _checked(value, "result")  # subclasses and anything else: the general rules


def _checked(value: Any, where: str) -> Any:
    """normalise, the general way: every type rule, and errors that say where."""
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ArithmeticError(f"{where} is {value}: a sim must return finite numbers")
        return _round(value)
    if isinstance(value, Mapping):
        return {str(key): _checked(item, f"{where}.{key}") for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_checked(item, f"{where}[{index}]") for index, item in enumerate(value)]
    raise TypeError(f"{where} is a {type(value).__name__}, which is not JSON")
