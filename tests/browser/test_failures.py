"""Failure in the browser is visible and contained: a runtime that cannot start, a sim that
raises, a sim that never returns.

The faulty sim exists only in these tests: `page.route` serves a copy of the batching
explainer whose widget runs the module `faulty` (served the same way), which is batching
except that seed 13 raises and seed 14 loops forever, and a second, sound batching widget
below it sharing its worker. Nothing of it is in the built site.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Page, Route, Worker, expect

import sims
from ridgepoint.sims.blocks import SimBlock
from ridgepoint.sims.display import display
from ridgepoint.sims.simrun import SimRuns
from ridgepoint.sims.widget import widget_html
from sims.contract import defaults
from tests.browser.conftest import READY_MS
from tests.browser.sim_pages import EXPLAINERS, SIM_ARTICLE, wake_every_sim
from tests.repo import LAYOUT

FAULTY_PAGE = "explainers/faulty/"
SIM = '[data-sim="faulty"]'
SOUND = '[data-key="batching-2"]'  # the sound widget on the same page
SEED_BOX = "#sim-batching-seed + input.sim-value"
STATUS = f"{SIM} .sim-status-text"
LIVE = "Live: change any input and the results follow."
TIMEOUT_MS = 1500  # the widget's watchdog, shortened for the test
FAULTY_SOURCE = '''
"""Batching, with two planted faults (browser tests only)."""
from sims import batching


def simulate(**inputs):
    seed = str(inputs.get("seed"))
    if seed == "13":
        raise RuntimeError("a fault planted by the test")
    if seed == "14":
        while True:
            pass
    return batching.simulate(**inputs)
'''
_CONFIG = re.compile(
    r'(<script type="application/json" class="sim-config" data-sim-part="config">)(.*?)(</script>)')

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("path", [*EXPLAINERS, SIM_ARTICLE])
def test_a_blocked_runtime_leaves_the_prerendered_results_and_says_so(
    page: Page, base_url: str, path: str
) -> None:
    page.route("**/assets/pyodide/**", lambda route: route.fulfill(status=404))
    page.goto(base_url + path)
    wake_every_sim(page)
    sims_on_page = page.locator("[data-sim]")
    assert sims_on_page.count() > 0
    for index in range(sims_on_page.count()):
        sim = sims_on_page.nth(index)
        expect(sim).to_have_attribute("data-state", "error", timeout=READY_MS)
        expect(sim.locator(".sim-status-text")).to_contain_text(
            "The live version could not start")
        expect(sim.locator(".sim-status-text")).to_contain_text(
            "The results below were computed when this page was built")
        assert sim.locator("table.sim-summary tbody tr").count() > 0
        assert sim.locator("table.sim-summary td").first.inner_text().strip() != ""
        assert sim.locator("figure.sim-chart > svg").count() > 0
        for control in sim.locator("input, select").all():
            expect(control).to_be_disabled()


def test_a_policy_that_forbids_webassembly_is_named_not_waited_on(
    page: Page, base_url: str
) -> None:
    """A host whose headers leave out 'wasm-unsafe-eval' (Pyodide would wait forever). The
    page's header reaches its worker: workers start from a blob: URL and inherit the page's
    policy (overrides/partials/javascripts/host-policy.html)."""

    def strict_host(route: Route) -> None:
        real = route.fetch()
        headers = dict(real.headers)
        policy = headers["content-security-policy"]
        assert "'wasm-unsafe-eval'" in policy
        headers["content-security-policy"] = policy.replace(" 'wasm-unsafe-eval'", "")
        route.fulfill(response=real, headers=headers)

    page.route(base_url + "explainers/batching/", strict_host)
    page.goto(base_url + "explainers/batching/")
    sim = page.locator('[data-sim="batching"]')
    expect(sim).to_have_attribute("data-state", "error", timeout=READY_MS)
    expect(sim.locator(".sim-status-text")).to_contain_text(
        "Python could not start: this site's security policy does not allow WebAssembly")
    assert sim.locator("figure.sim-chart > svg").count() > 0


def faulty_page(built_site: Path) -> str:
    """The built batching explainer with its widget pointed at the module `faulty`."""
    built = (built_site / "explainers" / "batching" / "index.html").read_text(encoding="utf-8")

    def repoint(match: re.Match[str]) -> str:
        config = json.loads(match.group(2))
        assert config["module"] == "batching"
        config["module"] = "faulty"
        config["files"] = [*config["files"], "faulty.py"]
        text = json.dumps(config, separators=(",", ":")).replace("<", "\\u003c")
        return match.group(1) + text + match.group(3)

    document, count = _CONFIG.subn(repoint, built)
    assert count == 1 and document.count("</article>") == 1
    sound = widget_html(SimBlock("batching", ("seed",), defaults(sims.load("batching").INPUTS)),
                        "batching-2", SimRuns.of(LAYOUT), LAYOUT.charts)
    return document.replace('data-sim="batching"', 'data-sim="faulty"').replace(
        "</article>", f"{sound}</article>")


@dataclass
class SimWorkers:
    """The page's Python workers, as they start and end."""

    started: list[Worker] = field(default_factory=list)
    closed: list[Worker] = field(default_factory=list)

    def watch(self, worker: Worker) -> None:
        if worker.url.endswith("/assets/sim/worker.js"):
            self.started.append(worker)
            worker.on("close", lambda closed: self.closed.append(closed))


@pytest.fixture
def faulty(page: Page, base_url: str, built_site: Path) -> SimWorkers:
    """Opens the faulty page, with the page's Python workers watched."""
    document = faulty_page(built_site)
    page.route(base_url + FAULTY_PAGE,
               lambda route: route.fulfill(body=document, content_type="text/html"))
    page.route("**/assets/sims/faulty.py",
               lambda route: route.fulfill(body=FAULTY_SOURCE, content_type="text/x-python"))
    page.add_init_script(f"window.ridgepointRunTimeoutMs = {TIMEOUT_MS};")
    workers = SimWorkers()
    page.on("worker", workers.watch)
    page.goto(base_url + FAULTY_PAGE)
    wake_every_sim(page)
    for sim in (SIM, SOUND):
        expect(page.locator(sim)).to_have_attribute("data-state", "ready", timeout=READY_MS)
    return workers


def expect_summary(page: Page, sim: str = SIM, **inputs: object) -> None:
    """The table of `sim` shows CPython's summary for these batching inputs."""
    summary = sims.load("batching").simulate(**inputs)["summary"]
    expect(page.locator(f"{sim} table.sim-summary td")).to_have_text(
        [display(value) for value in summary.values()], timeout=15_000)


def expect_results(page: Page, **inputs: object) -> None:
    expect_summary(page, **inputs)
    expect(page.locator(STATUS)).to_have_text(LIVE)


def test_a_sim_that_raises_shows_the_error_and_keeps_working(
    page: Page, faulty: SimWorkers
) -> None:
    page.fill(SEED_BOX, "13")
    expect(page.locator(STATUS)).to_have_text(
        "The simulation failed on these inputs: RuntimeError: a fault planted by the test")
    expect(page.locator(f"{SIM} .sim-output")).to_have_attribute("data-stale", "true")
    page.fill(SEED_BOX, "5")
    expect_results(page, seed=5)
    assert len(faulty.started) == 1 and faulty.closed == []  # the same worker throughout


def test_a_sim_that_runs_too_long_is_stopped_and_a_new_worker_serves_the_next_run(
    page: Page, faulty: SimWorkers
) -> None:
    page.fill(SEED_BOX, "2")
    expect_results(page, seed=2)
    page.fill(SEED_BOX, "14")
    expect(page.locator(STATUS)).to_contain_text(
        f"The simulation ran for more than {TIMEOUT_MS / 1000} s on these inputs, so it was "
        "stopped.", timeout=15_000)
    # The stuck worker was ended and another started ...
    expect(page.locator(SEED_BOX)).to_be_enabled()
    for _ in range(50):
        if faulty.closed:
            break
        page.wait_for_timeout(100)
    assert len(faulty.started) == 2 and faulty.closed == faulty.started[:1]
    expect_summary(page, seed=2)  # the last results that finished stay
    page.fill(SEED_BOX, "6")  # ... and the new one runs the next input
    expect_results(page, seed=6)
    expect(page.locator(SIM)).to_have_attribute("data-state", "ready")
    # The other sim on the page carries on with the new worker too.
    page.fill("#sim-batching-2-seed + input.sim-value", "4")
    expect_summary(page, SOUND, seed=4)
    expect(page.locator(f"{SOUND} .sim-status-text")).to_have_text(LIVE)
    assert len(faulty.started) == 2
