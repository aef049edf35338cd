"""Headless Chromium as the bench drives it: a persistent profile per "reader", no
background services (so every request is one the page made), and the main-thread trace.

Cold means a fresh profile; warm means a second visit in the same profile (HTTP cache and
Chromium's compiled-wasm cache filled by the first).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, CDPSession, Page, Playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 900}
TRACE_CATEGORIES = "toplevel,devtools.timeline,disabled-by-default-devtools.timeline"
TASK_EVENTS = {"RunTask", "ThreadControllerImpl::RunTask"}


@contextmanager
def profile(playwright: Playwright, folder: Path) -> Iterator[BrowserContext]:
    """A browser with its own profile folder (fresh when the folder is new)."""
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: install Debian's chromium")
    context = playwright.chromium.launch_persistent_context(
        str(folder), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
        viewport=VIEWPORT,
    )
    try:
        yield context
    finally:
        context.close()


class MainThreadTrace:
    """Chromium's trace of a page's renderer, reduced to its longest main-thread task.

    A long task is what freezes a page (input waits for it); the trace names every task,
    where the Long Tasks API only reports those over 50 ms.
    """

    def __init__(self, page: Page) -> None:
        self.session: CDPSession = page.context.new_cdp_session(page)
        self.events: list[dict[str, Any]] = []
        self.session.on("Tracing.dataCollected", lambda data: self.events.extend(data["value"]))
        self.done = False
        self.session.on("Tracing.tracingComplete", self._complete)
        self.session.send("Tracing.start", {"categories": TRACE_CATEGORIES,
                                            "transferMode": "ReportEvents"})

    def _complete(self, _: object) -> None:
        self.done = True

    def stop(self, page: Page) -> LongestTask:
        """Stop tracing; the longest task on the page's main thread."""
        self.session.send("Tracing.end")
        for _ in range(200):
            if self.done:
                break
            page.wait_for_timeout(25)
        self.session.detach()
        return longest_task(self.events)


@dataclass
class LongestTask:
    """A main-thread task's wall duration (what input waits for) and the CPU time the
    thread had during it. On a machine with few cores the two part when other threads
    (the Python worker, the browser's own processes) take the CPU away mid-task."""

    wall_ms: float
    cpu_ms: float


def longest_task(events: list[dict[str, Any]]) -> LongestTask:
    """The longest top-level task (by wall time) on any renderer main thread of a trace."""
    main_threads = {
        (event["pid"], event["tid"]) for event in events
        if event.get("ph") == "M" and event.get("name") == "thread_name"
        and event.get("args", {}).get("name") == "CrRendererMain"
    }
    tasks = [
        event for event in events
        if event.get("name") in TASK_EVENTS and event.get("ph") == "X"
        and (event["pid"], event["tid"]) in main_threads
    ]
    if not tasks:
        raise RuntimeError("the trace holds no main-thread task: " + json.dumps(events[:3]))
    longest = max(tasks, key=lambda event: event.get("dur", 0))
    return LongestTask(longest.get("dur", 0) / 1000, longest.get("tdur", 0) / 1000)
