"""Did-you-mean: the one way every content error proposes what the editor probably meant.

A name written in the wrong case or with spaces ('Latency', 'KV cache', 'Time To First
Token') is the same name to a reader, however far apart it is character by character:
difflib rates 'KV' against 'kv' at 0. So a name is first compared in its plain form
(lowercase, every run of other characters one hyphen, as a slug is written); only when
that finds nothing does difflib look for a near spelling. Callers pass only well-formed
names as candidates, so a suggestion is always a name that would be accepted.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

_SEPARATORS = re.compile(r"[^a-z0-9]+")
CUTOFF = 0.8  # difflib's similarity ratio: one wrong letter in a word of five passes


def plain(name: str) -> str:
    """'Time To_First  Token' -> 'time-to-first-token'."""
    return _SEPARATORS.sub("-", name.casefold()).strip("-")


def closest(name: str, known: Iterable[str]) -> str | None:
    """The known name `name` most probably means, or None."""
    candidates = sorted(set(known) - {name})
    by_plain = {plain(candidate): candidate for candidate in candidates}
    if (same := by_plain.get(plain(name))) is not None:
        return same
    close = difflib.get_close_matches(plain(name), list(by_plain), n=1, cutoff=CUTOFF)
    return by_plain[close[0]] if close else None


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """"; did you mean 'x'?" for the closest known name, or "" when none is close."""
    found = closest(name, known)
    return f"; did you mean {found!r}?" if found is not None else ""
