"""On a host that sends no headers (GitHub Pages), what the site's policy still covers and
what it does not, as docs/deployment.md states it.

The site is served twice here: by a server that sends nothing of `_headers`, and by the usual
test server that sends it (as Netlify or Cloudflare Pages would). The page's own <meta>
policy is in force on both.

- The Python worker and Material's search worker start from blob: URLs
  (overrides/partials/javascripts/host-policy.html) and so run under the page's policy;
  without that start they would run with none.
- A page another site frames hides itself behind a link to itself; with the header, the
  browser refuses the frame outright.
- The service worker's policy can only come from a header: without one it runs with none,
  and asks for nothing but the site's own files.
"""

from __future__ import annotations

import http.server
import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, Playwright, Route, Worker, expect

from bench.server import running
from tests.browser.conftest import READY_MS, launch, serve

pytestmark = pytest.mark.browser

EXPLAINER = "explainers/batching/"
PYTHON_WORKER = "/assets/sim/worker.js"
SEARCH_WORKER = "/assets/javascripts/workers/search."
# Put before a worker's own script: what 'unsafe-eval' would allow, tried by the worker's
# code ("EvalError" where a policy refuses it). Read back through devtools, which may not
# try it there itself: code devtools evaluates is not held to the worker's policy.
EVAL_PROBE = """self.rpEvalProbe = (() => {
  try { eval("1 + 1"); return "ran"; } catch (error) { return error.name; }
})();
"""
HOST_POLICY_SCRIPT = re.compile(r"<script>\s*\(\(\) => \{\s*const PageWorker = .*?</script>",
                                re.DOTALL)


@pytest.fixture(scope="module")
def bare_url(built_site: Path) -> Iterator[str]:
    """The site served with no headers beyond the plain file server's."""
    with serve(built_site, headers=False) as (url, _):
        yield url


@pytest.fixture
def framing_site(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """Another origin (another port), whose pages the tests write to frame the site's."""
    handler = _quiet_handler(str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    with running(server) as port:
        yield tmp_path, f"http://127.0.0.1:{port}/"


def _quiet_handler(directory: str) -> type[http.server.SimpleHTTPRequestHandler]:
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=directory, **kwargs)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

    return Handler


def probe_workers(target: Page | BrowserContext, scripts: tuple[str, ...]) -> None:
    """Serve each of `scripts` (URL globs) with EVAL_PROBE in front of its real text."""
    def probed(route: Route) -> None:
        real = route.fetch()
        route.fulfill(response=real, body=EVAL_PROBE + real.text())

    for script in scripts:
        target.route(script, probed)


WORKER_SCRIPTS = ("**" + PYTHON_WORKER, "**" + SEARCH_WORKER + "*.js")


def open_ready(page: Page, url: str) -> None:
    """Open a sim page and wait until its sim is live (Python ready in its worker)."""
    response = page.goto(url)
    assert response is not None
    sim = page.locator("[data-sim]").first
    expect(sim).to_have_attribute("data-state", "ready", timeout=READY_MS)


def workers_by_script(page: Page) -> dict[str, Worker]:
    """The page's Python and search workers, by which script they run."""
    found = {}
    for worker in page.workers:
        for name, script in (("python", PYTHON_WORKER), ("search", SEARCH_WORKER)):
            if script in worker.url:
                found[name] = worker
    assert set(found) == {"python", "search"}, [w.url for w in page.workers]
    return found


def test_the_bare_server_sends_no_policy(page: Page, bare_url: str) -> None:
    response = page.goto(bare_url + EXPLAINER)
    assert response is not None and response.ok
    assert "content-security-policy" not in response.headers
    worker_script = page.request.get(bare_url + PYTHON_WORKER.lstrip("/"))
    assert "content-security-policy" not in worker_script.headers


def test_without_headers_the_python_and_search_workers_run_under_the_pages_policy(
    page: Page, bare_url: str
) -> None:
    probe_workers(page, WORKER_SCRIPTS)
    open_ready(page, bare_url + EXPLAINER)
    for name, worker in workers_by_script(page).items():
        assert worker.url.startswith("blob:"), name
        assert worker.evaluate("self.rpEvalProbe") == "EvalError", name


def test_without_the_blob_start_those_workers_would_run_with_no_policy(
    page: Page, bare_url: str, built_site: Path
) -> None:
    """The control: the same page without host-policy.html's script starts its workers from
    their own URLs, and on this host they then have no policy at all."""
    document = (built_site / EXPLAINER / "index.html").read_text(encoding="utf-8")
    stripped, count = HOST_POLICY_SCRIPT.subn("", document)
    assert count == 1
    page.route(bare_url + EXPLAINER,
               lambda route: route.fulfill(body=stripped, content_type="text/html"))
    probe_workers(page, WORKER_SCRIPTS)
    open_ready(page, bare_url + EXPLAINER)
    for name, worker in workers_by_script(page).items():
        assert not worker.url.startswith("blob:"), name
        assert worker.evaluate("self.rpEvalProbe") == "ran", name


def test_search_works_on_a_host_without_headers(page: Page, bare_url: str) -> None:
    page.goto(bare_url + "glossary/")
    page.keyboard.press("/")
    page.keyboard.type("prefill")
    expect(page.locator(".md-search-result__item").first).to_be_visible(timeout=15_000)


def frame(folder: Path, host: str, target: str) -> str:
    """A page of the other origin that frames `target`; its URL."""
    (folder / "frame.html").write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>framing</title>'
        '<link rel="icon" href="data:,"></head><body>'
        f'<iframe src="{target}" width="800" height="600" title="framed"></iframe>'
        "</body></html>", encoding="utf-8")
    return host + "frame.html"


def test_a_page_another_site_frames_shows_only_a_link_to_itself_without_headers(
    page: Page, bare_url: str, framing_site: tuple[Path, str]
) -> None:
    target = bare_url + "explainers/"
    page.goto(frame(*framing_site, target))
    framed = page.frame_locator("iframe")
    link = framed.locator(".rp-framed a")
    expect(link).to_be_visible(timeout=15_000)
    assert link.get_attribute("href") == target and link.get_attribute("target") == "_top"
    expect(framed.locator(".md-container")).to_have_count(1)  # there, but not shown
    expect(framed.locator(".md-container")).to_be_hidden()
    expect(framed.locator(".md-header")).to_be_hidden()


def test_with_the_headers_the_browser_refuses_the_frame(
    page: Page, base_url: str, framing_site: tuple[Path, str]
) -> None:
    target = base_url + "explainers/"
    refused: list[str] = []
    page.on("console", lambda message: refused.append(message.text)
            if "frame-ancestors" in message.text else None)
    page.goto(frame(*framing_site, target))  # returns once the frame has loaded or failed
    for _ in range(100):
        if refused:
            break
        page.wait_for_timeout(100)
    assert refused
    assert page.frames[1].locator(".md-container, .rp-framed").count() == 0


@pytest.fixture
def service_worker_context(playwright: Playwright, tmp_path: Path
                           ) -> Iterator[BrowserContext]:
    browser = launch(playwright, tmp_path / "profile", service_workers="allow")
    yield browser
    browser.close()


def test_the_service_worker_runs_with_no_policy_without_headers_and_asks_only_the_site(
    service_worker_context: BrowserContext, bare_url: str
) -> None:
    """The loss docs/deployment.md states: only a header can give a service worker a policy. What
    it asks for is the site's files (its release's install, the pages it serves)."""
    requests: list[str] = []
    service_worker_context.on("request", lambda request: requests.append(request.url))
    probe_workers(service_worker_context, ("**/sw.js",))
    page = service_worker_context.new_page()
    with service_worker_context.expect_event("serviceworker", timeout=READY_MS) as started:
        open_ready(page, bare_url + EXPLAINER)
    worker = started.value
    assert worker.url == bare_url + "sw.js"
    page.wait_for_function("() => navigator.serviceWorker.controller !== null",
                           timeout=READY_MS)
    assert worker.evaluate("self.rpEvalProbe") == "ran"
    origin = "{0.scheme}://{0.netloc}/".format(urllib.parse.urlsplit(bare_url))
    elsewhere = [url for url in requests if not url.startswith((bare_url, "data:",
                                                                 f"blob:{origin}"))]
    assert any(url.endswith("sw.js") for url in requests)
    assert elsewhere == []
