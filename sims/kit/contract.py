"""The sim contract: how a sim declares its inputs, and the one validation they all share.

A sim module declares its inputs once, as a tuple of `Number`, `Choice` and `Text`, and
wraps its model in `simulation(INPUTS)`. The wrapper fills defaults, coerces strings (from
the CLI or a page URL), checks ranges, and normalises the result so that CPython and Pyodide print
byte-identical JSON. The browser builds its controls from `describe(INPUTS)`, so the
declaration here is the only place an input's range lives.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sims.kit.phased import Phased
from sims.kit.rounding import normalise

__all__ = ["Choice", "Input", "InputError", "Number", "Text", "defaults", "describe",
           "normalise", "simulation", "validate"]

class InputError(ValueError):
    """A bad input: the message names the input and what it allows.

    A plain ValueError to every caller; `input` lets the page put the message next to the
    control it is about rather than at the top of the widget.
    """

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.input = name


def _format(value: float) -> str:
    """A number as a reader would write it: 8, not 8.0; 0.5, not 0.50000."""
    return f"{value:g}" if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class Number:
    """A numeric input: an integer when default and step are integers, else a float."""

    name: str
    label: str
    default: int | float
    min: int | float
    max: int | float
    step: int | float = 1
    unit: str = ""
    help: str = ""

    def __post_init__(self) -> None:
        if not self.min <= self.default <= self.max:
            raise ValueError(
                f"{self.name}: default {self.default} outside [{self.min}, {self.max}]"
            )

    @functools.cached_property  # read on every parse; the declaration is frozen
    def integer(self) -> bool:
        return all(isinstance(v, int) for v in (self.default, self.step))

    def allowed(self) -> str:
        kind = "an integer" if self.integer else "a number"
        unit = f" {self.unit}" if self.unit else ""
        return f"{kind} from {_format(self.min)} to {_format(self.max)}{unit}"

    def parse(self, value: Any) -> int | float:
        """Return the value as this input's type, or raise ValueError naming input and range."""
        number: int | float
        if isinstance(value, bool):
            raise InputError(self.name, f"expected {self.allowed()}, got {value!r}")
        if isinstance(value, str):
            try:
                number = float(value.strip())
            except ValueError:
                raise InputError(self.name, f"expected {self.allowed()}, got {value!r}") from None
        elif isinstance(value, int | float):
            number = value
        else:
            raise InputError(self.name, f"expected {self.allowed()}, got {value!r}")
        if not math.isfinite(number):
            raise InputError(self.name, f"expected {self.allowed()}, got {value!r}")
        if self.integer:
            if number != int(number):
                raise InputError(self.name, f"expected {self.allowed()}, got {value!r}")
            number = int(number)
        else:
            number = float(number)
        if not self.min <= number <= self.max:
            raise InputError(self.name, f"expected {self.allowed()}, got {_format(number)}")
        return number

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "number",
            "name": self.name,
            "label": self.label,
            "default": self.default,
            "min": self.min,
            "max": self.max,
            "step": self.step,
            "unit": self.unit,
            "help": self.help,
            "integer": self.integer,
        }


@dataclass(frozen=True)
class Choice:
    """An input picked from a fixed list of string keys (a GPU, a model, a preset)."""

    name: str
    label: str
    default: str
    choices: tuple[str, ...]
    help: str = ""

    def __post_init__(self) -> None:
        if self.default not in self.choices:
            raise ValueError(f"{self.name}: default {self.default!r} not among {self.choices}")

    def allowed(self) -> str:
        return "one of " + ", ".join(self.choices)

    def parse(self, value: Any) -> str:
        if isinstance(value, str) and value.strip() in self.choices:
            return value.strip()
        raise InputError(self.name, f"expected {self.allowed()}, got {value!r}")

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "choice",
            "name": self.name,
            "label": self.label,
            "default": self.default,
            "choices": list(self.choices),
            "help": self.help,
        }


@dataclass(frozen=True)
class Text:
    """A short string: typed, or filled from a file the reader picks (`file`).

    It travels in the page's URL like every input, so it stays small (hundreds of
    characters, `max_length`): a sim that fills it from a file keeps the file's gist, not
    the file. `file` is the file types the page's picker offers (".json"); a sim declaring
    one defines `read_file(name, text) -> str`, which turns the file's text into this
    input's value or raises ValueError saying what is wrong and what to give. What the text
    means is the sim's to check (an InputError naming this input); here only its type and
    length. A pasted file (a model's config.json, sims.physics.model_choice) is a Text of
    several `lines`, shown only while a choice has one value (`shown_when`), whose `reader`
    the page calls on a paste to check it, make it compact for the URL and say what it read.
    """

    name: str
    label: str
    default: str = ""
    max_length: int = 200
    help: str = ""
    file: str = ""
    lines: int = 1  # more than one: a text area (a pasted file), not a one-line field
    shown_when: str = ""  # "<choice>=<value>": the control shows only while that is chosen
    # What the page calls when the reader pastes (runner.read, in the worker): the text to
    # (this input's value, a line saying what was understood), or ValueError naming the input.
    reader: Callable[[str], tuple[str, str]] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if len(self.default) > self.max_length:
            raise ValueError(f"{self.name}: default longer than {self.max_length} characters")

    def allowed(self) -> str:
        return f"text of at most {self.max_length} characters"

    def parse(self, value: Any) -> str:
        if not isinstance(value, str):
            raise InputError(self.name, f"expected {self.allowed()}, got {value!r}")
        text = value.strip()
        if len(text) > self.max_length:
            # Not the text itself: a whole file pasted in would bury the message.
            raise InputError(self.name, f"expected {self.allowed()}, got {len(text):,} characters")
        return text

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "text",
            "name": self.name,
            "label": self.label,
            "default": self.default,
            "max_length": self.max_length,
            "help": self.help,
            "file": self.file,
            "lines": self.lines,
            "shown_when": self.shown_when,
            "reads": self.reader is not None,
        }


Input = Number | Choice | Text


def defaults(inputs: tuple[Input, ...]) -> dict[str, Any]:
    return {spec.name: spec.default for spec in inputs}


def validate(inputs: tuple[Input, ...], given: Mapping[str, Any]) -> dict[str, Any]:
    """Fill defaults and parse every given value; unknown names are an error too."""
    by_name = {spec.name: spec for spec in inputs}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise InputError(unknown[0], f"not an input of this sim (inputs: {', '.join(by_name)})")
    values = defaults(inputs)
    for name, value in given.items():
        values[name] = by_name[name].parse(value)
    return values


def describe(inputs: tuple[Input, ...]) -> list[dict[str, Any]]:
    """The inputs as plain data, for the page to build controls from."""
    return [spec.describe() for spec in inputs]


def _check_shape(result: Mapping[str, Any]) -> None:
    summary = result.get("summary")
    if not isinstance(summary, Mapping) or not summary:
        raise TypeError("a sim result needs a non-empty 'summary' mapping")
    for key, value in summary.items():
        if not isinstance(value, bool | int | float | str):
            raise TypeError(f"summary.{key} must be a number, string or bool, not {value!r}")
    if not isinstance(result.get("charts"), list):
        raise TypeError("a sim result needs a 'charts' list of Vega-Lite specs")


@dataclass(frozen=True)
class Begun:
    """A run begun: its `first` result (whole, unless `finish` is set), the summary figures
    it leaves `pending`, and `finish`, which gives the whole result (sims.kit.phased)."""

    first: dict[str, Any]
    pending: list[str]
    finish: Callable[[], dict[str, Any]] | None


def _finished(result: dict[str, Any] | Phased) -> dict[str, Any]:
    whole = result.complete() if isinstance(result, Phased) else result
    _check_shape(whole)
    return normalise(whole)


def simulation(
    inputs: tuple[Input, ...],
) -> Callable[[Callable[..., dict[str, Any] | Phased]], Callable[..., dict[str, Any]]]:
    """Wrap a sim's model so that `simulate(**inputs)` validates, fills defaults, normalises;
    `simulate.begin(**inputs)` does the same for the page, which shows a Phased result's
    first part before its rest (sims.kit.phased)."""

    def wrap(model: Callable[..., dict[str, Any] | Phased]) -> Callable[..., dict[str, Any]]:
        @functools.wraps(model)
        def simulate(**given: Any) -> dict[str, Any]:
            return _finished(model(**validate(inputs, given)))

        def begin(**given: Any) -> Begun:
            """The page's run (runner.start): a Phased result's first part now, and how to
            finish it; any other result whole, with nothing to finish."""
            result = model(**validate(inputs, given))
            if not isinstance(result, Phased):
                return Begun(_finished(result), [], None)
            return Begun(normalise(result.first()), result.pending(),
                         lambda: _finished(result))

        simulate.inputs = inputs  # type: ignore[attr-defined]
        simulate.begin = begin  # type: ignore[attr-defined]
        return simulate

    return wrap
