"""Claims the build checks: the words around computed figures, held to those figures.

A sentence such as "the wait grows about eightfold" compares two numbers a sim computes.
It was true when written and goes stale when the physics moves, with nothing to notice. A
claim puts the words and the comparison they make in one placeholder; staging evaluates
the comparison with the same figures `{{ sim:... }}` placeholders print (ridgepoint.prose.figures)
and writes the words in its place, or fails the page when the comparison is false:

    the slowest wait {{ claim: sim:goodput.p99_ttft_s request_rate=20
        / sim:goodput.p99_ttft_s request_rate=2 in 7..10 | grows about eightfold }}
    (written on one line)  ->  the slowest wait grows about eightfold

A claim is `<left> <comparison> <right> | <words>`, tokens separated by spaces:

    left        a term, or `<term> / <term>` (a ratio) or `<term> - <term>` (a difference)
    comparison  `>`, `<`, `>=`, `<=` against a right side written as the left is, or
                `in LO..HI` (both ends included)
    term        a figure (`sim:<module>.<metric> [input=value ...] [x<factor>]` or
                `data:<experiment>.<key>... [x<factor>]`, as a figure placeholder writes it,
                without a format) or a plain number (`2`, `0.5`, `1e-3`)

The words after `|` are prose, shown as written (and read by the hand-typed-number check);
a claim without `|` shows nothing. A false claim's error states its words and every value
it compared, so the editor sees at once whether the words or the physics moved.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ridgepoint.base.errors import ContentError

FORMS = (
    "{{ claim: <term> [/ or - <term>] (> or < or >= or <=) <term> [/ or - <term>] | <words> }} or"
    " {{ claim: <term> [/ or - <term>] in LO..HI | <words> }}, a term being"
    " sim:<module>.<metric> [input=value ...] [x<factor>], data:<experiment>.<key>... or a number"
)
FIGURE_KINDS = ("sim:", "data:")
ARITHMETIC = ("/", "-")
COMPARISONS = (">", "<", ">=", "<=")
OPERATORS = (*ARITHMETIC, *COMPARISONS, "in")
NUMBER = re.compile(r"^-?\d+(?:\.\d+)?(?:e-?\d+)?$")
RANGE = re.compile(r"^(-?\d+(?:\.\d+)?(?:e-?\d+)?)\.\.(-?\d+(?:\.\d+)?(?:e-?\d+)?)$")

FigureValue = Callable[[str, list[str]], Any]
"""A figure's value from its kind ("sim" or "data") and its words (target, then options):
ridgepoint.prose.figures.figure_value over one FigureSource."""


class FalseClaim(ValueError):
    """A well-formed claim whose comparison does not hold for today's figures."""


@dataclass(frozen=True)
class Term:
    """A figure (`kind` "sim" or "data", its words) or a plain number (`kind` "")."""

    text: str
    kind: str
    words: tuple[str, ...] = ()

    def value(self, figure_value: FigureValue) -> float:
        if not self.kind:
            return float(self.text)
        value = figure_value(self.kind, list(self.words))
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{self.text} is {value!r}, not a number")
        return float(value)

    def shown(self, value: float) -> str:
        return self.text if not self.kind else f"{self.text} = {_number(value)}"


@dataclass(frozen=True)
class Side:
    """A term, or two terms and the `/` or `-` between them."""

    first: Term
    arithmetic: str | None = None
    second: Term | None = None

    def value(self, figure_value: FigureValue) -> tuple[float, str]:
        """The side's value, and the values it came from as an error shows them."""
        value = self.first.value(figure_value)
        shown = self.first.shown(value)
        if self.second is None:
            return value, shown
        second = self.second.value(figure_value)
        if self.arithmetic == "/" and second == 0:
            raise ValueError(f"{self.second.shown(second)}: cannot divide by zero")
        result = value / second if self.arithmetic == "/" else value - second
        return result, f"{shown} {self.arithmetic} {self.second.shown(second)} = {_number(result)}"


@dataclass(frozen=True)
class Claim:
    """One parsed claim: `left comparison bound`, the bound a side or a range."""

    left: Side
    comparison: str
    bound: Side | tuple[float, float]


def words(body: str) -> str:
    """What a claim shows: the text after its first `|`, or nothing."""
    return body.partition("|")[2].strip()


def parse(body: str) -> Claim:
    """A claim's body (the text after `claim:`), parsed; ValueError saying what is wrong."""
    tokens = body.partition("|")[0].split()
    if not tokens:
        raise ValueError("an empty claim")
    position = 0

    def term() -> Term:
        nonlocal position
        if position >= len(tokens):
            raise ValueError("ends where a figure or a number belongs")
        token = tokens[position]
        position += 1
        if token.startswith(FIGURE_KINDS):
            kind, _, target = token.partition(":")
            options = []
            while position < len(tokens) and _option(tokens[position]):
                options.append(tokens[position])
                position += 1
            return Term(" ".join([token, *options]), kind, (target, *options))
        if NUMBER.match(token):
            return Term(token, "")
        raise ValueError(f"cannot read {token!r} where a figure or a number belongs")

    def side() -> Side:
        nonlocal position
        first = term()
        if position < len(tokens) and tokens[position] in ARITHMETIC:
            position += 1
            return Side(first, tokens[position - 1], term())
        return Side(first)

    left = side()
    if position >= len(tokens):
        raise ValueError("states no comparison")
    comparison = tokens[position]
    position += 1
    if comparison not in (*COMPARISONS, "in"):
        raise ValueError(f"cannot read {comparison!r} where a comparison belongs")
    bound: Side | tuple[float, float]
    if comparison == "in":
        if position >= len(tokens) or not (match := RANGE.match(tokens[position])):
            found = tokens[position] if position < len(tokens) else "nothing"
            raise ValueError(f"'in' needs a range LO..HI, not {found!r}")
        low, high = float(match.group(1)), float(match.group(2))
        if low > high:
            raise ValueError(f"the range {tokens[position]} is empty")
        bound = (low, high)
        position += 1
    else:
        bound = side()
    if position < len(tokens):
        raise ValueError(f"cannot read {' '.join(tokens[position:])!r} after the comparison")
    return Claim(left, comparison, bound)


def check(body: str, figure_value: FigureValue) -> str:
    """The words a claim shows, once its comparison holds; FalseClaim with the values when
    it does not, ValueError/KeyError/LookupError when it cannot be read or evaluated."""
    claim = parse(body)
    left, shown = claim.left.value(figure_value)
    if isinstance(claim.bound, tuple):
        low, high = claim.bound
        holds = low <= left <= high
        expected = f"within {_number(low)}..{_number(high)}"
    else:
        right, right_shown = claim.bound.value(figure_value)
        holds = {">": left > right, "<": left < right,
                 ">=": left >= right, "<=": left <= right}[claim.comparison]
        expected = f"{claim.comparison} {right_shown}"
    if not holds:
        said = words(body) or body.partition("|")[0].strip()
        raise FalseClaim(f'claim "{said}" is false: {shown}, expected {expected}')
    return words(body)


def error(path: str, line: int, placeholder: str, problem: Exception) -> ContentError:
    """The content error for a claim that is false (its values) or cannot be evaluated."""
    message = problem.args[0] if problem.args else str(problem)
    if isinstance(problem, FalseClaim):
        return ContentError(path, line, "claim", message)
    return ContentError(path, line, "claim", f"{placeholder}: {message}", FORMS)


def _option(token: str) -> bool:
    """Whether a token after a figure belongs to it (an input, a factor, or a misspelling of
    one for figures.py to name) rather than starting the comparison."""
    return (token not in OPERATORS and not token.startswith(FIGURE_KINDS)
            and any(character.isalnum() for character in token))


def _number(value: float) -> str:
    """A value to four significant digits, with no exponent and no trailing zeros."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value)}"
    decimals = max(0, 3 - math.floor(math.log10(abs(value))))
    return f"{value:.{decimals}f}".rstrip("0").rstrip(".")
