"""Save to reload under `make serve`: from writing a file to the reloaded page showing it.

The editor's loop, measured as an editor lives it: `scripts/serve.py` of a copy of the
repository (bench.tree; at 10x with synthetic content added, bench.synthetic) serves the
site, Chromium shows a page, and each edit writes one file and times until that page,
reloaded by MkDocs' live reload, shows the change: a term's definition on the glossary, a
reading's why on the reading feed, a paragraph of an article and of an explainer, and a
sim's default (the batching explainer's control and its prerendered summary must show the
new value's numbers, computed by the copy's own sim on the command line).

The page's Python runtime is not fetched (its start would compete with the next rebuild
for the machine's two cores; the change is visible before Python starts), and each edit
waits for the machine to settle after the last. Times are wall time: the serve process,
the browser and everything else on the machine share it, so the load average is reported.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Playwright

from bench import synthetic
from bench.chromium import profile
from bench.tree import copy_tree
from ridgepoint.base.layout import Layout
from ridgepoint.sims.display import display

START_TIMEOUT_S = 300  # the first full build, at 10x on a busy machine
SHOW_TIMEOUT_S = 20  # an edit not shown by then counts as this, and says so
POLL_S = 0.02
SETTLE_S = 1.5
SIM_DEFAULT = re.compile(r'(Number\("requests", "Requests", default=)(\d+)')
SIM_METRIC = "static_mean_latency_s"


@dataclass
class Edit:
    """One kind of edit: the file it changes, the page that shows it, and how."""

    kind: str
    path: str  # relative to the tree
    page: str  # URL under the site root
    change: Callable[[str, int], tuple[str, str]]  # (file text, n) -> (new text, predicate JS)


@dataclass
class Timing:
    kind: str
    factor: int
    seconds: list[float] = field(default_factory=list)
    missed: int = 0  # edits never shown within SHOW_TIMEOUT_S


def _marked_field(key: str) -> Callable[[str, int], tuple[str, str]]:
    """Put the word `Zq<n>` at the start of a YAML field's text (plain or block scalar)."""

    def change(text: str, n: int) -> tuple[str, str]:
        lines = text.split("\n")
        index = next(i for i, line in enumerate(lines) if line.startswith(f"{key}:"))
        value = lines[index][len(key) + 1:].strip()
        if value in (">", ">-", "|", "|-"):
            index += 1
            body = lines[index].lstrip()
            lines[index] = lines[index][: len(lines[index]) - len(body)] + f"Zq{n} " + body
        else:
            quoted = value[:1] in ("'", '"')
            inner = value[1:] if quoted else value
            lines[index] = f"{key}: {value[:1] if quoted else ''}Zq{n} {inner}"
        return "\n".join(lines), _shows(f"Zq{n}")

    return change


def _paragraph(text: str, n: int) -> tuple[str, str]:
    return f"{text.rstrip()}\n\nZq{n} marks this save.\n", _shows(f"Zq{n} marks this save.")


def _shows(marker: str) -> str:
    return f"() => document.body !== null && document.body.innerText.includes({json.dumps(marker)})"


def edits(tree: Layout) -> list[Edit]:
    """The five kinds of edit, on real files of the tree."""
    term = sorted((tree.root / "glossary").glob("*.yaml"))[0]
    reading = sorted((tree.root / "feed").glob("*.yaml"))[0]
    article = sorted((tree.content / "articles").glob("*.md"))[0]

    def sim(text: str, n: int) -> tuple[str, str]:
        requests = 15 + n % 40
        done = subprocess.run(  # the copy's own sim, in a fresh interpreter
            [sys.executable, "-m", "sims", "batching", "--requests", str(requests)],
            cwd=tree.code, capture_output=True, text=True, check=True,
            env={**os.environ, "PYTHONPATH": str(tree.code)})
        shown = display(json.loads(done.stdout)["summary"][SIM_METRIC])
        predicate = (
            "() => { const c = document.querySelector('#sim-batching-requests');"
            " const row = document.querySelector("
            f"'[data-sim=batching] tr[data-key={SIM_METRIC}] td');"
            f" return c !== null && c.value === '{requests}' && row !== null"
            f" && row.textContent === {json.dumps(shown)}; }}")
        return SIM_DEFAULT.sub(rf"\g<1>{requests}", text, count=1), predicate

    return [
        Edit("term", tree.relative(term), "glossary/", _marked_field("definition")),
        Edit("reading", tree.relative(reading), "feed/", _marked_field("why")),
        Edit("article", tree.relative(article), f"articles/{article.stem}/", _paragraph),
        Edit("explainer", "content/explainers/batching.md", "explainers/batching/", _paragraph),
        Edit("sim", "sims/batching.py", "explainers/batching/", sim),
    ]


def prepare(layout: Layout, work: Path, factor: int) -> Layout:
    """A copy of the repository at `factor` times its content."""
    tree = copy_tree(layout, work / f"serve-{factor}x")
    if factor > 1:
        synthetic.generate(layout.root, tree.root, factor)
    return tree


@contextmanager
def serving(tree: Layout, builder: str = "mkdocs") -> Iterator[str]:
    """`scripts/serve.py` of the tree on a free port with `builder`, in a session of its own
    (stopped with it); yields the base URL once the first build is served."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1",
                   "PYTHONPATH": os.pathsep.join((str(tree.scripts), str(tree.code)))}
    log = (tree.build / "serve.log")
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as output:
        process = subprocess.Popen(
            [sys.executable, str(tree.scripts / "serve.py"), "--dev-addr", f"127.0.0.1:{port}",
             "--builder", builder],
            cwd=tree.code, env=environment, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True)
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"serve exited {process.returncode}:\n{log.read_text()}")
            try:
                urllib.request.urlopen(base, timeout=5).read()
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"serve never answered:\n{log.read_text()}") from None
                time.sleep(0.5)
        yield base
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def _shown(page: Page, predicate: str) -> bool:
    try:
        return bool(page.evaluate(predicate))
    except PlaywrightError:  # the page is being replaced by its reload
        return False


def time_edit(page: Page, tree: Layout, edit: Edit, n: int) -> float | None:
    """Seconds from writing the edit to the page showing it; None if it never did."""
    path = tree.root / edit.path if (tree.root / edit.path).exists() else tree.code / edit.path
    text, predicate = edit.change(path.read_text(encoding="utf-8"), n)
    start = time.perf_counter()
    path.write_text(text, encoding="utf-8")
    while time.perf_counter() - start < SHOW_TIMEOUT_S:
        if _shown(page, predicate):
            return time.perf_counter() - start
        time.sleep(POLL_S)
    return None


def measure(playwright: Playwright, layout: Layout, work: Path, factor: int, repeats: int
            ) -> list[Timing]:
    """Every kind of edit `repeats` times on a served copy at `factor`x the content."""
    tree = prepare(layout, work, factor)
    timings = []
    with serving(tree) as base, profile(playwright, work / f"serve-profile-{factor}x") as context:
        page = context.new_page()
        page.route("**/assets/pyodide/**", lambda route: route.abort())
        n = 0
        for edit in edits(tree):
            timing = Timing(edit.kind, factor)
            page.goto(base + edit.page, wait_until="load")
            time.sleep(SETTLE_S)
            for _ in range(repeats):
                n += 1
                seconds = time_edit(page, tree, edit, n)
                if seconds is None:
                    timing.missed += 1
                    seconds = SHOW_TIMEOUT_S
                timing.seconds.append(seconds)
                time.sleep(SETTLE_S)
            timings.append(timing)
        page.close()
    return timings
