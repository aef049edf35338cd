"""Find figures the site's physics computes that a page types by hand instead of pulling in.

A time, a size in bytes, a rate or a speedup in an article or explainer must come from a
`{{ sim:... }}` or `{{ data:... }}` placeholder, so that it follows the sims when they
change. The exceptions are written as such in the source: `{{ cited: ... }}` for a figure
quoted from the outside source the sentence names, `{{ input: ... }}` for an input or a
stated assumption (see scripts/ridgepoint/prose/figures.py). Everything else with one of those
units, written in digits, is reported.

A `{{ claim: ... }}` (ridgepoint.prose.claims) is read as the words it shows: the figures it
compares are references, but the words after its `|` are prose like any other.

Not prose, and not looked at: the front matter, fenced code (sim blocks, worked formulas),
inline code, link targets, HTML comments, and an explainer's "Check it yourself" section,
whose worked arithmetic is typed by hand on purpose and compared with the shared physics
by the sims' own tests (tests/sims/test_<sim>.py). Small constants written in words ("two
bytes per weight") are not looked at either; digits are what the check reads.
"""

from __future__ import annotations

import re

from ridgepoint.prose.claims import words
from ridgepoint.prose.figures import FENCE, PLACEHOLDER

DIGITS = r"\d[\d,]*(?:\.\d+)?"
NUMBER = rf"(?<![\w.,\-]){DIGITS}(?:-{DIGITS})?"  # a figure, or a range such as 2.3-2.8
# Units of what the physics computes: times, sizes in bytes, rates, FLOP counts. A bare "B"
# is left out on purpose ("70B" names a model, not a size), and a bare "s" needs a space
# before it ("the 1990s" is not a time).
UNIT = (
    r"(?:\s?(?:ms|µs|μs|us|ns|seconds?|milliseconds?|microseconds?"
    r"|bytes?|[KMGTP]i?B|[KMGTP]?FLOP/s|[KMGTP]?FLOPs?|[KMGT]B/s"
    r"|tokens? per second|tokens?/s|tok/s)|\s(?:s|sec))"
)
COMPUTED_FIGURE = re.compile(rf"{NUMBER}(?:{UNIT}(?![\w/])|[x×](?![\w\d]))")

_CODE_SPAN = re.compile(r"(`+).*?\1")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_COMMENT = re.compile(r"<!--.*?-->")
_SECTION = re.compile(r"^##\s+(.*?)\s*#*\s*$")
WORKED_SECTION = "check it yourself"


def _shown(placeholder: re.Match[str]) -> str:
    """What is read of a placeholder: a claim's words, nothing of any other."""
    return f" {words(placeholder.group(2))} " if placeholder.group(1) == "claim" else " "


def _prose(line: str) -> str:
    """The line with everything that is not read as prose blanked out. Placeholders are
    found as staging finds them, so a misspelt kind ({{ cite: ... }}) is not excused."""
    line = PLACEHOLDER.sub(_shown, line)
    for pattern in (_CODE_SPAN, _LINK_TARGET, _COMMENT):
        line = pattern.sub(" ", line)
    return line


def hand_typed_figures(markdown: str) -> list[tuple[int, str]]:
    """(line number, figure) for every computed figure typed by hand, in order."""
    lines = markdown.splitlines()
    found: list[tuple[int, str]] = []
    start = 0
    if lines and lines[0].strip() == "---":
        closing = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        start = 0 if closing is None else closing + 1
    fence: str | None = None
    worked = False
    for number, line in enumerate(lines[start:], start=start + 1):
        if match := FENCE.match(line):
            fence = None if fence == match.group(1) else (fence or match.group(1))
            continue
        if fence:
            continue
        if heading := _SECTION.match(line):
            worked = heading.group(1).strip().lower() == WORKED_SECTION
        if worked:
            continue
        found.extend((number, figure.group(0)) for figure in COMPUTED_FIGURE.finditer(_prose(line)))
    return found
