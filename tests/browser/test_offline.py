"""Offline after one visit: the service worker (content/sw.js) in Chromium, server stopped.

Each test has a fresh profile with service workers allowed (the shared browser blocks
them) and a server of its own over a copy of the built site, so it can stop the server,
deploy another release into the copy and start the server again on the same origin.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, Playwright, expect
from playwright.sync_api import Error as PlaywrightError

import sims
from ridgepoint.finishing.offline import stamp_service_worker
from ridgepoint.sims.display import display
from tests.browser.conftest import READY_MS, SearchParts, launch, serve
from tests.repo import LAYOUT

PAGE = "explainers/batching/"
SIM = '[data-sim="batching"]'
BATCH_BOX = "#sim-batching-batch_size + input.sim-value"
UNBUILT_WORKER = LAYOUT.content / "sw.js"

pytestmark = pytest.mark.browser
EVERY_BUILDER = True  # each test that uses the built site runs on each builder's (conftest)


class Host:
    """A copy of the built site on one origin, which a test can stop, change and restart."""

    def __init__(self, site: Path) -> None:
        self.site = site
        self.port = 0
        self.url = ""
        self._running: contextlib.ExitStack | None = None

    def start(self) -> None:
        stack = contextlib.ExitStack()
        self.url, server = stack.enter_context(serve(self.site, self.port))
        self.port = server.server_address[1]
        self._running = stack

    def stop(self) -> None:
        assert self._running is not None
        self._running.close()
        self._running = None

    def release_id(self) -> str:
        text = (self.site / "sw.js").read_text(encoding="utf-8")
        return json.loads(re.search(r"const RELEASE = (\{.*?\});\n", text).group(1))["id"]

    def cache_name(self) -> str:
        """The name content/sw.js gives the current release's cache."""
        return f"ridgepoint:{urllib.parse.urlsplit(self.url).path}:{self.release_id()}"


@pytest.fixture
def host(built_site: Path, tmp_path: Path) -> Iterator[Host]:
    site = tmp_path / "served" / built_site.name
    shutil.copytree(built_site, site, ignore=shutil.ignore_patterns("test-*"))
    # Files last modified a day ago stay fresh in the browser's HTTP cache for hours
    # (heuristic freshness), as caching headers from a real host would keep them: the
    # worker must not take such a copy of an old release for the server's.
    day_ago = os.path.getmtime(site) - 86_400
    for path in site.rglob("*"):
        os.utime(path, (day_ago, day_ago))
    running = Host(site)
    running.start()
    yield running
    if running._running is not None:
        running.stop()


@pytest.fixture
def browser(playwright: Playwright, tmp_path: Path) -> Iterator[BrowserContext]:
    context = launch(playwright, tmp_path / "profile", service_workers="allow")
    yield context
    context.close()


def expected(**inputs: object) -> list[str]:
    return [display(v) for v in sims.load("batching").simulate(**inputs)["summary"].values()]


def wait_ready(page: Page) -> None:
    expect(page.locator(SIM)).to_have_attribute("data-state", "ready", timeout=READY_MS)


def try_input(page: Page, batch_size: int) -> None:
    """Python answers a change: the live summary is CPython's for the new input."""
    page.fill(BATCH_BOX, str(batch_size))
    expect(page.locator(f"{SIM} table.sim-summary td")).to_have_text(
        expected(batch_size=batch_size), timeout=15_000)
    expect(page.locator(f"{SIM} .sim-chart-live canvas")).to_have_count(2)


def caches(page: Page, scope: str) -> dict[str, list[str]]:
    """Cache name -> the paths it holds, relative to the site at `scope`."""
    return page.evaluate("""async (scope) => {
        const out = {};
        for (const name of await caches.keys()) {
            const keys = await (await caches.open(name)).keys();
            out[name] = keys.map((request) => request.url.slice(scope.length));
        }
        return out;
    }""", scope)


def eventually(page: Page, check: Callable[[], bool], timeout_ms: int = 60_000) -> None:
    for _ in range(timeout_ms // 200):
        if check():
            return
        page.wait_for_timeout(200)
    assert check()


def visit_and_wait_for_the_worker(page: Page, url: str) -> None:
    page.goto(url)
    wait_ready(page)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")  # installed: all cached
    eventually(page, lambda: page.evaluate("Boolean(navigator.serviceWorker.controller)"))


def test_a_visited_explainer_its_sim_and_search_work_offline(
    host: Host, browser: BrowserContext, search: SearchParts
) -> None:
    page = browser.new_page()
    visit_and_wait_for_the_worker(page, host.url + PAGE)
    (name, held), = caches(page, host.url).items()
    assert name == host.cache_name()
    assert PAGE in held  # the page visited before the worker existed
    for runtime in ("assets/pyodide/pyodide.asm.wasm", "assets/sim/worker.js",
                    "assets/sims/batching.py", "assets/vendor/vega.min.js", search.index):
        assert runtime in held

    host.stop()
    page.reload()
    wait_ready(page)  # Python started from the cache
    try_input(page, 6)
    with page.expect_download() as download:  # the toolbar's files are made on the device
        page.get_by_role("button", name="Chart 1 as PNG", exact=True).click()
    assert Path(download.value.path()).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    page.locator(search.box).click()  # the index and the search worker, from the cache
    expect(page.locator(search.query)).to_be_focused()
    page.keyboard.type("prefill")
    expect(page.locator(search.result).first).to_be_visible(timeout=15_000)
    page.keyboard.press("Escape")
    # A page never visited is not there, and the reader is told so.
    response = page.goto(host.url + "explainers/roofline/")
    assert response is not None and response.status == 503
    assert "You are offline" in page.inner_text("body")
    page.goto(host.url + PAGE + "?batching.batch_size=3")  # a visited page, any query
    wait_ready(page)
    expect(page.locator(f"{SIM} table.sim-summary td")).to_have_text(expected(batch_size=3))


def test_reading_a_page_without_a_sim_does_not_download_python(
    host: Host, browser: BrowserContext
) -> None:
    """The home page: the worker keeps the site's small files at once, Python only once a
    sim has used it (and then offline works as after any other first visit)."""
    page = browser.new_page()
    page.goto(host.url)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    (held,) = caches(page, host.url).values()
    assert "assets/vendor/vega.min.js" in held and "" in held  # the home page itself
    assert not [path for path in held if path.startswith("assets/pyodide/")]
    page.goto(host.url + PAGE)  # now under the worker: what Python fetches is kept as it goes
    wait_ready(page)
    eventually(page, lambda: "assets/pyodide/pyodide.asm.wasm" in caches(page, host.url)[
        host.cache_name()])
    host.stop()
    page.reload()
    wait_ready(page)
    try_input(page, 7)


def deploy_new_release(site: Path) -> str:
    """Change a page and a stylesheet, then give the worker its release the way the
    builder does. Returns the id of an element only the new page has, which only the new
    stylesheet styles (letter-spacing 3px)."""
    marker = "new-release-marker"
    page = site / PAGE / "index.html"
    page.write_text(page.read_text(encoding="utf-8").replace(
        "</body>", f"<p id='{marker}'>{marker}</p></body>"), encoding="utf-8")
    with (site / "assets" / "site.css").open("a", encoding="utf-8") as css:
        css.write(f"\n#{marker} {{ letter-spacing: 3px; }}\n")
    shutil.copy(UNBUILT_WORKER, site / "sw.js")
    stamp_service_worker(site)
    return marker


def test_a_new_release_replaces_the_old_cache(host: Host, browser: BrowserContext) -> None:
    page = browser.new_page()
    visit_and_wait_for_the_worker(page, host.url + PAGE)
    old = host.cache_name()
    host.stop()
    marker = deploy_new_release(host.site)
    new = host.cache_name()
    assert new != old
    host.start()

    # The new page, seen by the old worker: it gets the new stylesheet with it, not the old
    # cached one, and the old worker hands over to the new release's.
    page.reload()
    expect(page.locator(f"#{marker}")).to_have_css("letter-spacing", "3px")
    wait_ready(page)
    eventually(page, lambda: list(caches(page, host.url)) == [new])

    host.stop()  # offline again: the new release, whole
    page.reload()
    expect(page.locator(f"#{marker}")).to_have_css("letter-spacing", "3px")
    wait_ready(page)
    try_input(page, 5)


def test_a_new_release_installed_before_the_old_one_sees_it_still_takes_over(
    host: Host, browser: BrowserContext
) -> None:
    """The other order: the browser checks for updates (it does so on its own, every day and
    on navigations) and installs the new release while the old worker has not yet seen a
    page of it. The new worker then waits; once a page of the new deployment is open, the
    page asks it to take over, and it does, since the old release now knows it is superseded."""
    page = browser.new_page()
    visit_and_wait_for_the_worker(page, host.url + PAGE)
    host.stop()
    marker = deploy_new_release(host.site)
    new = host.cache_name()
    host.start()
    page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
    eventually(page, lambda: page.evaluate(
        "navigator.serviceWorker.getRegistration().then((r) => Boolean(r.waiting))"))

    page.reload()
    expect(page.locator(f"#{marker}")).to_have_css("letter-spacing", "3px")
    wait_ready(page)
    eventually(page, lambda: list(caches(page, host.url)) == [new])
    host.stop()  # offline: the new release, whole
    page.reload()
    expect(page.locator(f"#{marker}")).to_have_css("letter-spacing", "3px")
    wait_ready(page)
    try_input(page, 5)


def test_an_unbuilt_worker_removes_the_cache_and_steps_aside(
    host: Host, browser: BrowserContext
) -> None:
    """What `make serve` serves (sw.js without a release) undoes a built site's worker on
    the same origin, and then answers nothing, so live reload sees the server directly."""
    page = browser.new_page()
    visit_and_wait_for_the_worker(page, host.url + PAGE)
    shutil.copy(UNBUILT_WORKER, host.site / "sw.js")
    page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
    eventually(page, lambda: caches(page, host.url) == {})
    host.stop()
    # A page this browser never fetched (the built worker would answer "You are offline").
    with pytest.raises(PlaywrightError, match="ERR_CONNECTION_REFUSED"):
        page.goto(host.url + "explainers/roofline/")


def test_a_visited_plan_page_plans_offline(host: Host, browser: BrowserContext) -> None:
    """The planner (issue 41) works offline once visited: its page, its Python and the
    search's answer to a change all come from the device."""
    plan = '[data-sim="plan"]'
    page = browser.new_page()
    page.goto(host.url + "plan/")
    expect(page.locator(plan)).to_have_attribute("data-state", "ready", timeout=READY_MS)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    eventually(page, lambda: page.evaluate("Boolean(navigator.serviceWorker.controller)"))
    host.stop()
    page.reload()
    expect(page.locator(plan)).to_have_attribute("data-state", "ready", timeout=READY_MS)
    rate = 40
    page.fill("#sim-plan-rate + input.sim-value", str(rate))
    page.keyboard.press("Tab")
    searched = sims.load("plan").simulate(rate=rate)["summary"]
    assert searched["best_cost_per_hour"] != sims.load("plan").simulate()["summary"][
        "best_cost_per_hour"]  # the change shows in the figure checked
    cost = page.locator(f'{plan} tr[data-key="best_cost_per_hour"] td').first
    expect(cost).to_have_text(display(searched["best_cost_per_hour"]), timeout=15_000)
