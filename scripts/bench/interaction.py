"""Interaction: from an input changed on a page to its chart updated, for every sim.

Each sim is driven on a real page of the built site that embeds it (its explainer where it
has one), with every control the page shows set to the sim's defaults through the URL. The
bench types into a control (or picks an option) as a reader would, by firing the same
`input`/`change` event, and stops the clock when the widget marks its output fresh again
(`.sim-output[data-stale="false"]`, set once the summary, tables and charts are on screen
for those inputs) and the page's layout is up to date. So a change measures the worker's
run (Python), the message round trip, and the chart update in the page.

A reader reaches for a control (a pointer over it, a click, a Tab) before changing it, and
the page gets ready then (widget.js, prepare). So the bench first focuses the controls,
waits THINK_MS, and times the first change on its own: what a reader's first change costs.
The controls then take turns, each moving one step away from its default and back (a
choice to another option and back). A round over every control is warm-up; then CHANGES
changes are timed.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page

import sims
from bench.chromium import MainThreadTrace, cpu_by_thread, wait_until
from bench.pageload import OBSERVER
from bench.stats import percentile
from sims.kit.contract import Choice, Number, Text, defaults

CHANGES = 40
SLOWEST_SHOWN = 3  # changes named beside the p95: which controls set it
THINK_MS = 1000  # from reaching for the controls to the first change
CHANGE_TIMEOUT_MS = 10_000
_SIM_ELEMENT = re.compile(r'data-sim="(?P<module>\w+)" data-key="(?P<key>[\w-]+)"')

# Set a control and resolve with the ms until the output is fresh for the new value.
CHANGE = """
async ([key, name, value, timeout, label]) => {
  const root = document.querySelector(`[data-key="${key}"]`);
  const box = root.querySelector(`[data-input="${name}"]`);
  const field = box.querySelector("select") || box.querySelector("input.sim-value");
  const output = root.querySelector(".sim-output");
  return await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no update for ${name}=${value}`)), timeout);
    let start;
    const observer = new MutationObserver(() => {
      if (output.dataset.stale !== "false") return;
      observer.disconnect();
      clearTimeout(timer);
      root.getBoundingClientRect(); // style and layout of the new chart, as a frame needs
      performance.mark(`${label}:end`);
      resolve(performance.now() - start);
    });
    observer.observe(output, { attributes: true, attributeFilter: ["data-stale"] });
    performance.mark(`${label}:start`);
    start = performance.now();
    field.value = String(value);
    field.dispatchEvent(new Event(field.tagName === "SELECT" ? "change" : "input",
                                  { bubbles: true }));
  });
}
"""

# Focus the controls of one widget, as a reader's pointer or Tab key does before a change.
REACH = """
(key) => {
  const field = document.querySelector(`[data-key="${key}"] form.sim-controls`)
    .querySelector("input, select");
  field.focus();
}
"""


@dataclass
class Interaction:
    """One sim's interaction figures."""

    module: str
    page: str
    first_ms: float  # the first change, THINK_MS after focusing the controls
    p50_ms: float
    p95_ms: float
    max_ms: float
    changes: int
    cpu_p50_ms: float  # CPU time of the page's main thread and workers within a change
    cpu_p95_ms: float
    main_cpu_p95_ms: float  # of it, the page's main thread (script, style, layout, paint)
    worker_cpu_p95_ms: float  # and Python's worker (the sim's run and its JSON)
    slowest: str  # the slowest timed changes, as `slowest` gives them


def pages_by_sim(site: Path) -> dict[str, str]:
    """For each sim, a built page (path under the site) with a widget whose key is the
    sim's own name (its first widget on that page); explainers first."""
    found: dict[str, str] = {}
    pages = sorted(site.rglob("index.html"), key=lambda p: ("explainers" not in p.parts, str(p)))
    for path in pages:
        for match in _SIM_ELEMENT.finditer(path.read_text(encoding="utf-8")):
            if match["module"] == match["key"]:
                relative = path.parent.relative_to(site).as_posix()
                found.setdefault(match["module"], f"{relative}/")
    return found


def shown_inputs(site: Path, page: str, key: str) -> list[str]:
    """The inputs the widget `key` on `page` has controls for."""
    text = (site / page / "index.html").read_text(encoding="utf-8")
    start = text.index(f'data-key="{key}"')
    form = text[start:text.index("</form>", start)]
    return re.findall(r'data-input="(\w+)"', form)


def other_value(module: str, name: str) -> Any | None:
    """A value next to the default that the sim accepts with every other input at its
    default: one step up or down for a number, another option for a choice. None if there
    is none (calculator's layout: expert parallel needs a mixture of experts, and the
    default model is dense), so that control cannot be changed on its own at the defaults."""
    sim = sims.load(module)
    spec = next(spec for spec in sim.INPUTS if spec.name == name)
    if isinstance(spec, Text):
        return None  # its values are the sim's own format: no neighbour to step to
    if isinstance(spec, Choice):
        options = [choice for choice in spec.choices if choice != spec.default]
    else:
        assert isinstance(spec, Number)
        options = [value for value in (spec.default + spec.step, spec.default - spec.step)
                   if spec.min <= value <= spec.max]
    for value in options:
        try:
            sim.simulate(**{name: value})
        except ValueError:
            continue
        return value
    return None


def _url(base: str, page: str, key: str, names: list[str], module: str) -> str:
    values = defaults(sims.load(module).INPUTS)
    query = urllib.parse.urlencode({f"{key}.{name}": values[name] for name in names})
    return f"{base}{page}?{query}"


def slowest(changes: list[tuple[str, Any]], durations: list[float],
            count: int = SLOWEST_SHOWN) -> str:
    """The `count` slowest of the timed `changes` ((input, value) each, with its duration),
    slowest first, as "input=value ms": the p95 of a few dozen changes is set by its
    slowest few, and an engineer cutting it needs to know which control's change they are."""
    ranked = sorted(zip(durations, changes, strict=True), key=lambda item: -item[0])[:count]
    return ", ".join(f"{name}={value} {ms:.1f} ms" for ms, (name, value) in ranked)


def measure(context: BrowserContext, base: str, site: Path, module: str, page_path: str,
            changes: int = CHANGES) -> Interaction:
    """Open the sim's page and time its first change, then `changes` changes after a
    warm-up round."""
    names = shown_inputs(site, page_path, module)
    values = defaults(sims.load(module).INPUTS)
    others = {name: other_value(module, name) for name in names}
    steps = [(name, value) for name in names if others[name] is not None
             for value in (others[name], values[name])]
    page: Page = context.new_page()

    def change(index: int) -> float:
        arguments = [module, *steps[index % len(steps)], CHANGE_TIMEOUT_MS, f"change-{index}"]
        return page.evaluate(CHANGE, arguments)

    try:
        page.add_init_script(OBSERVER)
        page.goto(_url(base, page_path, module, names, module))
        page.locator(f'[data-key="{module}"]').scroll_into_view_if_needed()  # as a reader
        # This widget: a page's other sims, further down, are never wanted here.
        wait_until(page, f"() => document.querySelector('[data-key=\"{module}\"]')"
                         ".dataset.state === 'ready'")
        page.evaluate(REACH, module)
        page.wait_for_timeout(THINK_MS)
        # The first change, then a warm-up round over every step, then the timed changes,
        # traced (lightly) for the CPU time each had.
        first = change(0)
        for index in range(1, 1 + len(steps)):
            change(index)
        timed = range(1 + len(steps), 1 + len(steps) + changes)
        trace = MainThreadTrace(page)
        durations = [change(index) for index in timed]
        events = trace.events(page)
    finally:
        page.close()
    threads = [cpu_by_thread(events, f"change-{index}")[1] for index in timed]
    cpu = [split["main"] + split["worker"] for split in threads]
    return Interaction(module, page_path, first, percentile(durations, 0.5),
                       percentile(durations, 0.95), max(durations), len(durations),
                       percentile(cpu, 0.5), percentile(cpu, 0.95),
                       percentile([split["main"] for split in threads], 0.95),
                       percentile([split["worker"] for split in threads], 0.95),
                       slowest([steps[index % len(steps)] for index in timed], durations))
