"""A returning reader: the second visit is one the service worker controls, Python's files
come through it (from its cache), and Python starts from the snapshot as on a first visit
(issue 22; `make bench` times it against the same visit with service workers blocked)."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext

from tests.browser.test_offline import (  # noqa: F401 - fixtures, used by name
    PAGE,
    Host,
    browser,
    host,
    visit_and_wait_for_the_worker,
    wait_ready,
)

pytestmark = pytest.mark.browser

SERVED = """() => performance.getEntriesByType("resource")
    .filter((entry) => entry.name.includes("/assets/pyodide/"))
    .map((entry) => [entry.name.split("/").pop(), entry.workerStart > 0])"""


def test_a_returning_readers_visit_is_controlled_and_python_comes_through_the_worker(
    host: Host, browser: BrowserContext,  # noqa: F811 - the fixtures imported above
) -> None:
    first = browser.new_page()
    visit_and_wait_for_the_worker(first, host.url + PAGE)
    first.close()

    page = browser.new_page()
    page.goto(host.url + PAGE)
    wait_ready(page)
    assert page.evaluate("Boolean(navigator.serviceWorker.controller)")
    python = next(worker for worker in page.workers if worker.url.endswith("/assets/sim/worker.js"))
    assert python.evaluate("self.ridgepoint.start.via") == "snapshot"
    served = dict(python.evaluate(SERVED))
    assert {"snapshot.json", "pyodide.asm.wasm", "pyodide.asm.mjs"} <= set(served)
    assert all(served.values()), f"not answered by the service worker: {served}"
