"""Every part of the widget the script binds to is in the HTML the build writes, where the
script looks for it.

The parts are one table in content/assets/sim/parts.js (`PARTS`), read here under Node, so
this test and the script cannot disagree on a name. The script's modules are read too: each
part they ask for is in the table, each entry of the table is asked for, and no module finds
an element any other way (by class, tag or id). Then every widget on every built page, and
every sim's widget with all its inputs shown, must hold each part: once, or once per input,
chart or table, and inside each control the parts of its kind of input.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import sims
from ridgepoint.sims.blocks import SimBlock
from ridgepoint.sims.simrun import SimRuns
from ridgepoint.sims.widget import widget_html
from sims.kit.contract import defaults
from tests.pipeline.html_tools import VOID
from tests.repo import LAYOUT

RUNS = SimRuns.of(LAYOUT)

SIM_DIR = LAYOUT.content / "assets" / "sim"
PARTS_MODULE = SIM_DIR / "parts.js"
# The modules that bind to the widget's markup (the worker and its downloads, the chart
# internals, the number format, the take-away record and chart files, and wanted.js, which
# watches the element it is given, touch no page part).
BINDING = ("widget.js", "sim.js", "controls.js", "results.js", "charts.js", "python.js",
           "phase.js", "inputs.js", "toolbar.js", "pin.js")
# How each key of the table is told apart, from the sim's config and its result at the start.
KEYS = {
    # The controls the page talks about first, the others after them (under "More inputs").
    "input": lambda config, result: sorted(config["show"],
                                           key=lambda name: name not in config["first"]),
    "chart": lambda config, result: [str(i) for i in range(len(result["charts"]))],
    "table": lambda config, result: [str(i) for i in range(len(result.get("tables", [])))],
}


@cache
def table() -> dict[str, Any]:
    """parts.js's exports, as the browser sees them: {"sim": SIM, "parts": PARTS}."""
    if shutil.which("node") is None:
        pytest.fail("node is not installed: this test reads the page's module under Node.js")
    script = ("const m = await import(process.argv[1]);"
              "console.log(JSON.stringify({sim: m.SIM, parts: m.PARTS}));")
    done = subprocess.run(["node", "--input-type=module", "-e", script, PARTS_MODULE.as_uri()],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    children: list[Element] = field(default_factory=list)
    text: str = ""

    def walk(self) -> list[Element]:
        """This element's descendants, in document order (itself not included)."""
        found = []
        for child in self.children:
            found.append(child)
            found.extend(child.walk())
        return found

    def parts(self, name: str) -> list[Element]:
        return [e for e in self.walk() if e.attrs.get("data-sim-part") == name]


class Widgets(HTMLParser):
    """Every [data-sim] element of a page, as a tree of what it holds."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.roots: list[Element] = []
        self._stack: list[Element] = []

    def _open(self, tag: str, attrs: list[tuple[str, str | None]], void: bool) -> None:
        values = {name: value or "" for name, value in attrs}
        if not self._stack and "data-sim" not in values:
            return
        element = Element(tag, values)
        (self._stack[-1].children if self._stack else self.roots).append(element)
        if not void:
            self._stack.append(element)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open(tag, attrs, tag in VOID)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open(tag, attrs, True)

    def handle_endtag(self, tag: str) -> None:
        while self._stack and self._stack.pop().tag != tag:
            pass

    def handle_data(self, data: str) -> None:
        if self._stack:
            self._stack[-1].text += data


def widgets(html: str) -> list[Element]:
    parser = Widgets()
    parser.feed(html)
    return parser.roots


def problems(root: Element) -> list[str]:
    """What the script would look for in this widget and not find (empty: all is there)."""
    parts = table()["parts"]
    found: list[str] = []
    unknown = {e.attrs["data-sim-part"] for e in root.walk() if "data-sim-part" in e.attrs}
    found += [f"a part the table does not name: {name}" for name in sorted(unknown - set(parts))]
    configs = root.parts("config")
    if len(configs) != 1:
        return [*found, f"{len(configs)} config parts"]
    config = json.loads(configs[0].text)
    result = RUNS.run(config["module"], config["start"])
    # A control's kinds: its input's, and "file" for a text input that a file fills.
    kinds = {spec["name"]: {spec["kind"], *(("file",) if spec.get("file") else ()),
                            *(("reads",) if spec.get("reads") else ())}
             for spec in config["inputs"]}
    for name, spec in parts.items():
        if spec["scope"] != "sim":
            continue
        elements = root.parts(name)
        if "key" not in spec:
            if spec.get("optional") and not elements:
                continue
            if len(elements) != 1:
                found.append(f"{name}: {len(elements)} elements, the script expects one")
            continue
        attribute = f"data-{spec['key']}"
        keys = [e.attrs.get(attribute) for e in elements]
        expected = KEYS[spec["key"]](config, result)
        if keys != expected:
            found.append(f"{name}: {attribute} {keys}, the script looks for {expected}")
    for control in root.parts("control"):
        input_name = control.attrs.get("data-input", "")
        for name, spec in parts.items():
            if spec["scope"] != "control":
                continue
            wanted = 1 if spec.get("kind") in (None, *kinds.get(input_name, ())) else 0
            if len(control.parts(name)) != wanted:
                found.append(f"control {input_name}: {len(control.parts(name))} {name} parts, "
                             f"the script expects {wanted}")
    return found


def binding_sources() -> dict[str, str]:
    return {name: (SIM_DIR / name).read_text(encoding="utf-8") for name in BINDING}


def test_every_module_of_the_widget_is_read_here() -> None:
    """A new module beside widget.js must be placed: binding (in BINDING) or not."""
    others = {"worker.js", "pyodide_start.js", "unpack.js", "link.js", "wanted.js",
              "expressions.js", "evaluation.js", "livechart.js", "chartview.js", "format.js",
              "parts.js", "takeaway.js", "chartfile.js", "compare.js", "fold.js", "cover.js",
              "drawn.js", "start.js", "paste.js", "ahead.js", "answers.js"}
    assert {path.name for path in SIM_DIR.glob("*.js")} == set(BINDING) | others


def test_the_script_asks_for_exactly_the_parts_of_the_table() -> None:
    asked = set()
    for name, source in binding_sources().items():
        for match in re.finditer(r"\b(?:part|required)\((\w+(?:\.\w+)*), \"([\w-]+)\"", source):
            asked.add(match[2])
            assert match[2] in table()["parts"], f"{name} asks for {match[2]}, not in parts.js"
    assert asked == set(table()["parts"])


def test_the_script_finds_elements_only_through_the_table_of_parts() -> None:
    """querySelector and its kin appear in parts.js alone, but for the root (SIM, the page's
    contract) and the canvas that Vega draws into a container the script made."""
    lookup = re.compile(r"\.(querySelector(?:All)?|getElementsBy\w+|getElementById|closest)"
                        r"\(([^)]*)\)")
    allowed = {"SIM", '"canvas"'}
    for name, source in binding_sources().items():
        for match in lookup.finditer(source):
            assert match[2] in allowed, f"{name}: {match[0]} (bind through parts.js)"
    assert table()["sim"] == "[data-sim]"


def test_every_sim_with_every_input_shown_has_every_part() -> None:
    for module in sims.sim_names():
        inputs = sims.load(module).INPUTS
        block = SimBlock(module, tuple(spec.name for spec in inputs), defaults(inputs))
        [root] = widgets(widget_html(block, module, RUNS, LAYOUT.charts))
        assert problems(root) == [], module


def test_every_widget_the_build_writes_has_every_part(built_repo: Path) -> None:
    checked = 0
    for page in sorted(built_repo.rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        if "data-sim=" not in html:
            continue
        for root in widgets(html):
            assert problems(root) == [], f"{page.relative_to(built_repo)}: {root.attrs['id']}"
            checked += 1
    assert checked >= len(sims.sim_names())  # every explainer's sim at least


def test_a_part_missing_from_the_markup_is_found() -> None:
    """The check itself can fail: a widget without its status line, or with a chart fewer."""
    inputs = sims.load("batching").INPUTS
    block = SimBlock("batching", ("batch_size",), defaults(inputs))
    html = widget_html(block, "batching", RUNS, LAYOUT.charts)
    [without_status] = widgets(html.replace('data-sim-part="status"', ""))
    assert problems(without_status) == ["status: 0 elements, the script expects one"]
    [chart_missing] = widgets(re.sub(r'data-sim-part="chart" data-chart="1"', "", html))
    assert problems(chart_missing) == ["chart: data-chart ['0'], the script looks for ['0', '1']"]
    [renamed] = widgets(html.replace('data-sim-part="number"', 'data-sim-part="value"'))
    assert problems(renamed) == ["a part the table does not name: value",
                                 "control batch_size: 0 number parts, the script expects 1"]
