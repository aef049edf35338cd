"""The widget's HTML: a sim block prerendered at its starting inputs.

The HTML already holds everything a reader without JavaScript needs: the controls (shown
disabled, with the values used), the summary table, any tables and every chart as inline
SVG. In the browser, `content/assets/sim/widget.js` binds to this markup, enables the
controls and takes over with Pyodide; its config travels in a JSON script element.

Every element the script binds to carries `data-sim-part="<name>"`, a name from the one
table of parts in `content/assets/sim/parts.js` (with its key attribute where a part comes
once per input, chart or table); tests/pipeline/test_widget_parts.py checks that every part
of that table is where the script looks for it. Classes are left to the stylesheet (and to
tests that read the page).
"""

from __future__ import annotations

import html
import json
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ridgepoint.sims.blocks import SimBlock
from ridgepoint.sims.charts import chart_svg
from ridgepoint.sims.display import display, exact
from ridgepoint.sims.simrun import SimRuns


@dataclass(frozen=True)
class WidgetScript:
    """widget.js as a page refers to it: its page-relative URL, and the modules it imports
    (directly or not; ridgepoint.browser.modulegraph), relative to its folder."""

    url: str
    imports: tuple[str, ...] = ()


# Beside widget.js: starts Python for a first sim on the first screen before widget.js's
# many modules have loaded (content/assets/sim/start.js); it imports only modules widget.js
# imports too.
STARTER = "start.js"


def early_script(script: WidgetScript) -> str:
    """The scripts after a page's first widget: start.js, then widget.js, as async modules,
    so the widget does not wait for the theme's scripts at the page's end, widget.js after a
    `modulepreload` for each module it imports, so that they are fetched together rather
    than level by level (each level waits for the busy main thread to parse the one
    before). Neither starts Python before a sim is wanted (content/assets/sim/wanted.js):
    start.js starts it as soon as the first sim is, without waiting for widget.js."""
    folder = posixpath.dirname(script.url)
    starter = posixpath.join(folder, STARTER)
    preloads = "".join(f'<link rel="modulepreload" href="{_attr(posixpath.join(folder, name))}">\n'
                       for name in script.imports)
    return (f'<script type="module" async src="{_attr(starter)}"></script>\n'
            f'{preloads}<script type="module" async src="{_attr(script.url)}"></script>\n')


# The inputs whose choices the catalogue page lists, and the words of the link to it.
CATALOGUE_LINKS = {"gpu": "Every GPU's figures and sources", "model": "Every model's shape"}


def _attr(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _json_script(data: Any) -> str:
    """JSON inside a <script type="application/json">: never executed, and with every '<'
    escaped no text in it can close the element or open a comment."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return (f'<script type="application/json" class="sim-config" data-sim-part="config">{text}'
            "</script>")


def _control(spec: Any, value: Any, key: str, link: str | None = None,
             shown: Mapping[str, Any] | None = None,
             opens: Mapping[str, str] | None = None) -> str:
    """One labelled control, rendered disabled: the widget enables it once it runs.

    A number gets a slider and a text box showing its exact value (where an out-of-range
    value can be typed, and refused next to the control); a choice (an input with
    `choices`) gets a select; a text (with `max_length`) a text field, and when a file fills
    it (`file`: the types the picker offers) a file picker whose file the sim reads in the
    reader's browser. `spec` is a Number, Choice or Text of the sims copy being run
    (ridgepoint.sims.simcode), whose classes are not the ones `import sims` would give. `link`,
    for a GPU or model choice, is the catalogue section listing every choice's figures and
    sources, linked under the control. `shown`: the values the widget starts at, which say
    whether a control shown only with one choice (`shown_when`) is hidden; `opens`, for a
    choice, the label of the control each of its values shows ("custom: Paste a
    config.json…"), written after the value in the option.
    """
    shown = shown or {}
    base = f"sim-{key}-{spec.name}"
    described = f"{base}-help {base}-error" if spec.help else f"{base}-error"
    common = f'aria-describedby="{described}" disabled'
    if hasattr(spec, "choices"):
        opens = opens or {}
        options = "".join(
            f'<option value="{_attr(c)}"{" selected" if c == value else ""}>'
            f"{html.escape(c + (f': {opens[c]}…' if c in opens else ''))}</option>"
            for c in spec.choices
        )
        fields = (f'<select id="{base}" name="{_attr(spec.name)}" data-sim-part="choice" {common}>'
                  f"{options}</select>")
    elif hasattr(spec, "max_length") and getattr(spec, "lines", 1) > 1:
        fields = (f'<textarea id="{base}" name="{_attr(spec.name)}" class="sim-paste" '
                  f'rows="{spec.lines}" maxlength="{spec.max_length}" spellcheck="false" '
                  f'autocomplete="off" data-sim-part="text" {common}>{html.escape(str(value))}'
                  "</textarea>")
    elif hasattr(spec, "max_length"):
        fields = (f'<input type="text" id="{base}" name="{_attr(spec.name)}" class="sim-text" '
                  f'value="{_attr(value)}" maxlength="{spec.max_length}" spellcheck="false" '
                  f'autocomplete="off" data-sim-part="text" {common}>')
        if spec.file:
            fields += (f'<input type="file" id="{base}-file" class="sim-file" '
                       f'accept="{_attr(spec.file)}" '
                       f'aria-label="{_attr(spec.label)}: read from a file" '
                       f'data-sim-part="file" {common}>')
    else:
        shown = exact(value)
        unit = f" {spec.unit}" if spec.unit else ""
        label = f"{spec.label}, exact value" + (f" in {spec.unit}" if spec.unit else "")
        fields = (
            f'<input type="range" id="{base}" name="{_attr(spec.name)}" '
            f'min="{exact(spec.min)}" max="{exact(spec.max)}" step="{exact(spec.step)}" '
            f'value="{shown}" aria-valuetext="{_attr(shown + unit)}" data-sim-part="slider" '
            f"{common}>"
            f'<input type="text" class="sim-value" inputmode="decimal" size="6" '
            f'value="{shown}" aria-label="{_attr(label)}" data-sim-part="number" {common}>'
        )
        if spec.unit:
            fields += f'<span class="sim-unit">{html.escape(spec.unit)}</span>'
    help_html = (
        f'<p class="sim-help" id="{base}-help">{html.escape(spec.help)}</p>' if spec.help else ""
    )
    if link:
        help_html += (f'<p class="sim-help sim-catalogue"><a href="{_attr(link)}">'
                      f"{html.escape(CATALOGUE_LINKS[spec.name])}</a></p>")
    if getattr(spec, "reader", None) is not None:
        # What the sim read from a paste ("Your model: 8.0B parameters, ..."), said politely.
        help_html += ('<p class="sim-note" data-sim-part="note" aria-live="polite" '
                      "hidden></p>")
    # A text shown while a choice has one value (the pasted config.json, while the model is
    # "custom"): hidden otherwise, and the script shows it when the choice changes.
    hidden = " hidden" if _hidden(spec, shown) else ""
    return (
        f'<div class="sim-control" data-sim-part="control" data-input="{_attr(spec.name)}"'
        f"{hidden}>"
        f'<label for="{base}">{html.escape(spec.label)}</label>'
        f'<div class="sim-control-row">{fields}</div>{help_html}'
        f'<p class="sim-error" id="{base}-error" data-sim-part="error" hidden></p></div>'
    )


def _hidden(spec: Any, values: Mapping[str, Any]) -> bool:
    """Whether a control with `shown_when` ("model=custom") is hidden at these values."""
    name, _, wanted = getattr(spec, "shown_when", "").partition("=")
    return bool(name) and str(values.get(name)) != wanted


# A result's suggested inputs (its `apply`): a button the script labels and shows.
APPLY = ('<button type="button" class="md-button sim-apply" data-sim-part="apply" hidden>'
         "</button>")


def summary_html(summary: Mapping[str, Any], metrics: Mapping[str, str]) -> str:
    # A sentence (a sim's verdict) takes a whole line where the figures sit two to a line.
    rows = "".join(
        f'<tr data-key="{_attr(name)}"{" data-text" if isinstance(value, str) else ""}>'
        f'<th scope="row">{html.escape(metrics.get(name, name))}'
        f"</th><td>{html.escape(display(value))}</td></tr>"
        for name, value in summary.items()
    )
    return (f'<table class="sim-summary"><caption>Results</caption>'
            f'<tbody data-sim-part="summary">{rows}</tbody></table>')


def table_html(table: Mapping[str, Any], index: int) -> str:
    columns = table["columns"]
    head = "".join(f'<th scope="col">{html.escape(c["label"])}</th>' for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(display(row.get(c['key'])))}</td>" for c in columns)
        + "</tr>"
        for row in table["rows"]
    )
    # A table is folded unless the sim says it is the answer itself (`"open": true`).
    opened = " open" if table.get("open") else ""
    return (f'<details class="sim-table"{opened}><summary>'
            f'{html.escape(table["title"])}</summary><table><thead><tr>{head}</tr></thead>'
            f'<tbody data-sim-part="table" data-table="{index}">{body}</tbody></table></details>')


def _controls(block: SimBlock, by_name: Mapping[str, Any], key: str,
              links: Mapping[str, str]) -> str:
    """The controls, those the page talks about (`first`) first and the others inside a
    closed "More inputs" disclosure; every control in the open when the block sets none
    apart."""
    opens: dict[str, dict[str, str]] = {}
    for spec in by_name.values():
        choice, _, value = getattr(spec, "shown_when", "").partition("=")
        if choice:
            opens.setdefault(choice, {})[value] = spec.label

    def made(names: tuple[str, ...]) -> str:
        return "".join(_control(by_name[name], block.start[name], key, links.get(name),
                                block.start, opens.get(name)) for name in names)
    if not block.first:
        return made(block.show)
    rest = tuple(name for name in block.show if name not in block.first)
    return (f'{made(block.first)}<details class="sim-more" data-sim-part="more">'
            f'<summary>More inputs ({len(rest)})</summary>'
            f'<div class="sim-more-controls">{made(rest)}</div></details>')


def widget_html(
    block: SimBlock, key: str, runs: SimRuns, charts_dir: Path,
    links: Mapping[str, str] | None = None,
) -> str:
    """The widget for one block, prerendered at its starting inputs (run by `runs`, charts
    cached in `charts_dir`), on a single line (so Markdown passes it through as one raw
    HTML block). `links` maps an input name ("gpu", "model") to the page-relative URL of
    the catalogue section its choices are listed in."""
    module = runs.load(block.module)
    result = runs.run(block.module, block.start)
    by_name = {spec.name: spec for spec in module.INPUTS}
    config = {
        "module": block.module,
        "key": key,
        "files": list(runs.source.files_of(block.module)),
        "inputs": runs.code.contract.describe(module.INPUTS),
        "show": list(block.show),
        "first": list(block.first),
        "start": block.start,
        "metrics": dict(module.METRICS),
    }
    links = links or {}
    controls = _controls(block, by_name, key, links)
    charts = "".join(
        f'<figure class="sim-chart" data-sim-part="chart" data-chart="{i}">'
        f'{chart_svg(spec, f"sim-{key}-chart{i}", charts_dir)}</figure>'
        for i, spec in enumerate(result["charts"])
    )
    tables = "".join(table_html(t, i) for i, t in enumerate(result.get("tables", [])))
    status = (
        '<div class="sim-status" role="status">'
        '<span class="sim-status-text" data-sim-part="status">'
        "Computed when this page was built, for the inputs shown.</span>"
        '<progress class="sim-progress" max="4" value="0" data-sim-part="progress" hidden>'
        "</progress></div>"
    )
    return (
        f'<div class="sim" id="sim-{_attr(key)}" data-sim="{_attr(block.module)}" '
        f'data-key="{_attr(key)}" data-state="prerendered">'
        f'{_json_script(config)}<div class="sim-body">'
        f'<form class="sim-controls" aria-label="{_attr(module.TITLE)}: inputs" '
        f'data-sim-part="controls">{controls}</form>'
        f'<div class="sim-output" data-sim-part="output">{status}'
        f'{summary_html(result["summary"], module.METRICS)}{APPLY}{charts}{tables}'
        f"</div></div></div>"
    )
