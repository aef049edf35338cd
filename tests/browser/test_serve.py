"""`make serve` in Chromium, on a copy of the repository: a saved sim shows its new default
and its new logic on the page (and a later build agrees: the caches were not poisoned),
saves in a row each reload the page by themselves, and a rejected save shows its errors on
the page, accessibly and within the site's Content Security Policy, until a save fixes them.
A built site has no such banner."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, Playwright, Route
from playwright.sync_api import Error as PlaywrightError

from bench.reload import edits, prepare, serving
from ridgepoint import adapters
from ridgepoint.base.layout import Layout
from ridgepoint.finishing.csp import policy, scan, source_hash
from ridgepoint.serve.zensical_serve import served_folder
from ridgepoint.sims.display import display
from tests.browser.conftest import launch
from tests.browser.test_a11y import AXE, BLOCKING, SCHEMES
from tests.browser.test_csp import RECORD_VIOLATIONS
from tests.pipeline.test_stale_code import DEFAULT, LOGIC, control_value, edit, summary_value
from tests.pipeline.test_stale_code import native as run_natively
from tests.repo import LAYOUT

pytestmark = pytest.mark.browser

SHOWN_S = 90  # generous: the machine is shared; no test asserts a time
SAVES = 5  # saves in a row of one file, each to be shown by live reload alone
BANNER = "#rp-serve-errors"


@pytest.fixture(scope="module", params=adapters.names())
def serve_builder(request: pytest.FixtureRequest) -> str:
    """Each builder's `make serve`, on a copy of its own."""
    return str(request.param)


@pytest.fixture(scope="module")
def tree(serve_builder: str, tmp_path_factory: pytest.TempPathFactory) -> Layout:
    return prepare(LAYOUT, tmp_path_factory.mktemp(f"serve-{serve_builder}"), 1)


@pytest.fixture(scope="module")
def served(tree: Layout, serve_builder: str) -> Iterator[str]:
    with serving(tree, serve_builder) as base:
        yield base


def with_site_policy(route: Route, runtime_styles: tuple[str, ...] = ()) -> None:
    """Every page as a static host would send it: with the Content Security Policy the
    build would give it (its inline scripts, here the server's live reload, and the styles
    the theme's scripts add, by hash). Python's runtime is not fetched: these pages need
    only their prerendered results."""
    if "/assets/pyodide/" in route.request.url:
        route.abort()
        return
    try:
        response = route.fetch()
    except PlaywrightError:  # a request of a closed tab, after its server stopped
        route.abort()
        return
    headers = dict(response.headers)
    if headers.get("content-type", "").startswith("text/html"):
        found = scan(response.text())
        headers["content-security-policy"] = policy(
            [source_hash(text) for text in found.scripts],
            [source_hash(text) for text in (*found.styles, *runtime_styles)])
    route.fulfill(response=response, headers=headers)


@pytest.fixture(scope="module")
def context(playwright: Playwright, tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[BrowserContext]:
    """This module's browser. Zensical's live reload is a WebSocket: from a page that
    page.route fulfilled (which has no address of its own, so counts as public) Chromium
    refuses a socket to this machine (its Local Network Access checks). The same page loaded
    straight from the server opens it; the checks are off here for the routed pages only."""
    browser = launch(playwright, tmp_path_factory.mktemp("serve-profile"),
                     "--disable-features=LocalNetworkAccessChecks")
    yield browser
    browser.close()


@pytest.fixture
def tab(context: BrowserContext, served: str, tree: Layout, serve_builder: str
        ) -> Iterator[Page]:
    styles = () if serve_builder == "mkdocs" else \
        adapters.named(serve_builder).runtime_styles(served_folder(tree))
    opened = context.new_page()
    opened.add_init_script(RECORD_VIOLATIONS)
    opened.route("**/*", lambda route: with_site_policy(route, styles))
    yield opened
    opened.close()


def eventually(page: Page, check: Callable[[], bool], what: str) -> None:
    """Wait until `check()` holds (the page reloads in between, so a check may fail while
    the new document loads)."""
    start = time.monotonic()
    while time.monotonic() < start + SHOWN_S:
        try:
            if check():
                return
        except Exception:  # noqa: BLE001 - the document is being replaced
            pass
        page.wait_for_timeout(50)
    raise AssertionError(f"never happened within {SHOWN_S} s: {what}")


def native(tree: Layout) -> dict:
    return run_natively(tree, "batching")["summary"]


def test_a_saved_sim_shows_its_new_default_and_logic_and_a_later_build_agrees(
    served: str, tree: Layout, serve_builder: str, tab: Page
) -> None:
    tab.goto(served + "explainers/batching/")
    assert control_value(tab.content(), "requests") == "14"
    step = native(tree)["full_step_ms"]

    sim = tree.sims / "batching.py"
    edit(sim, DEFAULT, DEFAULT.replace("14", "18"))
    eventually(tab, lambda: control_value(tab.content(), "requests") == "18",
               "the new default on the page")
    mean = display(native(tree)["static_mean_latency_s"])
    assert summary_value(tab.content(), "static_mean_latency_s") == mean

    edit(sim, LOGIC, LOGIC.replace("1e3", "2e3"))
    doubled = display(native(tree)["full_step_ms"])
    assert doubled != display(step)
    eventually(tab, lambda: summary_value(tab.content(), "full_step_ms") == doubled,
               "the new logic's numbers on the page")
    assert tab.evaluate("window.cspViolations") == []

    build = [sys.executable, str(tree.scripts / "build.py"), "--builder", serve_builder]
    done = subprocess.run(build, cwd=tree.code,
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    built = (tree.site / "explainers" / "batching" / "index.html").read_text(encoding="utf-8")
    assert control_value(built, "requests") == "18"
    assert summary_value(built, "full_step_ms") == doubled


def test_every_save_in_a_row_is_shown_by_live_reload(served: str, tree: Layout, tab: Page
                                                     ) -> None:
    """Several saves of a reading, a second apart once each shows: the feed page reloads to
    each by itself. (Every restage used to rewrite the banner's script, and Zensical then
    reloaded every open page ahead of its rebuild: the page showed the previous build and
    often missed the reload that followed; ridgepoint.serve.devserver.write_errors.)"""
    [reading] = [change for change in edits(tree) if change.kind == "reading"]
    path = tree.root / reading.path
    original = path.read_text(encoding="utf-8")
    tab.goto(served + reading.page)
    shown = "() => false"
    try:
        for n in range(1, SAVES + 1):
            text, shown = reading.change(path.read_text(encoding="utf-8"), n)
            path.write_text(text, encoding="utf-8")
            eventually(tab, lambda shown=shown: tab.evaluate(shown), f"save {n} on the page")
            tab.wait_for_timeout(1000)
    finally:
        path.write_text(original, encoding="utf-8")
    # Settled before the next test opens a page: a rebuild would reload it under that test.
    eventually(tab, lambda: not tab.evaluate(shown), "the reading as it was")


def banner_violations(page: Page) -> list[dict]:
    page.evaluate(AXE.read_text(encoding="utf-8"))
    return page.evaluate(
        f"""async () => (await axe.run({{ include: [{json.dumps(BANNER)}] }},
                                      {{ resultTypes: ["violations"] }})).violations
            .map(v => ({{ id: v.id, impact: v.impact, help: v.help }}))""")


def test_a_rejected_save_shows_its_errors_on_the_page_until_fixed(
    served: str, tree: Layout, tab: Page
) -> None:
    term = sorted((tree.root / "glossary").glob("*.yaml"))[0]
    good = term.read_text(encoding="utf-8")
    tab.goto(served + "glossary/")
    assert tab.locator(BANNER).count() == 0
    try:
        term.write_text(good.replace("definition:", "definition: [unclosed", 1), encoding="utf-8")
        eventually(tab, lambda: tab.locator(BANNER).count() == 1, "the banner")
        banner = tab.locator(BANNER)
        assert banner.get_attribute("role") == "alert"
        text = banner.inner_text()
        assert re.search(r"^\d+ content errors?: this page is the last good version$", text, re.M)
        assert "`" not in text  # the command is set as code, not in Markdown's backticks
        assert banner.locator("p code").inner_text() == "make check"
        assert re.search(rf"glossary/{re.escape(term.name)}:\d+: yaml: ", text), text
        assert tab.evaluate("window.cspViolations") == []  # a script file, a stylesheet
        for scheme in SCHEMES:
            tab.emulate_media(color_scheme=scheme)
            tab.evaluate("Object.keys(localStorage).filter(k => k.endsWith('__palette'))"
                         ".forEach(k => localStorage.removeItem(k))")
            tab.reload()
            eventually(tab, lambda: tab.locator(BANNER).count() == 1, "the banner again")
            assert tab.get_attribute("body", "data-md-color-scheme") == SCHEMES[scheme]
            blocking = [v for v in banner_violations(tab) if v["impact"] in BLOCKING]
            assert not blocking, f"{scheme}: {blocking}"
    finally:
        term.write_text(good, encoding="utf-8")
    eventually(tab, lambda: tab.locator(BANNER).count() == 0 and "glossary" in tab.url,
               "the banner gone once the file is fixed")
    # The fixed page may be reloaded once more (a rebuild can end in two reloads): its
    # document is read once it stands still.
    eventually(tab, lambda: tab.evaluate("window.cspViolations") == [],
               "no policy violation on the fixed page")


def test_a_built_site_has_no_serve_banner(built_site: Path) -> None:
    assert not (built_site / "_ridgepoint").exists()
    for page in built_site.rglob("*.html"):
        assert "overlay.js" not in page.read_text(encoding="utf-8"), page
