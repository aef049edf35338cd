"""Browser tests: the real site, built once per session, served locally, driven in Chromium.

The site is built with the project's own entry point (scripts/build.py) into a temporary
folder and served by Python's http.server on a free port: no network, nothing of the
repository's site/ or build/docs touched. The server sends the headers the build wrote into
`_headers`, as a static host that reads that file would, so the Content Security Policy is in
force for workers too (a page's <meta> policy does not reach them). Chromium runs with a
fresh profile and without its background services, so every request it makes is one the
page asked for.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, ConsoleMessage, Page, Playwright, sync_playwright

from bench.chromium import CHROMIUM, CHROMIUM_ARGS, VIEWPORT
from bench.server import running
from ridgepoint import adapters
from tests.builders import builder_of, parametrize_builders
from tests.repo import LAYOUT

READY_MS = 90_000  # Python's first start; generous, the machine is shared
SITE_URL = "http://127.0.0.1:8000/ridgepoint/"  # what the build is told; any port serves it

pytestmark = pytest.mark.browser


class _SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Quiet, and sends `extra_headers` with every response."""

    def __init__(self, *args: object, extra_headers: dict[str, str], **kwargs: object) -> None:
        self.extra_headers = extra_headers
        super().__init__(*args, **kwargs)

    def end_headers(self) -> None:
        for name, value in self.extra_headers.items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - base signature
        pass


def host_headers(site: Path) -> dict[str, str]:
    """The headers `_headers` asks for on every file (`/*`), the only rule the build writes."""
    headers: dict[str, str] = {}
    rule = None
    for line in (site / "_headers").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if not line[0].isspace():
            rule = line.strip()
            assert rule == "/*", f"_headers has a rule this server does not apply: {rule}"
        else:
            name, _, value = line.strip().partition(":")
            headers[name.strip()] = value.strip()
    return headers


@contextlib.contextmanager
def serve(site: Path, port: int = 0, *, headers: bool = True
          ) -> Iterator[tuple[str, http.server.ThreadingHTTPServer]]:
    """Serve `site` as `http://127.0.0.1:<port>/<site folder name>/` with its headers (on a
    free port by default; a given port serves the same origin again after a stop). With
    `headers=False`, none of `_headers`, as a host that does not read it (GitHub Pages)."""
    handler = functools.partial(_SiteHandler, directory=str(site.parent),
                                extra_headers=host_headers(site) if headers else {})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    with running(server) as bound:
        yield f"http://127.0.0.1:{bound}/{site.name}/", server


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The reader-facing modules (crawl, policy, offline, the widget, the theme) run on each
    builder's site (tests/builders.py); the rest on the default build's."""
    parametrize_builders(metafunc, "built_site")


class Builds:
    """Each builder's site, built at most once per session, when a test first needs it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.sites: dict[str, Path] = {}

    def site(self, builder: str) -> Path:
        if builder not in self.sites:
            self.sites[builder] = self._build(builder)
        return self.sites[builder]

    def _build(self, builder: str) -> Path:
        """scripts/build.py into a temporary folder of its own (staging tree included)."""
        base = self.folder / builder
        site = base / "served" / "ridgepoint"
        done = subprocess.run(
            [sys.executable, str(LAYOUT.scripts / "build.py"), "--site-dir", str(site),
             "--stage-dir", str(base / "stage" / "docs"), "--builder", builder],
            capture_output=True, text=True, cwd=LAYOUT.code, check=False,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": SITE_URL},
        )
        assert done.returncode == 0, (
            f"the site did not build with {builder}:\n{done.stdout}\n{done.stderr}")
        return site


@pytest.fixture(scope="session")
def builds(tmp_path_factory: pytest.TempPathFactory) -> Builds:
    return Builds(tmp_path_factory.mktemp("browser-build"))


@pytest.fixture(scope="session")
def built_site(request: pytest.FixtureRequest, builds: Builds) -> Path:
    """The repository's site, built by scripts/build.py into a temporary folder, with the
    default builder or the one a test is parametrised with (pytest_generate_tests).

    It is served from a sub-path (/ridgepoint/), as on a project site of a static host, so
    every test also checks that nothing assumes the site sits at the server's root. The build
    is told that path (SITE_URL), as a deployment there would be: the 404 page, which a host
    serves at any depth, links its assets by absolute path from it.
    """
    return builds.site(builder_of(request))


@pytest.fixture(scope="session")
def builder(builds: Builds, built_site: Path) -> str:
    """Which builder made `built_site`: for the few checks of the theme's own markup."""
    return next(name for name, site in builds.sites.items() if site == built_site)


@pytest.fixture(scope="session")
def base_url(built_site: Path) -> Iterator[str]:
    with serve(built_site) as (url, _):
        yield url


@dataclass(frozen=True)
class SearchParts:
    """Where a builder's search lives on the page: what fetches its index, the box or
    button a reader clicks to search, the field queries are typed in (focused once search
    is open: type before, and the keys are lost), and one result."""

    index: str
    box: str
    query: str
    result: str


# The theme's own markup, which differs: Material's search box is in the header; Zensical's
# header has a button that opens a dialog (in a shadow root, which Playwright's CSS pierces).
SEARCH_PARTS = {
    "mkdocs": (".md-search__input", ".md-search__input", ".md-search-result__item"),
    "zensical": ('[data-md-component="search"] button', 'input[aria-label="Search"][autofocus]',
                 'a[role="option"]'),
}


@pytest.fixture(scope="session")
def search(builder: str) -> SearchParts:
    return SearchParts(adapters.named(builder).search_index, *SEARCH_PARTS[builder])


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


def launch(playwright: Playwright, profile: Path, *extra_args: str, **options: object
           ) -> BrowserContext:
    """Chromium on `profile`. Service workers are blocked unless `service_workers="allow"`:
    the site's worker would answer requests from its cache, out of sight of `page.route`
    (tests/browser/test_offline.py allows it, with a profile and server of its own)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (.ci/run does)")
    options.setdefault("service_workers", "block")
    return playwright.chromium.launch_persistent_context(
        str(profile), executable_path=CHROMIUM, headless=True, args=[*CHROMIUM_ARGS, *extra_args],
        viewport=VIEWPORT, **options,
    )


@pytest.fixture(scope="session")
def context(playwright: Playwright, tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[BrowserContext]:
    """One browser for the session, with a fresh profile: the first page starts cold and
    later ones reuse the compiled wasm, as a reader's second visit would."""
    browser = launch(playwright, tmp_path_factory.mktemp("profile"))
    yield browser
    browser.close()


@dataclass
class Recorder:
    """Everything a page asked the network for, and every error it reported."""

    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text} ({message.location})")


@pytest.fixture
def recorder(context: BrowserContext) -> Iterator[Recorder]:
    record = Recorder()
    handlers = {
        "request": lambda request: record.requests.append(request.url),
        "console": record.console,
        "weberror": lambda error: record.errors.append(f"page error: {error.error}"),
    }
    for event, handler in handlers.items():
        context.on(event, handler)
    yield record
    for event, handler in handlers.items():
        context.remove_listener(event, handler)


@pytest.fixture
def page(context: BrowserContext, recorder: Recorder) -> Iterator[Page]:
    opened = context.new_page()
    yield opened
    opened.close()
