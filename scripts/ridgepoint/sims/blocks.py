"""Finding, parsing and validating the ```sim blocks of a page.

A block names a sim and, optionally, which inputs get controls and where they start:

    ```sim
    module: batching
    show: [batch_size, max_output_tokens]   # optional: inputs that get controls (default all)
    first: [batch_size]                     # optional: the controls shown first; the others
                                            #   wait under "More inputs" (default: all first)
    start: {batch_size: 8}                  # optional: starting values (default: declared)
    ```

A bad block (unknown module, unknown input or one `first` names without a control, a start
value out of range, broken YAML, a fence that is indented or never closed) raises
ContentErrors pointing at the file and line, like any other content problem. The YAML is
read by the content loader's parser, so it is bounded against alias bombs and reports
duplicate keys.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ridgepoint.base.errors import ContentError, ContentErrors
from ridgepoint.base.suggest import did_you_mean
from ridgepoint.content.yamldoc import Document, field_name, parse
from ridgepoint.sims.simrun import SimRuns

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
_BLOCK_KEYS = ("module", "show", "first", "start")


@dataclass(frozen=True)
class SimBlock:
    """A parsed, validated ```sim block."""

    module: str
    show: tuple[str, ...]
    start: dict[str, Any]  # every input's starting value, validated
    # The controls the page talks about, shown first (in `show`'s order); the others are
    # under "More inputs". Empty: every control is shown first.
    first: tuple[str, ...] = ()


@dataclass(frozen=True)
class Fenced:
    """A top-level ```sim block's place in the page (0-based line indexes)."""

    first: int  # the opening fence
    end: int  # one past the closing fence (or past the last line when unclosed)
    indent: str
    body: str
    closed: bool


def iter_blocks(markdown: str) -> Iterator[Fenced]:
    """Every ```sim block outside other fenced blocks (a page may show one as an example)."""
    lines = markdown.splitlines(keepends=True)
    index = 0
    while index < len(lines):
        match = _FENCE.match(lines[index].rstrip("\r\n"))
        if not match:
            index += 1
            continue
        fence = match["fence"]
        closing = index + 1
        while closing < len(lines):
            end = _FENCE.match(lines[closing].rstrip("\r\n"))
            if (end and end["fence"][0] == fence[0] and len(end["fence"]) >= len(fence)
                    and not end["info"].strip()):
                break
            closing += 1
        if match["info"].strip() == "sim":
            body = "".join(lines[index + 1:closing])
            closed = closing < len(lines)
            yield Fenced(index, closing + 1 if closed else closing, match["indent"], body,
                         closed)
        index = closing + 1


def modules_in(markdown: str) -> set[str]:
    """The sim modules a page embeds (well-formed blocks only), for staging the runtime."""
    found = set()
    for block in iter_blocks(markdown):
        try:
            data = parse(block.body, "<sim block>").data
        except ContentErrors:
            continue
        if isinstance(data, dict) and isinstance(data.get("module"), str):
            found.add(data["module"])
    return found


def read_block(fenced: Fenced, source: str, runs: SimRuns) -> SimBlock:
    """A block found by `iter_blocks` in the page at `source`, placed, parsed and validated
    (its sim run at the starting inputs, by `runs`)."""
    line = fenced.first + 1
    if fenced.indent:
        raise _refusal(source, line, "sim", "a sim block must start at the beginning of a line")
    if not fenced.closed:
        raise _refusal(source, line, "sim", "the block is never closed")
    return parse_block(fenced.body, line + 1, source, runs)


def parse_block(body: str, first_line: int, source: str, runs: SimRuns) -> SimBlock:
    """Parse and validate a block body; `first_line` is the file line of its first line and
    `source` the page's path as errors name it."""
    try:
        document = parse(body, source, first_line)
    except ContentErrors as errors:
        raise ContentErrors(
            dataclasses.replace(e, field="sim", message=f"not valid YAML: {e.message}")
            for e in errors.errors
        ) from None
    if document.problems:
        raise ContentErrors(
            dataclasses.replace(problem, field=f"sim.{problem.field}")
            for problem in document.problems
        )
    data = document.data
    if not isinstance(data, dict):
        raise _refusal(source, first_line, "sim", "the block must be a YAML mapping",
                       "module: <name>, optionally show: [...], first: [...] and start: {...}")
    for key in data:
        if key not in _BLOCK_KEYS:
            raise _wrong(document, [str(key)], "unknown key", "one of " + ", ".join(_BLOCK_KEYS))
    module_name = data.get("module")
    names = runs.code.names
    if module_name not in names:
        suggestion = did_you_mean(module_name, names) if isinstance(module_name, str) else ""
        raise _wrong(document, ["module"], f"no sim named {module_name!r}{suggestion}",
                     "one of " + ", ".join(names))
    module = runs.load(module_name)
    inputs = [spec.name for spec in module.INPUTS]

    show = data.get("show", inputs)
    if not isinstance(show, list) or not all(isinstance(name, str) for name in show):
        raise _wrong(document, ["show"], "must be a list of input names", ", ".join(inputs))
    for name in show:
        if name not in inputs:
            raise _wrong(document, ["show"], f"{name!r} is not an input of {module_name}",
                         ", ".join(inputs))

    first = data.get("first", [])
    if not isinstance(first, list) or not all(isinstance(name, str) for name in first):
        raise _wrong(document, ["first"], "must be a list of input names", ", ".join(show))
    for name in first:
        if name not in inputs:
            raise _wrong(document, ["first"], f"{name!r} is not an input of {module_name}"
                         f"{did_you_mean(name, inputs)}", ", ".join(show))
        if name not in show:
            raise _wrong(document, ["first"], f"{name!r} has no control: it is not in show",
                         ", ".join(show))

    start = data.get("start") or {}
    if not isinstance(start, dict):
        raise _wrong(document, ["start"], "must be a mapping of input name to value")
    try:
        values = runs.code.contract.validate(module.INPUTS, start)
        runs.run(module_name, values)  # cross-input checks (min <= max) live in sims
    except runs.code.contract.InputError as error:
        raise _wrong(document, ["start", error.input], str(error)) from None
    except ValueError as error:  # a sim's own refusal that names no single input
        raise _wrong(document, ["start"], str(error)) from None
    show, first = _with_companions(module.INPUTS, show), _with_companions(module.INPUTS, first)
    # Only a part of the controls first, or none set apart at all.
    shown_first = tuple(name for name in show if name in first)
    if len(shown_first) == len(show):
        shown_first = ()
    return SimBlock(module_name, tuple(show), values, shown_first)


def _wrong(document: Document, location: list[str | int], message: str,
           expected: str = "") -> ContentErrors:
    """A problem with the block's field at `location`, on the line where that field is (or
    the nearest enclosing one that exists, as for an input the block does not set)."""
    field = "sim." + field_name(location)
    return _refusal(document.path, document.line(location), field, message, expected)


def _refusal(source: str, line: int, field: str, message: str,
             expected: str = "") -> ContentErrors:
    return ContentErrors([ContentError(source, line, field, message, expected)])


def _with_companions(specs: Any, names: list[str]) -> list[str]:
    """`names` with each input shown only while a choice has a value (a Text's
    `shown_when`, "model=custom": the pasted config.json) put right after that choice, when
    the choice is there: a page that lists `model` gets the paste with it, unasked."""
    companions = {}
    for spec in specs:
        choice = getattr(spec, "shown_when", "").partition("=")[0]
        if choice:
            companions.setdefault(choice, []).append(spec.name)
    listed: list[str] = []
    for name in names:
        if name not in listed:
            listed.append(name)
        listed.extend(c for c in companions.get(name, ()) if c not in names and c not in listed)
    return listed
