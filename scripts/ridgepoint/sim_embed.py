"""Embedded sims: a ```sim block in Markdown becomes the widget, with real results inside.

At staging time each block runs its sim natively at the starting inputs and is replaced by
HTML that already holds everything a reader without JavaScript needs: the controls (shown
disabled, with the values used), the summary table and every chart as inline SVG (rendered
by vl-convert from the very specs the browser later draws with Vega). In the browser,
`content/assets/sim/widget.js` enables the controls and takes over with Pyodide.

    ```sim
    module: batching
    show: [batch_size, max_output_tokens]   # optional: inputs that get controls (default all)
    start: {batch_size: 8}                  # optional: starting values (default: declared)
    ```

A bad block (unknown module, unknown input, a start value out of range, broken YAML) is a
content error pointing at the file and line, like any other content problem.
"""

from __future__ import annotations

import copy
import hashlib
import html
import json
import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

import sims
from ridgepoint import simrun
from ridgepoint.errors import ContentError, ContentErrors
from ridgepoint.runtime import ROOT, browser_files
from ridgepoint.yamldoc import Document, parse
from sims.contract import Choice, Input, Number, describe, validate

VL_VERSION = "v6_4"  # the newest Vega-Lite vl-convert 1.9 bundles; npm vega-lite is 6.4.x
SVG_WIDTH = 480  # prerendered charts stand in for width "container"; CSS scales the SVG
CACHE_DIR = ROOT / "build" / "cache" / "vl-svg"

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
_BLOCK_KEYS = ("module", "show", "start")
WORKER_SCRIPT = "worker.js"  # beside widget.js

# Starts the page's Python worker (its URL in the script's data-worker, page-relative) as
# the parser reaches the first sim. Inline, so the same text on every page (one CSP hash)
# and nothing to download first; a script fetched here would wait for the parser to reach
# it anyway, as the stylesheets hold the parser in the <head>. widget.js takes the worker
# from window.ridgepointWorker and sets it to null (a widget that ran first has its own:
# no second worker). The worker says nothing until the widget's first message, so nothing
# is lost meanwhile. A worker whose script cannot load is dropped before the widget takes
# it: the widget then starts its own, whose failure it hears and reports to the reader.
STARTER = (
    '(()=>{if("ridgepointWorker"in window)return;'
    "const url=new URL(document.currentScript.dataset.worker,location.href);"
    'const worker=new Worker(url,{type:"module"});'
    "window.ridgepointWorker=worker;"
    'worker.addEventListener("error",()=>{if(window.ridgepointWorker!==worker)return;'
    "worker.terminate();delete window.ridgepointWorker})})()"
)


# -- number display, shared with the browser ------------------------------------------------

SIGNIFICANT = 4  # digits a result keeps, beyond those of its integer part
FIXED = range(-3, 16)  # exponents n (value = 0.digits x 10^n) written out, not as 1.2e-5


def display(value: Any) -> str:
    """A result value as the page shows it, character for character what format.js shows.

    A number keeps every digit of its integer part and at most 4 significant digits in all
    (12,346; 592.5; 1.993; 0.006416), commas between thousands, and is written as 1.235e-5
    below 0.0001 and from 10^15 on. Both languages round the shortest round-trip digits (the
    text of JavaScript's String(number), which `_js_number` reproduces) as decimal text, half
    up, so the prerendered table and the live one compare as text.
    """
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits, n = _shortest(abs(value))
    if n not in FIXED:
        digits, n = _round(digits, n, SIGNIFICANT)
        mantissa = f"{digits[0]}.{digits[1:]}" if len(digits) > 1 else digits
        return f"{sign}{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    digits, n = _round(digits, n, max(SIGNIFICANT, n))
    whole = digits[:n].ljust(n, "0") if n > 0 else "0"
    fraction = digits[n:] if n > 0 else "0" * -n + digits
    return f"{sign}{int(whole):,}" + (f".{fraction}" if fraction else "")


def exact(number: float) -> str:
    """A number exactly as JavaScript's String() writes it: for control values, which the
    widget reads back and compares with what the reader types."""
    return _js_number(number)


def _shortest(number: float) -> tuple[str, int]:
    """(digits, n) with number = 0.digits x 10^n, from the text JavaScript writes for it."""
    mantissa, _, exponent = _js_number(number).partition("e")
    whole, _, fraction = mantissa.partition(".")
    every = whole + fraction
    lead = len(every) - len(every.lstrip("0"))
    return every[lead:].rstrip("0"), len(whole) + int(exponent or 0) - lead


def _round(digits: str, n: int, keep: int) -> tuple[str, int]:
    """`digits` rounded half up to `keep` digits; n grows by one when 99.. becomes 100.."""
    if len(digits) <= keep:
        return digits, n
    head = digits[:keep]
    if digits[keep] >= "5":
        up = str(int(head) + 1)
        n += len(up) > len(head)
        head = up
    return head.rstrip("0"), n


def _js_number(number: float) -> str:
    """ECMAScript Number::toString(10) for a finite number."""
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    _, digit_tuple, exponent = Decimal(repr(abs(float(number)))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    k = len(digits)
    n = k + int(exponent)  # the value is 0.digits x 10^n
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = f"{digits[:n]}.{digits[n:]}"
    elif -6 < n <= 0:
        body = "0." + "0" * -n + digits
    else:
        mantissa = digits[0] + (f".{digits[1:]}" if k > 1 else "")
        body = f"{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    return sign + body


# -- charts ---------------------------------------------------------------------------------


def chart_svg(spec: Mapping[str, Any], chart_id: str) -> str:
    """A chart as inline SVG: rendered natively, cached by spec, labelled for assistive tech.

    The SVG's ids are prefixed with `chart_id` so that several charts on one page never
    share an id (Vega names clip paths and gradients the same way in every chart).
    """
    svg = _cached_svg(_fixed_width(spec))
    svg = re.sub(r"^<\?xml[^>]*>\s*", "", svg).replace("\n", " ")
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{chart_id}-\1"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", rf"url(#{chart_id}-\1)", svg)
    svg = re.sub(r'href="#([^"]+)"', rf'href="#{chart_id}-\1"', svg)
    title = html.escape(str(spec.get("title", "")))
    desc = html.escape(str(spec.get("description", "")))
    head = (
        f' role="img" aria-labelledby="{chart_id}-title {chart_id}-desc">'
        f'<title id="{chart_id}-title">{title}</title><desc id="{chart_id}-desc">{desc}</desc>'
    )
    return re.sub(r"^(<svg\b[^>]*?)>", lambda m: m.group(1) + head, svg, count=1)


def _fixed_width(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The spec with width "container" (live charts fill their box) made a fixed width."""
    fixed = copy.deepcopy(dict(spec))
    if fixed.get("width") == "container":
        fixed["width"] = SVG_WIDTH
    return fixed


def cache_path(spec: Mapping[str, Any]) -> Path:
    """Where the SVG of a (fixed-width) spec is cached. The key covers the spec, the
    Vega-Lite version and vl-convert's own version, so an upgrade of either renders afresh."""
    import vl_convert

    text = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    key = hashlib.sha256(f"{vl_convert.__version__}|{VL_VERSION}|{text}".encode()).hexdigest()
    return CACHE_DIR / f"{key}.svg"


def _cached_svg(spec: Mapping[str, Any]) -> str:
    """vl-convert's SVG for a spec, from build/cache when this exact spec was seen before."""
    import vl_convert

    path = cache_path(spec)
    if path.is_file():
        return path.read_text(encoding="utf-8")
    svg = vl_convert.vegalite_to_svg(spec, vl_version=VL_VERSION)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".tmp")
    partial.write_text(svg, encoding="utf-8")
    partial.replace(path)  # atomic: a parallel build never reads half a file
    return svg


# -- the block ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SimBlock:
    """A parsed, validated ```sim block."""

    module: str
    show: tuple[str, ...]
    start: dict[str, Any]  # every input's starting value, validated


class _BlockError(Exception):
    def __init__(self, line: int, field: str, message: str, expected: str = "") -> None:
        super().__init__(message)
        self.line, self.field, self.message, self.expected = line, field, message, expected


def _key_lines(node: yaml.Node | None, document: Document) -> dict[str, int]:
    """Source line of each key of a YAML mapping node (1-based, in the whole file)."""
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {
        str(key.value): document.mark_line(key.start_mark)
        for key, _ in node.value
        if isinstance(key, yaml.ScalarNode)
    }


def parse_block(body: str, first_line: int) -> SimBlock:
    """Parse and validate a block body; `first_line` is the file line of its first line."""
    try:  # the content loader's YAML: bounded against alias bombs, duplicate keys reported
        document = parse(body, "<sim block>", first_line)
    except ContentErrors as errors:
        error = errors.errors[0]
        raise _BlockError(error.line, "sim", f"not valid YAML: {error.message}",
                          error.expected) from None
    if document.problems:
        problem = document.problems[0]
        raise _BlockError(problem.line, f"sim.{problem.field}", problem.message,
                          problem.expected)
    node, data = document.node, document.data
    if not isinstance(data, dict):
        raise _BlockError(first_line, "sim", "the block must be a YAML mapping",
                          "module: <name>, optionally show: [...] and start: {...}")
    lines = _key_lines(node, document)
    for key in data:
        if key not in _BLOCK_KEYS:
            raise _BlockError(lines.get(str(key), first_line), f"sim.{key}", "unknown key",
                              "one of " + ", ".join(_BLOCK_KEYS))
    module_name = data.get("module")
    names = sims.sim_names()
    if module_name not in names:
        raise _BlockError(lines.get("module", first_line), "sim.module",
                          f"no sim named {module_name!r}", "one of " + ", ".join(names))
    module = sims.load(module_name)
    inputs = {spec.name: spec for spec in module.INPUTS}

    show = data.get("show", list(inputs))
    if not isinstance(show, list) or not all(isinstance(name, str) for name in show):
        raise _BlockError(lines.get("show", first_line), "sim.show",
                          "must be a list of input names", ", ".join(inputs))
    for name in show:
        if name not in inputs:
            raise _BlockError(lines.get("show", first_line), "sim.show",
                              f"{name!r} is not an input of {module_name}", ", ".join(inputs))

    start = data.get("start") or {}
    if not isinstance(start, dict):
        raise _BlockError(lines.get("start", first_line), "sim.start",
                          "must be a mapping of input name to value")
    start_node = next((v for k, v in getattr(node, "value", []) if k.value == "start"), None)
    start_lines = _key_lines(start_node, document)
    try:
        values = validate(module.INPUTS, start)
        simrun.run(module_name, values)  # cross-input checks (e.g. min <= max) live in the sim
    except ValueError as error:
        name = getattr(error, "input", str(error).split(":")[0])
        line = start_lines.get(name, lines.get("start", first_line))
        raise _BlockError(line, f"sim.start.{name}", str(error)) from None
    return SimBlock(module_name, tuple(show), values)


@dataclass(frozen=True)
class _Fenced:
    """A top-level ```sim block's place in the page (0-based line indexes)."""

    first: int  # the opening fence
    end: int  # one past the closing fence (or past the last line when unclosed)
    indent: str
    body: str
    closed: bool


def iter_blocks(markdown: str) -> Iterator[_Fenced]:
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
            yield _Fenced(index, closing + 1 if closed else closing, match["indent"], body,
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


def render_sim_blocks(markdown: str, source: str, widget_script: str | None = None) -> str:
    """Replace every ```sim block of a page with the widget HTML.

    `source` is the page's path as errors should name it. Every bad block of the page is
    reported at once, as ContentErrors. `widget_script`, the page-relative URL of
    widget.js, is loaded right after the first widget as an async module: the theme's
    scripts at the end of the page run first otherwise, and only then would the widget
    start Python (the same module from extra_javascript is then not run a second time).
    Before that widget goes STARTER, which starts Python's worker as the parser reaches it:
    the worker's downloads then overlap the fetch of widget.js and its imports.
    """
    lines = markdown.splitlines(keepends=True)
    errors: list[ContentError] = []
    pieces: list[str] = []
    cursor = 0
    used: dict[str, int] = {}
    early_done = False
    for fenced in iter_blocks(markdown):
        pieces.append("".join(lines[cursor:fenced.first]))
        cursor = fenced.end
        line = fenced.first + 1
        if fenced.indent:
            errors.append(ContentError(source, line, "sim",
                                       "a sim block must start at the beginning of a line"))
            continue
        if not fenced.closed:
            errors.append(ContentError(source, line, "sim", "the block is never closed"))
            continue
        try:
            block = parse_block(fenced.body, line + 1)
        except _BlockError as error:
            errors.append(ContentError(source, error.line, error.field, error.message,
                                       error.expected))
            continue
        used[block.module] = used.get(block.module, 0) + 1
        count = used[block.module]
        key = block.module if count == 1 else f"{block.module}-{count}"
        early = ""
        start = ""
        if widget_script and not early_done:
            worker = posixpath.join(posixpath.dirname(widget_script), WORKER_SCRIPT)
            start = f'<script data-worker="{_attr(worker)}">{STARTER}</script>\n'
            early = f'<script type="module" async src="{_attr(widget_script)}"></script>\n'
            early_done = True
        pieces.append(f"\n{start}{widget_html(block, key)}\n{early}\n")
    pieces.append("".join(lines[cursor:]))
    if errors:
        raise ContentErrors(errors)
    return "".join(pieces)


# -- the widget's HTML ----------------------------------------------------------------------


def _attr(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _json_script(data: Any) -> str:
    """JSON inside a <script type="application/json">: never executed, and with every '<'
    escaped no text in it can close the element or open a comment."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return f'<script type="application/json" class="sim-config">{text}</script>'


def _control(spec: Input, value: Any, key: str) -> str:
    """One labelled control, rendered disabled: the widget enables it once it runs.

    A number gets a slider and a text box showing its exact value (where an out-of-range
    value can be typed, and refused next to the control); a choice gets a select.
    """
    base = f"sim-{key}-{spec.name}"
    described = f"{base}-help {base}-error" if spec.help else f"{base}-error"
    common = f'aria-describedby="{described}" disabled'
    if isinstance(spec, Choice):
        options = "".join(
            f'<option value="{_attr(c)}"{" selected" if c == value else ""}>'
            f"{html.escape(c)}</option>"
            for c in spec.choices
        )
        fields = f'<select id="{base}" name="{_attr(spec.name)}" {common}>{options}</select>'
    else:
        assert isinstance(spec, Number)
        shown = exact(value)
        unit = f" {spec.unit}" if spec.unit else ""
        label = f"{spec.label}, exact value" + (f" in {spec.unit}" if spec.unit else "")
        fields = (
            f'<input type="range" id="{base}" name="{_attr(spec.name)}" '
            f'min="{exact(spec.min)}" max="{exact(spec.max)}" step="{exact(spec.step)}" '
            f'value="{shown}" aria-valuetext="{_attr(shown + unit)}" {common}>'
            f'<input type="text" class="sim-value" inputmode="decimal" size="6" '
            f'value="{shown}" aria-label="{_attr(label)}" {common}>'
        )
        if spec.unit:
            fields += f'<span class="sim-unit">{html.escape(spec.unit)}</span>'
    help_html = (
        f'<p class="sim-help" id="{base}-help">{html.escape(spec.help)}</p>' if spec.help else ""
    )
    return (
        f'<div class="sim-control" data-input="{_attr(spec.name)}">'
        f'<label for="{base}">{html.escape(spec.label)}</label>'
        f'<div class="sim-control-row">{fields}</div>{help_html}'
        f'<p class="sim-error" id="{base}-error" hidden></p></div>'
    )


def summary_html(summary: Mapping[str, Any], metrics: Mapping[str, str]) -> str:
    rows = "".join(
        f'<tr data-key="{_attr(name)}"><th scope="row">{html.escape(metrics.get(name, name))}'
        f"</th><td>{html.escape(display(value))}</td></tr>"
        for name, value in summary.items()
    )
    return f'<table class="sim-summary"><caption>Results</caption><tbody>{rows}</tbody></table>'


def table_html(table: Mapping[str, Any], index: int) -> str:
    columns = table["columns"]
    head = "".join(f'<th scope="col">{html.escape(c["label"])}</th>' for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(display(row.get(c['key'])))}</td>" for c in columns)
        + "</tr>"
        for row in table["rows"]
    )
    return (f'<details class="sim-table" data-table="{index}"><summary>'
            f'{html.escape(table["title"])}</summary><table><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></details>")


def widget_html(block: SimBlock, key: str) -> str:
    """The widget for one block, prerendered at its starting inputs, on a single line (so
    Markdown passes it through as one raw HTML block)."""
    module = sims.load(block.module)
    result = simrun.run(block.module, block.start)
    by_name = {spec.name: spec for spec in module.INPUTS}
    config = {
        "module": block.module,
        "key": key,
        "files": browser_files(block.module),
        "inputs": describe(module.INPUTS),
        "show": list(block.show),
        "start": block.start,
        "metrics": dict(module.METRICS),
    }
    controls = "".join(_control(by_name[name], block.start[name], key) for name in block.show)
    charts = "".join(
        f'<figure class="sim-chart" data-chart="{i}">'
        f'{chart_svg(spec, f"sim-{key}-chart{i}")}</figure>'
        for i, spec in enumerate(result["charts"])
    )
    tables = "".join(table_html(t, i) for i, t in enumerate(result.get("tables", [])))
    status = (
        '<div class="sim-status" role="status"><span class="sim-status-text">'
        "Computed when this page was built, for the inputs shown.</span>"
        '<progress class="sim-progress" max="4" value="0" hidden></progress></div>'
    )
    return (
        f'<div class="sim" id="sim-{_attr(key)}" data-sim="{_attr(block.module)}" '
        f'data-key="{_attr(key)}" data-state="prerendered">'
        f'{_json_script(config)}<div class="sim-body">'
        f'<form class="sim-controls" aria-label="{_attr(module.TITLE)}: inputs">{controls}</form>'
        f'<div class="sim-output">{status}{charts}'
        f'{summary_html(result["summary"], module.METRICS)}{tables}</div></div></div>'
    )

