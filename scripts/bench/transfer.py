"""Bytes on the wire, as the bench's static server sent them (compressed as a host would).

A page is loaded in a fresh profile with service workers blocked (the site's worker, once
installed, copies the runtime into its cache: that is the offline feature's cost, not the
page's), and every response is counted by where it belongs:

- the Python runtime: assets/pyodide/ (Pyodide, its snapshot) and assets/sims/;
- the chart library: assets/vendor/, livechart.js and expressions.js, loaded only once
  interaction begins;
- the page itself: everything else (HTML, styles, scripts, fonts, search index).

"Before Python starts" is the page itself: what a reader waits for to see the prerendered
results. The chart library's size is measured by asking for its files directly.
"""

from __future__ import annotations

import gzip
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Playwright

from bench.chromium import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, wait_until
from bench.pageload import OBSERVER
from bench.server import Ledger, Sent, python_bytes

RUNTIME = ("/assets/pyodide/", "/assets/sims/")
# The page's own chart modules, loaded with the vendored chart library (widget.js, loadCharts).
CHART_MODULES = ("livechart.js", "expressions.js")
CHARTS = ("/assets/vendor/", *(f"/assets/sim/{name}" for name in CHART_MODULES))
SEARCH_INDEX = "search/search_index.json"


@dataclass
class PageBytes:
    """One page load's bytes by kind, and the largest responses of the page itself."""

    path: str
    page: int
    runtime: int
    charts: int
    python: int  # Python's files (server.PYTHON), whichever kind they count as
    largest: list[tuple[str, int]]


def kind(path: str) -> str:
    if any(part in path for part in RUNTIME):
        return "runtime"
    if any(part in path for part in CHARTS):
        return "charts"
    return "page"


def split(sent: list[Sent], base_path: str) -> tuple[dict[str, int], list[tuple[str, int]]]:
    totals = {"page": 0, "runtime": 0, "charts": 0}
    own: list[tuple[str, int]] = []
    for item in sent:
        totals[kind(item.path)] += item.size
        if kind(item.path) == "page":
            own.append((item.path.removeprefix(base_path), item.size))
    return totals, sorted(own, key=lambda entry: -entry[1])[:5]


SIMS_READY = ("() => [...document.querySelectorAll('[data-sim]')]"
              ".every((e) => e.dataset.state === 'ready')")
REFERENCE_READY = "() => window.__bench && window.__bench.ready !== undefined"


def load(playwright: Playwright, base: str, path: str, ledger: Ledger,
         ready: str | None) -> PageBytes:
    """Load `path` cold; count until the `ready` predicate holds (Python is live) or, with
    none, until the network is idle (a reader of the first screen)."""
    with tempfile.TemporaryDirectory(prefix="bench-bytes-") as folder:
        context = playwright.chromium.launch_persistent_context(
            folder, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport=VIEWPORT, service_workers="block")
        try:
            page = context.new_page()
            page.add_init_script(OBSERVER)
            ledger.take()
            page.goto(base + path, wait_until="networkidle")
            if ready:
                wait_until(page, ready)
            page.wait_for_timeout(300)
        finally:
            context.close()
    sent = ledger.take()
    totals, largest = split(sent, "/")
    return PageBytes(path, totals["page"], totals["runtime"], totals["charts"],
                     python_bytes(sent), largest)


def fetched_size(url: str) -> int:
    """Body bytes of one response with gzip accepted (what the chart library costs)."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request) as response:
        return len(response.read())


def chart_library(base: str, site: Path) -> int:
    files = [*sorted((site / "assets" / "vendor").glob("*.js")),
             *(site / "assets" / "sim" / name for name in CHART_MODULES)]
    return sum(fetched_size(base + path.relative_to(site).as_posix()) for path in files)


def gzipped(path: Path) -> int:
    """A file's size gzipped as the bench's server would send it."""
    return len(gzip.compress(path.read_bytes(), compresslevel=6, mtime=0))
