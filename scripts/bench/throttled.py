"""Cold loads on a slow link (issue 40, point 5): the explainer going straight to its sim
against the plain Pyodide page, both under Chromium's network throttling.

On loopback bytes cost nothing, and the memory snapshot (which trades bytes for start-up)
always wins. On a real link its bytes can eat its head start, so each page is loaded cold
(a fresh profile: empty HTTP cache and compiled-wasm cache) through the bench's gzip host
with the page's network throttled over CDP (`Network.emulateNetworkConditions`, which
Chromium applies to the page's dedicated workers too: the Python worker's downloads are
slowed like the page's). Service workers are blocked: the site registers its worker only
once the sims have settled (offline.js), after Python is ready, so a reader's cold visit
is the same up to ready, and the worker's install stays out of the bytes.

The bytes are the browser's count (Resource Timing's transferSize: headers and the body as
sent, gzipped where the host gzips) of every response that had ended by Python ready, the
page's and its workers', the document included.

The bench's server speaks HTTP/1.1, so Chromium opens at most six connections to it and
many small files arrive in waves, a round trip each, where an HTTP/2 host would send them
on one connection: at Slow 4G (562.5 ms) that holds the explainer's module graph, and so
its worker's start, about 2.5 s, and the plain page's 30 sims files about 3 s.
"""

from __future__ import annotations

import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, Playwright

from bench import pageload
from bench.chromium import profile
from bench.report import Figure
from bench.server import Ledger
from bench.stats import median, ratio

# Chrome DevTools' own presets, as its network panel applies them: Fast4GConditions and
# Slow4GConditions in ChromeDevTools/devtools-frontend, front_end/core/sdk/NetworkManager.ts
# (Lighthouse's mobile throttling uses the same figures). "Slow 4G" was named "Fast 3G" until
# May 2024 (crbug.com/342406608). Throughput in bytes/s, latency (the added round trip) in ms.
PROFILES = {
    "Fast 4G": {"download": 9 * 1000 * 1000 / 8 * 0.9,  # 9 Mbit/s, derated to 0.9
                "upload": 1.5 * 1000 * 1000 / 8 * 0.9,
                "latency": 60 * 2.75},  # 60 ms RTT, times DevTools' 2.75: 165 ms
    "Slow 4G": {"download": 1.6 * 1000 * 1000 / 8 * 0.9,  # 1.6 Mbit/s
                "upload": 750 * 1000 / 8 * 0.9,
                "latency": 150 * 3.75},  # 562.5 ms
}
READY_RATIO = 1.0  # issue 40: cold Python ready beats the plain page on either link

# Every response the page and its workers have had, in ms from the page's navigation start.
RESPONSES = """() => [
  ...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource"),
].map((entry) => ({ path: new URL(entry.name).pathname, bytes: entry.transferSize,
                    start: entry.startTime, end: entry.responseEnd }))"""
ORIGIN = "() => performance.timeOrigin"


@dataclass
class Response:
    """One response as the browser had it: ms from the page's navigation start."""

    path: str
    bytes: int
    start: float
    end: float


@dataclass
class SlowLoad:
    """One cold visit on a throttled link."""

    ready_ms: float
    bytes_to_ready: int  # every response ended by Python ready (the browser's count)
    sent: int  # what the server sent in the visit, until its end (ready, first chart, tail)
    python_start: str
    responses: list[Response]


def responses(page: Page) -> list[Response]:
    """Every response the page and its workers had, on the page's clock."""
    found = [Response(**entry) for entry in page.evaluate(RESPONSES)]
    origin = page.evaluate(ORIGIN)
    for worker in page.workers:
        shift = worker.evaluate(ORIGIN) - origin
        found += [Response(entry["path"], entry["bytes"], entry["start"] + shift,
                           entry["end"] + shift) for entry in worker.evaluate(RESPONSES)]
    return sorted(found, key=lambda response: response.end)


def cold_visit(playwright: Playwright, url: str, ledger: Ledger, conditions: dict[str, float]
               ) -> SlowLoad:
    """A fresh profile's first visit of `url` with its network throttled to `conditions`."""
    with tempfile.TemporaryDirectory(prefix="bench-slow-") as folder, \
            profile(playwright, Path(folder), service_workers="block") as context:
        page = context.new_page()
        session = context.new_cdp_session(page)
        session.send("Network.enable")
        session.send("Network.emulateNetworkConditions", {
            "offline": False, "latency": conditions["latency"],
            "downloadThroughput": conditions["download"],
            "uploadThroughput": conditions["upload"]})
        timing = pageload.timed(page, url, ledger)
        had = responses(page)
        page.close()
    before = [response for response in had if response.end <= timing.ready_ms]
    return SlowLoad(timing.ready_ms, sum(response.bytes for response in before), timing.bytes,
                    timing.python_start, had)


def throttled_group(playwright: Playwright, base: str, ledger: Ledger, explainer: str,
                    reference: str, runs: int) -> tuple[list[Figure], dict[str, Any]]:
    """Each profile's cold Python ready and bytes, the explainer's and the plain page's,
    medians of `runs` visits interleaved (so both sides see the same machine)."""
    figures: list[Figure] = []
    details: dict[str, Any] = {}
    for name, conditions in PROFILES.items():
        loads: dict[str, list[SlowLoad]] = {explainer: [], reference: []}
        for _ in range(runs):
            for page in (explainer, reference):
                loads[page].append(cold_visit(playwright, base + page, ledger, conditions))
        figures += _figures(name, loads[explainer], loads[reference])
        details[name] = {"conditions": conditions,
                         **{side: [asdict(load) for load in loads[page]]
                            for side, page in (("explainer", explainer),
                                               ("plain page", reference))}}
    return figures, details


def _figures(name: str, ours: list[SlowLoad], theirs: list[SlowLoad]) -> list[Figure]:
    ready = median([load.ready_ms for load in ours]) / 1000
    plain = median([load.ready_ms for load in theirs]) / 1000
    ours_mb = median([load.bytes_to_ready for load in ours]) / 1e6
    theirs_mb = median([load.bytes_to_ready for load in theirs]) / 1e6
    runs = f"median of {len(ours)} cold visit(s)"
    return [
        Figure("slow link", f"Python ready, cold, {name}", ready, "s",
               note=f"the explainer straight to its sim, from navigation start; {runs}; "
                    f"started from {ours[0].python_start}"),
        Figure("slow link", f"Python ready, cold, plain page, {name}", plain, "s", note=runs),
        Figure("slow link", f"Python ready, cold / plain page, {name}", ratio(ready, plain),
               "", READY_RATIO, note="below 1: ours is live first"),
        Figure("slow link", f"bytes to Python ready, {name}", ours_mb, "MB",
               note=f"{_largest(ours)}; sent in the visit: "
                    f"{median([load.sent for load in ours]) / 1e6:.2f} MB"),
        Figure("slow link", f"bytes to Python ready, plain page, {name}", theirs_mb, "MB",
               note=f"{_largest(theirs)}; sent in the visit: "
                    f"{median([load.sent for load in theirs]) / 1e6:.2f} MB"),
        Figure("slow link", f"bytes to Python ready / plain page, {name}",
               ratio(ours_mb, theirs_mb), ""),
    ]


def _largest(loads: list[SlowLoad], count: int = 3) -> str:
    """The largest responses before Python ready of the visit with the median ready."""
    middle = sorted(loads, key=lambda load: load.ready_ms)[len(loads) // 2]
    before = sorted((response for response in middle.responses
                     if response.end <= middle.ready_ms), key=lambda r: -r.bytes)[:count]
    return ", ".join(f"{Path(r.path).name or r.path} {r.bytes / 1e6:.2f} MB" for r in before)
