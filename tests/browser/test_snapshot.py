"""Python starts from the build's memory snapshot, falls back to a normal start when the
snapshot cannot be used, draws fresh random numbers after every restore, and its files
travel gzipped from a host that compresses nothing."""

from __future__ import annotations

import gzip
import json
from fnmatch import fnmatch
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, Playwright, Response, Route, Worker, expect

import sims
from ridgepoint.sims.display import display
from tests.browser.conftest import READY_MS, Recorder, launch

PATH = "explainers/batching/"
SIM = '[data-sim="batching"]'

pytestmark = pytest.mark.browser


def open_ready(page: Page, url: str) -> Worker:
    """Open the page, wait for its sim to be ready; the page's Python worker."""
    page.goto(url)
    page.wait_for_selector(f'{SIM}:is([data-state="ready"], [data-state="error"])',
                           timeout=READY_MS)
    assert page.get_attribute(SIM, "data-state") == "ready", page.inner_text(f"{SIM} .sim-status")
    return next(w for w in page.workers if "/assets/sim/worker.js" in w.url)


def shown(page: Page) -> list[str]:
    return page.locator(f"{SIM} table.sim-summary td").all_text_contents()


def expected() -> list[str]:
    return [display(value) for value in sims.load("batching").simulate()["summary"].values()]


def test_python_starts_from_the_snapshot_with_the_sims_imported(
    page: Page, base_url: str, recorder: Recorder
) -> None:
    worker = open_ready(page, base_url + PATH)
    start = worker.evaluate("self.ridgepoint.start")
    assert start["via"] == "snapshot", start["reason"]
    assert {"sims.kit.runner", "sims.batching"} <= set(start["snapshotModules"])
    assert shown(page) == expected()
    fetched = [url for url in recorder.requests if "/assets/" in url]
    assert any("/assets/pyodide/snapshot-" in url for url in fetched)
    assert not any("/assets/sims/" in url for url in fetched)  # already in the snapshot


def _missing(route: Route) -> None:
    route.fulfill(status=404, body="not found")


def _damaged(built_site: Path):
    """The real snapshot cut short: its gzip trailer cannot be checked."""
    real = next((built_site / "assets" / "pyodide").glob("snapshot-*.bin")).read_bytes()
    return lambda route: route.fulfill(status=200, body=real[: len(real) // 2])


def _not_a_heap(route: Route) -> None:
    route.fulfill(status=200, body=gzip.compress(b"no heap here" * 1000))


def _sized_wrong(built_site: Path):
    """The real manifest, but with a heap a page larger than the snapshot's own header says:
    Pyodide is handed the heap's array before the download, sized from the manifest."""
    manifest = json.loads((built_site / "assets" / "pyodide" / "snapshot.json").read_text())
    body = json.dumps({**manifest, "size": manifest["size"] + 4096})
    return lambda route: route.fulfill(status=200, body=body, content_type="application/json")


@pytest.mark.parametrize(("case", "reason"), [
    ("missing", "could not download snapshot-"), ("damaged", ""),
    ("not a heap", "not in the expected format"), ("sized wrong", "does not match its manifest"),
])
def test_a_snapshot_that_cannot_be_used_falls_back_to_a_normal_start(
    page: Page, base_url: str, built_site: Path, case: str, reason: str
) -> None:
    if case == "sized wrong":
        page.route("**/assets/pyodide/snapshot.json", _sized_wrong(built_site))
    else:
        handler = {"missing": _missing, "damaged": _damaged(built_site),
                   "not a heap": _not_a_heap}[case]
        page.route("**/assets/pyodide/snapshot-*.bin", handler)
    worker = open_ready(page, base_url + PATH)
    start = worker.evaluate("self.ridgepoint.start")
    assert start["via"] == "fresh"
    assert start["reason"], "the worker should say why the snapshot was not used"
    assert reason in start["reason"], "the snapshot's own failure, not Pyodide's refusal of it"
    assert shown(page) == expected()
    page.fill("#sim-batching-batch_size + input.sim-value", "6")  # and it runs the sims
    values = sims.load("batching").simulate(batch_size=6)["summary"].values()
    expect(page.locator(f"{SIM} table.sim-summary td")).to_have_text(
        [display(value) for value in values], timeout=15_000)


# Round trips this long make Chromium rate the connection "3g" (its effectiveType, "3g" from
# about 270 ms), in the Python worker too; the bandwidth is left alone, so the test does not
# wait on bytes.
SLOW_ROUND_TRIP_MS = 400


def slow_link(page: Page) -> None:
    """Chromium's network emulation on this page and its workers: long round trips."""
    session = page.context.new_cdp_session(page)
    session.send("Network.enable")
    session.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": SLOW_ROUND_TRIP_MS,
        "downloadThroughput": -1, "uploadThroughput": -1})


def test_on_a_slow_link_python_starts_without_downloading_the_snapshot(
    page: Page, base_url: str, recorder: Recorder
) -> None:
    slow_link(page)
    worker = open_ready(page, base_url + PATH)
    assert worker.evaluate("self.navigator.connection.effectiveType") == "3g"
    start = worker.evaluate("self.ridgepoint.start")
    assert start["via"] == "fresh"
    assert "rates this connection 3g" in start["reason"], start["reason"]
    assert not any("/assets/pyodide/snapshot-" in url for url in recorder.requests)
    assert shown(page) == expected()


# A narrow link Chromium still rates 4g (short round trips): at 1.5 MB/s the snapshot's
# 4.5 MB would take 3 s, more than the 2 s it saves (pyodide_start.js SNAPSHOT_SAVES_S).
NARROW_BYTES_PER_S = 1_500_000


def test_on_a_narrow_link_rated_4g_python_starts_without_the_snapshot_and_fetches_its_sim_meanwhile(
    playwright: Playwright, base_url: str, tmp_path: Path
) -> None:
    """A first visit (its own fresh profile: the session's has the runtime cached, which
    arrives as fast as a link can be)."""
    context = launch(playwright, tmp_path / "profile")
    try:
        page = context.new_page()
        requests: list[str] = []
        context.on("request", lambda request: requests.append(request.url))
        session = context.new_cdp_session(page)
        session.send("Network.enable")
        session.send("Network.emulateNetworkConditions", {
            "offline": False, "latency": 20, "downloadThroughput": NARROW_BYTES_PER_S,
            "uploadThroughput": -1})
        worker = open_ready(page, base_url + PATH)
        assert worker.evaluate("self.navigator.connection.effectiveType") == "4g"
        start = worker.evaluate("self.ridgepoint.start")
        assert start["via"] == "fresh", start["reason"]
        assert "the runtime arrived at" in start["reason"], start["reason"]
        assert not any("/assets/pyodide/snapshot-" in url for url in requests)
        # The sim's files were asked for while the runtime downloaded, before Python started.
        asked = worker.evaluate("""performance.getEntriesByType("resource")
            .filter((entry) => entry.name.includes("/assets/sims/"))
            .map((entry) => entry.startTime)""")
        assert asked and max(asked) < start["marks"]["python"], (asked, start["marks"])
        assert shown(page) == expected()
    finally:
        context.close()


def test_small_wasm_wrappers_are_compiled_once_and_larger_modules_as_asked(
    page: Page, base_url: str
) -> None:
    worker = open_ready(page, base_url + PATH)
    same, apart, distinct = worker.evaluate("""() => {
        // Emscripten's wrapper of a JavaScript function of signature () -> i32, importing it
        // as e.f and exporting it as f; the larger module is a custom section of 300 bytes.
        const wrapper = () => new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1,
            127, 2, 7, 1, 1, 101, 1, 102, 0, 0, 7, 5, 1, 1, 102, 0, 0]);
        const larger = () => {
            const bytes = new Uint8Array(8 + 3 + 300);
            bytes.set([0, 97, 115, 109, 1, 0, 0, 0, 0, 172, 2]); // section 0, 300 bytes, no name
            return bytes;
        };
        const a = new WebAssembly.Module(wrapper()), b = new WebAssembly.Module(wrapper());
        const one = new WebAssembly.Instance(a, {e: {f: () => 1}}).exports.f;
        const two = new WebAssembly.Instance(b, {e: {f: () => 2}}).exports.f;
        return [a === b && a instanceof WebAssembly.Module,
                [one(), two()],
                new WebAssembly.Module(larger()) !== new WebAssembly.Module(larger())];
    }""")
    assert same, "one compiled module per distinct wrapper"
    assert apart == [1, 2], "each instance still calls its own function"
    assert distinct, "a module over the wrappers' size is compiled as asked"


def test_every_restore_draws_fresh_random_numbers(page: Page, base_url: str) -> None:
    draws = []
    for _ in range(2):
        worker = open_ready(page, base_url + PATH)
        assert worker.evaluate("self.ridgepoint.start.via") == "snapshot"
        draws.append(worker.evaluate(
            "async () => (await self.ridgepoint.python).runPython("
            "'import random; [random.random() for _ in range(3)]').toJs()"))
        page.goto("about:blank")  # the next visit restores the snapshot again
    assert draws[0] != draws[1], "a restored heap repeats its random state unless reseeded"


# What Python's start fetches, and nothing else: Pyodide's loaders, the wasm, the trimmed
# standard library and the snapshot (gzipped by the build), the manifest naming them.
PYTHON_FILES = {"worker.js", "pyodide_start.js", "unpack.js", "link.js", "pyodide.mjs",
                "pyodide.asm.mjs", "snapshot.json", "pyodide.asm.wasm", "snapshot-*.bin",
                "python_stdlib-*.zip.gz"}
GZIPPED = ("pyodide.asm.wasm", "snapshot-*.bin", "python_stdlib-*.zip.gz")


def test_python_s_big_files_travel_gzipped_from_a_host_that_compresses_nothing(
    page: Page, context: BrowserContext, base_url: str, built_site: Path
) -> None:
    """The test server, like a plain static host, compresses nothing: the wasm, the
    standard library and the snapshot still arrive gzipped, as the build wrote them, and
    Pyodide's whole standard library and lock file are never asked for."""
    responses: list[Response] = []

    def keep(response: Response) -> None:
        responses.append(response)

    context.on("response", keep)
    try:
        open_ready(page, base_url + PATH)
    finally:
        context.remove_listener("response", keep)
    python = [r for r in responses if "/assets/pyodide/" in r.url
              or r.url.endswith(("/assets/sim/worker.js", "/assets/sim/pyodide_start.js",
                                 "/assets/sim/unpack.js", "/assets/sim/link.js"))]
    names = {r.url.rsplit("/", 1)[1] for r in python}
    assert {next((p for p in PYTHON_FILES if fnmatch(name, p)), name) for name in names} \
        == PYTHON_FILES
    staged = built_site / "assets" / "pyodide"
    for response in python:
        name = response.url.rsplit("/", 1)[1]
        assert "content-encoding" not in response.headers, name
        if any(fnmatch(name, pattern) for pattern in GZIPPED):
            body = response.body()
            assert body[:2] == b"\x1f\x8b" and body == (staged / name).read_bytes(), name
            assert len(gzip.decompress(body)) > 2 * len(body), name
