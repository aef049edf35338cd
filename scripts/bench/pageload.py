"""Page loads, cold and warm: first chart on screen, Python ready, longest main-thread task.

Two pages are loaded by the same server in the same run:

- an explainer, as built: the prerendered SVG is the first chart; Python starts in the
  module worker (from the memory snapshot when there is one) once the sim is wanted, which
  on this page (its sim within a screen of the top) is as soon as the widget script runs:
  `wanted_ms` is that moment (python.js marks it), and ready is every widget's data-state
  reaching "ready";
- a bare reference page (written next to it by `write_reference_page`) that does what a
  page without our work would: Pyodide on the main thread, served from its own copy of
  Pyodide's npm files as they are, the same sim files fetched and imported, one run at its
  defaults (ready), then the first chart drawn with Vega. It wants Python at navigation.

Times are from navigation start (the page's performance.now()). A warm visit says whether
the site's service worker controlled it (the offline feature, which must not slow it).
"First chart visible" is the first animation frame in which a chart's SVG has a size: a
frame the browser paints right after, and which waits for render-blocking CSS as a reader's
eyes would.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from playwright.sync_api import Page, Playwright

from bench.chromium import LongestTask, MainThreadTrace, profile, wait_until
from bench.server import Ledger, python_bytes
from ridgepoint.base.layout import Layout
from ridgepoint.sims.simsource import SimSource

T = TypeVar("T")

REFERENCE_DIR = "bench-reference"

# Runs in every page before its own scripts: records when a chart is first in a rendered
# frame and when the page's Python is ready (widgets' data-state, or the reference page's
# own mark).
OBSERVER = """
(() => {
  const marks = (window.__bench = {});
  const chartFrame = () => {
    const svg = document.querySelector("figure.sim-chart svg, .bench-chart svg");
    const box = svg && svg.getBoundingClientRect();
    if (box && box.width > 0 && box.height > 0) marks.chart = performance.now();
    else requestAnimationFrame(chartFrame);
  };
  requestAnimationFrame(chartFrame);
  const settle = () => {
    const sims = [...document.querySelectorAll("[data-sim]")];
    if (!sims.length || marks.ready !== undefined) return;
    const states = sims.map((element) => element.dataset.state);
    if (states.includes("error")) marks.error = states.join(",");
    if (states.every((state) => state === "ready" || state === "error")) {
      marks.ready = performance.now();
      const wanted = performance.getEntriesByName("ridgepoint:python-requested")[0];
      marks.wanted = wanted ? wanted.startTime : 0;
    }
  };
  new MutationObserver(settle).observe(document, {
    subtree: true, attributes: true, attributeFilter: ["data-state"],
  });
})();
"""

REFERENCE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Reference: Pyodide on the main thread</title>
<link rel="icon" href="data:,"></head>
<body><main><div class="bench-chart"></div></main>
<script type="module">
import {{ loadPyodide }} from "./pyodide/pyodide.mjs";
const MODULE = {module};
const FILES = {files};
const home = "/home/pyodide/ridgepoint";
const pyodide = await loadPyodide({{
  indexURL: new URL("pyodide/", location.href).href, packages: [],
}});
pyodide.FS.mkdirTree(home + "/sims");
await Promise.all(FILES.map(async (file) => {{
  const text = await (await fetch(new URL("../assets/sims/" + file, location.href))).text();
  const path = home + "/sims/" + file;
  pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
  pyodide.FS.writeFile(path, text);
}}));
pyodide.runPython(`import sys; sys.path.insert(0, "${{home}}")`);
const answer = JSON.parse(pyodide.pyimport("sims.kit.runner").run(MODULE, "{{}}"));
window.__bench.ready = performance.now();
window.__bench.wanted = 0;
await import("../assets/vendor/vega.min.js");
await import("../assets/vendor/vega-lite.min.js");
const spec = answer.result.charts[0];
const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), {{
  renderer: "svg", container: document.querySelector(".bench-chart"),
}});
await view.runAsync();
</script></body></html>
"""


# What a plain Pyodide page serves: the npm package's files as they are.
REFERENCE_PYODIDE = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                     "pyodide-lock.json")


@dataclass
class Load:
    """One page load."""

    chart_ms: float
    ready_ms: float
    wanted_ms: float  # when the page asked for Python (0: at navigation)
    longest_task_ms: float  # wall time: what a reader's input waits for (nan: not traced)
    longest_task_cpu_ms: float  # the main thread's CPU time within that task
    bytes: int
    python_bytes: int  # the part of `bytes` that is Python (transfer.PYTHON)
    python_start: str  # "snapshot", "fresh" (with its reason) or "main thread"
    controlled: bool  # the site's service worker answered this page's requests
    waterfall: dict[str, float] = field(default_factory=dict)  # step -> ms from navigation


def write_reference_page(site: Path, module: str, layout: Layout) -> str:
    """Write the reference page for `module` into the built site, with its own copy of
    Pyodide's npm files; its path under the site."""
    folder = site / REFERENCE_DIR
    (folder / "pyodide").mkdir(parents=True, exist_ok=True)
    for name in REFERENCE_PYODIDE:
        shutil.copyfile(layout.node_modules / "pyodide" / name, folder / "pyodide" / name)
    page = REFERENCE_PAGE.format(module=json.dumps(module),
                                 files=json.dumps(SimSource.read(layout.sims).files_of(module)))
    (folder / "index.html").write_text(page, encoding="utf-8")
    return f"{REFERENCE_DIR}/"


def _python_start(page: Page) -> str:
    for worker in page.workers:
        start = worker.evaluate("self.ridgepoint ? self.ridgepoint.start : null")
        if start:
            return start["via"] if start["via"] == "snapshot" else f"fresh ({start['reason']})"
    return "main thread"


@dataclass
class Timing:
    """What an untraced visit measures: all of a Load but its longest task."""

    chart_ms: float
    ready_ms: float
    wanted_ms: float
    bytes: int
    python_bytes: int
    python_start: str
    controlled: bool
    waterfall: dict[str, float] = field(default_factory=dict)


# The path to Python ready, each step in ms from navigation start: the page's marks, and
# from Python's worker (its clock starts when it was made) when each of its files arrived
# and each step of its start ended (pyodide_start.js, startInfo.marks).
WORKER_STEPS = """() => {
  const shift = self.ridgepoint.start.marks.origin;
  const steps = { "worker made": 0 };
  for (const entry of performance.getEntriesByType("resource")) {
    const name = new URL(entry.name).pathname.split("/").pop();
    steps[`${name} fetched`] = entry.responseEnd;
  }
  for (const [step, at] of Object.entries(self.ridgepoint.start.marks)) {
    if (step !== "origin") steps[step] = at;
  }
  return { shift, steps };
}"""

PAGE_STEPS = """() => {
  const navigation = performance.getEntriesByType("navigation")[0];
  const steps = { "DOMContentLoaded": navigation.domContentLoadedEventStart,
                  "HTML fetched": navigation.responseEnd };
  for (const entry of performance.getEntriesByType("resource")) {
    const name = new URL(entry.name).pathname.split("/").pop();
    if (name === "widget.js" || name === "worker.js") steps[`${name} fetched`] = entry.responseEnd;
  }
  return { origin: performance.timeOrigin, steps };
}"""


def waterfall(page: Page, marks: dict[str, float]) -> dict[str, float]:
    """When each step of the way to Python ready ended, in ms from navigation start."""
    seen = page.evaluate(PAGE_STEPS)
    steps = {"Python wanted": marks["wanted"], **seen["steps"], "Python ready": marks["ready"]}
    for worker in page.workers:
        if not worker.evaluate("Boolean(self.ridgepoint && self.ridgepoint.start)"):
            continue
        found = worker.evaluate(WORKER_STEPS)
        offset = found["shift"] - seen["origin"]
        steps.update({f"worker: {step}": offset + at for step, at in found["steps"].items()})
    return dict(sorted(steps.items(), key=lambda item: item[1]))


def _opened(page: Page, url: str) -> dict[str, float]:
    """Open `url` in `page`, wait until its first chart is up and Python is ready, then
    for the tail of the load; the page's marks (OBSERVER)."""
    page.goto(url, wait_until="commit")
    wait_until(page, "() => window.__bench && window.__bench.ready !== undefined"
                     " && window.__bench.chart !== undefined")
    page.wait_for_timeout(200)  # let the tail of the load (last paints, idle tasks) finish
    marks = page.evaluate("window.__bench")
    if "error" in marks:
        raise RuntimeError(f"{url}: a sim ended in error ({marks['error']})")
    return marks


def timed(page: Page, url: str, ledger: Ledger) -> Timing:
    """A visit's times and the bytes it was sent."""
    page.add_init_script(OBSERVER)
    ledger.take()
    marks = _opened(page, url)
    sent = ledger.take()
    controlled = page.evaluate("Boolean(navigator.serviceWorker?.controller)")
    return Timing(marks["chart"], marks["ready"], marks["wanted"],
                  sum(item.size for item in sent), python_bytes(sent), _python_start(page),
                  controlled, waterfall(page, marks) if page.workers else {})


def traced(page: Page, url: str) -> LongestTask:
    """A visit's longest main-thread task, from Chromium's trace of it."""
    page.add_init_script(OBSERVER)
    trace = MainThreadTrace(page)
    _opened(page, url)
    return trace.stop(page)


# After a first visit the site's service worker (if the page registers one) installs: it
# copies the runtime into its cache. A reader's second visit comes later; measured at once,
# it would share the machine with that install. So the bench waits for it to finish.
SETTLED = """async () => {
  if (!navigator.serviceWorker) return "none";
  for (let i = 0; i < 40 && !(await navigator.serviceWorker.getRegistration()); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!(await navigator.serviceWorker.getRegistration())) return "none";
  const waited = new Promise((resolve) => setTimeout(() => resolve("not installed"), 60000));
  return await Promise.race([navigator.serviceWorker.ready.then(() => "installed"), waited]);
}"""


def _visits(playwright: Playwright, visit: Callable[[Page], T], service_workers: str = "allow"
            ) -> tuple[T, T]:
    """`visit` measured on a fresh profile's first visit (cold), then its second (warm)."""
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as folder, \
            profile(playwright, Path(folder), service_workers=service_workers) as context:
        page = context.new_page()
        cold = visit(page)
        page.evaluate(SETTLED)
        page.close()
        page = context.new_page()
        warm = visit(page)
        page.close()
        return cold, warm


def untraced(playwright: Playwright, url: str, ledger: Ledger, service_workers: str
             ) -> tuple[Load, Load]:
    """A reader's cold and warm visits, times and bytes only (no longest task), with
    service workers allowed or blocked."""
    timings = _visits(playwright, lambda page: timed(page, url, ledger), service_workers)
    cold, warm = (Load(t.chart_ms, t.ready_ms, t.wanted_ms, math.nan, math.nan, t.bytes,
                       t.python_bytes, t.python_start, t.controlled, t.waterfall)
                  for t in timings)
    return cold, warm


def cold_and_warm(playwright: Playwright, url: str, ledger: Ledger) -> tuple[Load, Load]:
    """A cold and a warm visit: times and bytes from a reader's two visits, the longest task
    from two more made under Chromium's tracer (each pair in a fresh profile).

    The tracer's own work slows a page down, and a page with a busy worker far more than one
    busy main thread: on this machine (quiet) the explainer's Python was ready in about 750 ms
    warm untraced and 1,010 ms traced, the reference's in 2,330 and 2,530 ms. So a traced
    visit would bias every ratio to the reference; only the longest task needs the trace."""
    timings = _visits(playwright, lambda page: timed(page, url, ledger))
    tasks = _visits(playwright, lambda page: traced(page, url))
    cold, warm = (
        Load(timing.chart_ms, timing.ready_ms, timing.wanted_ms, task.wall_ms, task.cpu_ms,
             timing.bytes, timing.python_bytes, timing.python_start, timing.controlled,
             timing.waterfall)
        for timing, task in zip(timings, tasks, strict=True)
    )
    return cold, warm
