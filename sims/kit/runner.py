"""The one entry point the browser calls: run a sim on inputs and answer with a JSON string.

The Pyodide worker (content/assets/sim/worker.js) and the cross-runtime test under Node
both call `run`, and the test compares its string with CPython's own `run`, so the text a
reader's browser receives is exactly what the tests check. `read` turns a file the reader
picks for a Text input into its value, in the same worker. Not a sim (leading underscore).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from types import ModuleType
from typing import Any

from sims.kit import progress
from sims.kit.contract import Begun


def load(module: str) -> ModuleType:
    """Import sims.<module>; only plain names, so a page cannot import arbitrary modules."""
    if not module.isidentifier() or module.startswith("_"):
        raise ValueError(f"not a sim module name: {module!r}")
    return importlib.import_module(f"sims.{module}")


def run(module: str, inputs_json: str) -> str:
    """`{"ok": true, "result": ...}`, or `{"ok": false, "kind": "input"|"sim", ...}`.

    A ValueError is the reader's input being refused: `input` names the control to show it
    next to (None when the message is about no single input). Anything else is a fault in
    the sim, reported with its type so that it can be reproduced with `python -m sims`.
    """
    return json.dumps(_answer(lambda: load(module).simulate(**json.loads(inputs_json))))


# The rest of the run begun last (`start`), until `finish` runs it. The worker runs one
# thing at a time and finishes a run before it begins another.
_rest: Callable[[], dict[str, Any]] | None = None


def start(module: str, inputs_json: str) -> str:
    """A reader's run on the page: `run`'s answer, except that a sim answering in two parts
    (sims.kit.phased) answers with its first part, `"pending"` naming the summary figures
    it leaves out and `"more": true`; `finish` then gives the whole answer, the same text
    as `run`'s. Refusals and faults answer whole, as `run`'s do."""
    global _rest
    _rest = None
    begun: Begun | None = None

    def begin() -> dict[str, Any]:
        nonlocal begun
        simulate, inputs = load(module).simulate, json.loads(inputs_json)
        # A simulate not wrapped by contract.simulation (a test's stand-in) answers whole.
        begins = getattr(simulate, "begin", None)
        begun = begins(**inputs) if begins else Begun(simulate(**inputs), [], None)
        return begun.first

    answer = _answer(begin)
    if begun is not None and begun.finish is not None:
        _rest = begun.finish
        answer |= {"pending": begun.pending, "more": True}
    return json.dumps(answer)


def more() -> bool:
    """Whether the run `start` began last has a rest for `finish` to give."""
    return _rest is not None


def finish() -> str:
    """The whole answer to the run `start` began in two parts (run's text for it)."""
    global _rest
    rest, _rest = _rest, None
    if rest is None:
        return json.dumps({"ok": False, "kind": "sim", "message": "no run to finish"})
    return json.dumps(_answer(rest))


def _answer(compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    try:
        return {"ok": True, "result": compute()}
    except ValueError as error:
        return {"ok": False, "kind": "input", "input": getattr(error, "input", None),
                "message": str(error)}
    except Exception as error:  # noqa: BLE001 - reported to the reader, never swallowed
        return {"ok": False, "kind": "sim", "message": f"{type(error).__name__}: {error}"}


def read(module: str, name: str, text: str) -> str:
    """`{"ok": true, "value": ..., "note": ...}`: a file's text (picked or pasted) as the
    value of the sim's Text input `name`, by the input's own `reader` (which also says what
    it read, `note`) or else the sim's `read_file`; or `{"ok": false, "input": name,
    "message": ...}` saying what is wrong with the text and what to give. The text never
    leaves the reader's device: this runs in their browser's worker."""
    try:
        sim = load(module)
        spec = next((s for s in sim.INPUTS if s.name == name
                     and (getattr(s, "reader", None) or getattr(s, "file", ""))), None)
        if spec is None:
            raise ValueError(f"{name}: not an input of this sim that a file fills")
        if spec.reader is not None:
            value, note = spec.reader(text)
        else:
            value, note = sim.read_file(name, text), ""
        value = spec.parse(value)
    except ValueError as error:
        answer = {"ok": False, "input": name, "message": str(error)}
    except Exception as error:  # noqa: BLE001 - a fault in the sim's reader, reported
        answer = {"ok": False, "input": name, "message": f"{type(error).__name__}: {error}"}
    else:
        answer = {"ok": True, "value": value, **({"note": note} if note else {})}
    return json.dumps(answer)


def listen(listener: progress.Listener | None) -> None:
    """Send a long run's progress reports (sims.kit.progress) to `listener`: the worker's,
    which posts each to the page while the run goes on."""
    progress.listen(listener)
