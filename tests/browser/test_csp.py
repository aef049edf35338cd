"""The Content Security Policy in force: every sim page runs without a single violation, and
what the policy exists to stop (an inline script nobody hashed, eval) is refused.

The policy reaches a page twice here: as the <meta> the build put in it, and as the header
the test server sends from the build's `_headers`. The page's workers inherit it (they start
from blob: URLs); tests/browser/test_host_policy.py checks a host that sends no headers.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import ConsoleMessage, Page, Route, expect

from tests.browser.conftest import READY_MS, Recorder, SearchParts
from tests.browser.sim_pages import EXPLAINERS, SIM_ARTICLE, wake_every_sim

INJECTED = "explainers/csp-injected/"  # served by page.route from a copy of a real page
CSP_WORDS = ("Content Security Policy", "Content-Security-Policy", "Refused to")

# Recorded from the first script on: every violation the document reports.
RECORD_VIOLATIONS = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.cspViolations.push({directive: event.effectiveDirective, blocked: event.blockedURI,
                             source: event.sourceFile, sample: event.sample});
});
"""

# A same-origin script file (allowed) that tries what 'unsafe-eval' would allow.
PROBE = """
window.probe = {};
for (const [name, attempt] of Object.entries({
  eval: () => eval("1 + 1"),
  Function: () => new Function("return 1")(),
  setTimeoutString: () => setTimeout("window.probe.timerRan = true", 0),
})) {
  try { attempt(); window.probe[name] = "ran"; } catch (error) { window.probe[name] = error.name; }
}
"""

pytestmark = pytest.mark.browser
EVERY_BUILDER = True  # each test that uses the built site runs on each builder's (conftest)


def csp_console(messages: list[ConsoleMessage]) -> list[str]:
    return [m.text for m in messages if any(word in m.text for word in CSP_WORDS)]


def wait_for_sims(page: Page) -> None:
    sims = page.locator("[data-sim]")
    assert sims.count() > 0, f"{page.url} has no sim"
    wake_every_sim(page)
    for index in range(sims.count()):
        sim = sims.nth(index)
        expect(sim).to_have_attribute("data-state", "ready", timeout=READY_MS)


def change_an_input(page: Page) -> None:
    """Move the first sim's first slider one step (back, if it is at its maximum) and wait
    for the live charts: the chart library is loaded and draws under the policy."""
    sim = page.locator("[data-sim]").first
    slider = sim.locator('input[type="range"]').first
    at_max = slider.evaluate("s => s.value === s.max")
    slider.focus()
    page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
    expect(sim.locator(".sim-chart-live canvas").first).to_be_visible(timeout=15_000)
    expect(sim.locator(".sim-status-text")).to_have_text(
        "Live: change any input and the results follow.")


@pytest.mark.parametrize("path", [*EXPLAINERS, SIM_ARTICLE])
def test_sim_pages_run_without_a_policy_violation(
    page: Page, base_url: str, recorder: Recorder, path: str
) -> None:
    messages: list[ConsoleMessage] = []
    page.on("console", lambda message: messages.append(message))
    page.add_init_script(RECORD_VIOLATIONS)
    response = page.goto(base_url + path)
    assert response is not None and "script-src" in response.headers["content-security-policy"]
    assert page.locator('meta[http-equiv="Content-Security-Policy"]').count() == 1
    wait_for_sims(page)
    change_an_input(page)
    assert page.evaluate("window.cspViolations") == []
    assert csp_console(messages) == []
    assert recorder.errors == []


def test_the_theme_runs_without_a_policy_violation(
    page: Page, base_url: str, recorder: Recorder, search: SearchParts
) -> None:
    """The theme's own scripts: the colour scheme toggle, search (a worker; Zensical's adds
    a <style> as it opens), a tooltip."""
    messages: list[ConsoleMessage] = []
    page.on("console", lambda message: messages.append(message))
    page.add_init_script(RECORD_VIOLATIONS)
    page.goto(base_url + "explainers/chunked-prefill/")  # it links glossary terms
    scheme = page.evaluate("document.body.dataset.mdColorScheme")
    page.locator("form[data-rp-palette] label:visible").first.click()
    expect(page.locator("body")).not_to_have_attribute("data-md-color-scheme", scheme)
    page.keyboard.press("/")
    expect(page.locator(search.query)).to_be_focused()
    page.keyboard.type("batch")
    expect(page.locator(search.result).first).to_be_visible(timeout=15_000)
    page.keyboard.press("Escape")
    glossary_link = page.locator("article a[href*='glossary/#']").first
    glossary_link.hover()
    expect(page.locator(".md-tooltip2--active")).to_be_visible()
    wait_for_sims(page)
    assert page.evaluate("window.cspViolations") == []
    assert csp_console(messages) == []
    assert recorder.errors == []


def injected_page(built_site: Path) -> str:
    """The batching explainer as built (its policy and hashes untouched) with what an
    attacker or a careless edit would add: an inline script, an inline event handler, and
    a script file that tries eval."""
    built = (built_site / "explainers" / "batching" / "index.html").read_text(encoding="utf-8")
    added = ('<script>window.injectedRan = "inline script ran";</script>'
             '<button id="injected" onclick="window.injectedRan = \'handler ran\'">x</button>'
             '<script src="probe.js"></script></body>')
    assert built.count("</body>") == 1
    return built.replace("</body>", added)


def test_an_inline_script_without_a_hash_is_refused(
    page: Page, base_url: str, built_site: Path
) -> None:
    """Served with the page's own <meta> policy only (no header): what a static host
    without `_headers` gives a reader."""
    document = injected_page(built_site)

    def fulfil(route: Route) -> None:
        if route.request.url.endswith("probe.js"):
            route.fulfill(body=PROBE, content_type="text/javascript")
        else:
            route.fulfill(body=document, content_type="text/html; charset=utf-8")

    page.route(f"{base_url}{INJECTED}**", fulfil)
    page.add_init_script(RECORD_VIOLATIONS)
    page.goto(base_url + INJECTED)
    page.click("#injected")
    wait_for_sims(page)  # the page itself still works
    assert page.evaluate("window.injectedRan") is None
    assert page.evaluate("typeof __md_scope") == "object"  # the theme's hashed scripts ran
    probe = page.evaluate("window.probe")
    assert probe["eval"] == "EvalError" and probe["Function"] == "EvalError"
    assert "timerRan" not in probe
    refused = {(v["directive"], v["blocked"]) for v in page.evaluate("window.cspViolations")}
    assert {("script-src-elem", "inline"), ("script-src-attr", "inline"),
            ("script-src", "eval")} <= refused


def test_a_worker_the_page_starts_runs_under_its_policy(page: Page, base_url: str) -> None:
    """A worker started by the page (from a blob: URL, which inherits the page's policy):
    eval refused there too. The probe is served in place of a real worker file."""
    worker_url = base_url + "assets/sim/worker.js?probe"

    def probe_worker(route: Route) -> None:
        real = route.fetch()
        body = PROBE.replace("window.", "self.") + "postMessage(self.probe);"
        route.fulfill(response=real, body=body)

    page.route(worker_url, probe_worker)
    page.goto(base_url + "explainers/")
    probe = page.evaluate("""(url) => new Promise((resolve) => {
        const worker = new Worker(url, { type: "module" });
        worker.onmessage = (event) => resolve(event.data);
    })""", worker_url)
    assert probe["eval"] == "EvalError" and probe["Function"] == "EvalError"
