"""A returning reader: the second visit is one the service worker controls, Python's files
come through it or straight from its cache, and Python starts from the snapshot as on a first visit
(issue 22; `make bench` times it against the same visit with service workers blocked)."""

from __future__ import annotations

import gzip
import json

import pytest
from playwright.sync_api import BrowserContext, Page, Worker

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


def returning(host: Host, browser: BrowserContext) -> tuple[Page, Worker]:  # noqa: F811
    """A second visit, after a first one the service worker installed on; Python started
    from the snapshot. The page and its Python worker."""
    first = browser.new_page()
    visit_and_wait_for_the_worker(first, host.url + PAGE)
    first.close()
    page = browser.new_page()
    page.goto(host.url + PAGE)
    wait_ready(page)
    python = next(worker for worker in page.workers if worker.url.endswith("/assets/sim/worker.js"))
    assert python.evaluate("self.ridgepoint.start.via") == "snapshot"
    return page, python


def test_a_returning_readers_visit_is_controlled_and_python_comes_through_the_worker(
    host: Host, browser: BrowserContext,  # noqa: F811 - the fixtures imported above
) -> None:
    page, python = returning(host, browser)
    assert page.evaluate("Boolean(navigator.serviceWorker.controller)")
    served = dict(python.evaluate(SERVED))
    assert {"snapshot.json", "pyodide.mjs", "pyodide.asm.mjs"} <= set(served)
    assert all(served.values()), f"not answered by the service worker: {served}"
    # What the build gzipped is read inflated from the worker's cache, not downloaded.
    manifest = json.loads((host.site / "assets" / "pyodide" / "snapshot.json").read_text())
    from_cache = python.evaluate("self.ridgepoint.start.fromCache")
    assert sorted(from_cache) == sorted(manifest["unpacked"])
    assert len(manifest["unpacked"]) == 3
    assert not set(manifest["unpacked"]) & set(served), "read from the cache: not fetched"


def test_a_returning_reader_on_a_slow_link_starts_from_the_snapshot_it_keeps(
    host: Host, browser: BrowserContext,  # noqa: F811 - the fixtures imported above
) -> None:
    """A slow link skips the snapshot's download (test_snapshot.py), not the copy the
    service worker keeps: reading that costs no bytes."""
    from tests.browser.test_snapshot import slow_link

    first = browser.new_page()
    visit_and_wait_for_the_worker(first, host.url + PAGE)
    first.close()
    page = browser.new_page()
    slow_link(page)
    page.goto(host.url + PAGE)
    wait_ready(page)
    python = next(worker for worker in page.workers if worker.url.endswith("/assets/sim/worker.js"))
    assert python.evaluate("self.navigator.connection.effectiveType") == "3g"
    start = python.evaluate("self.ridgepoint.start")
    assert start["via"] == "snapshot", start["reason"]
    manifest = json.loads((host.site / "assets" / "pyodide" / "snapshot.json").read_text())
    assert manifest["file"] in start["fromCache"]


INFLATED = """async ([folder, keys]) => {
    const out = {};
    for (const [name, hash] of Object.entries(keys)) {
        // Where Python's worker reads it: the cache, under the hash its manifest gives.
        const response = await caches.match(`${folder}${name}?unpacked=${hash}`);
        if (!response) continue;
        const start = new Uint8Array(await response.arrayBuffer()).slice(0, 4);
        out[name] = [response.headers.get("X-Ridgepoint-Unpacked"), [...start]];
    }
    return out;
}"""


def test_a_returning_reader_gets_the_packed_files_already_inflated(
    host: Host, browser: BrowserContext,  # noqa: F811 - the fixtures imported above
) -> None:
    """What the build gzipped (the wasm, the standard library, the snapshot) is kept inflated
    too, from the same checked bytes, so the second start does not inflate 20 MB again."""
    page, _ = returning(host, browser)
    folder = host.site / "assets" / "pyodide"
    names = ["pyodide.asm.wasm", *(path.name for path in folder.glob("snapshot-*.bin")),
             *(path.name for path in folder.glob("python_stdlib-*.zip.gz"))]
    assert len(names) == 3
    manifest = json.loads((folder / "snapshot.json").read_text())
    assert sorted(manifest["unpacked"]) == sorted(names)
    got = page.evaluate(INFLATED, [host.url + "assets/pyodide/", manifest["unpacked"]])
    for name in names:
        start = list(gzip.decompress((folder / name).read_bytes())[:4])
        assert got.get(name) == ["gzip", start], name
