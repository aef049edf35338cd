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
TRACE_CATEGORIES = ("toplevel,devtools.timeline,disabled-by-default-devtools.timeline,"
                    "blink.user_timing")
TASK_EVENTS = {"RunTask", "ThreadControllerImpl::RunTask"}
READY_TIMEOUT_MS = 120_000
POLL_MS = 20


@contextmanager
def profile(playwright: Playwright, folder: Path, service_workers: str = "allow"
            ) -> Iterator[BrowserContext]:
    """A browser with its own profile folder (fresh when the folder is new); service
    workers "allow"ed (a reader's browser) or "block"ed."""
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: install Debian's chromium")
    context = playwright.chromium.launch_persistent_context(
        str(folder), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
        viewport=VIEWPORT, service_workers=service_workers,
    )
    try:
        yield context
    finally:
        context.close()


def wait_until(page: Page, predicate: str, timeout_ms: int = READY_TIMEOUT_MS) -> None:
    """Poll a predicate (a JavaScript function) until it is true. Playwright's
    wait_for_function evaluates a string, which the site's CSP (no 'unsafe-eval') refuses;
    polling costs nothing the page measures, since its marks are taken by the page itself."""
    for _ in range(timeout_ms // POLL_MS):
        if page.evaluate(predicate):
            return
        page.wait_for_timeout(POLL_MS)
    raise TimeoutError(f"{page.url}: not done after {timeout_ms} ms: {predicate}")


class MainThreadTrace:
    """Chromium's trace of a page's renderer, reduced to its longest main-thread task.

    A long task is what freezes a page (input waits for it); the trace names every task,
    where the Long Tasks API only reports those over 50 ms.
    """

    def __init__(self, page: Page) -> None:
        self.session: CDPSession = page.context.new_cdp_session(page)
        self.events_seen: list[dict[str, Any]] = []
        self.session.on("Tracing.dataCollected",
                        lambda data: self.events_seen.extend(data["value"]))
        self.done = False
        self.session.on("Tracing.tracingComplete", self._complete)
        self.session.send("Tracing.start", {"categories": TRACE_CATEGORIES,
                                            "transferMode": "ReportEvents"})

    def _complete(self, _: object) -> None:
        self.done = True

    def events(self, page: Page) -> list[dict[str, Any]]:
        """Stop tracing; every event traced."""
        self.session.send("Tracing.end")
        for _ in range(200):
            if self.done:
                break
            page.wait_for_timeout(25)
        self.session.detach()
        return self.events_seen

    def stop(self, page: Page) -> LongestTask:
        """Stop tracing; the longest task on the page's main thread."""
        return longest_task(self.events(page))


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


def cpu_within(events: list[dict[str, Any]], label: str) -> tuple[float, float]:
    """The wall time between the page's marks `<label>:start` and `<label>:end`, and the
    CPU time its renderer's main thread and workers (Python's) had within it, in ms. A
    task straddling an edge counts for the share of it inside. On a machine with few cores
    and other work the two part: the rest of the wall time the threads waited for a core."""
    wall, threads = cpu_by_thread(events, label)
    return wall, threads["main"] + threads["worker"]


def cpu_by_thread(events: list[dict[str, Any]], label: str) -> tuple[float, dict[str, float]]:
    """cpu_within's wall time, and its CPU time apart: the renderer's main thread ("main":
    the page's JavaScript, style, layout and paint) and its workers ("worker": Python's
    run and its JSON), so that a slow change says which side to cut."""
    marks = {event["name"]: event for event in events if event.get("name", "").startswith(label)}
    start, end = marks[f"{label}:start"], marks[f"{label}:end"]
    low, high, pid = start["ts"], end["ts"], start["pid"]
    names = {(event["pid"], event["tid"]): event.get("args", {}).get("name", "")
             for event in events if event.get("ph") == "M" and event.get("name") == "thread_name"}
    kinds = {key: "main" if name == "CrRendererMain" else "worker"
             for key, name in names.items() if key[0] == pid
             and (name == "CrRendererMain" or name.startswith("DedicatedWorker"))}
    cpu = {"main": 0.0, "worker": 0.0}
    for thread, kind in kinds.items():
        tasks = sorted((event for event in events if event.get("ph") == "X"
                        and event.get("name") in TASK_EVENTS
                        and (event["pid"], event["tid"]) == thread), key=lambda e: e["ts"])
        reach = -1.0  # the end of the last outermost task: nested ones are inside it
        for task in tasks:
            begin, finish = task["ts"], task["ts"] + task.get("dur", 0)
            if begin < reach:
                continue
            reach = finish
            inside = min(finish, high) - max(begin, low)
            if inside > 0 and finish > begin:
                cpu[kind] += task.get("tdur", 0) * inside / (finish - begin)
    return (high - low) / 1000, {kind: value / 1000 for kind, value in cpu.items()}
