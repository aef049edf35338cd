"""The whole bench, group by group; each group returns its figures and its raw details."""

from __future__ import annotations

import math
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from playwright.sync_api import Playwright, sync_playwright

import sims
from bench import buildcost, lighthouse, native, pageload, reload, throttled, transfer
from bench.interaction_figures import interaction_group
from bench.loadgroup import EXPLAINER, REFERENCE_SIM, page_load_group
from bench.report import Figure
from bench.search import setups_per_s
from bench.server import HOSTS, serve
from bench.stats import growth_exponent, percentile, ratio
from ridgepoint.base.layout import Layout

# Targets (issue 7; the interaction's, issue 40, are bench.interaction_figures').
EXPLAINER_BYTES_KB = 250
PYTHON_BYTES_RATIO = 1.0  # issue 20
PIPELINE_OVERHEAD = 0.25
GROWTH_EXPONENT = 1.1  # linear, with room for noise
SIM_WORST_MS = 20
# A sim at its defaults (issue 18's target for its sims; every sim meets it). A sim whose
# issue sets its own target for its most expensive inputs declares it as WORST_MS.
SIM_DEFAULTS_MS = 20
PAGE_GROWTH = 1.05  # a page at 100x the content, against 1x
SAVE_TO_RELOAD_S = {1: 1.0, 10: 1.5}  # p50 under make serve, by content scale (issue 15)

SERVE_CLI_S = 2.0  # python -m sims serve, 500 requests at the defaults (issue 39)

SIM_BELOW = "articles/prompt-caching/"  # its sim is over two screens down


def sims_group() -> tuple[list[Figure], list[dict[str, Any]]]:
    timings = native.measure_all()
    figures = []
    for timing in timings:
        worst_target = getattr(sims.load(timing.module), "WORST_MS", SIM_WORST_MS)
        figures.append(Figure("sims", f"{timing.module}: defaults", timing.defaults_ms, "ms",
                              SIM_DEFAULTS_MS))
        figures.append(Figure("sims", f"{timing.module}: most expensive", timing.worst_ms, "ms",
                              worst_target, note=str(timing.worst_inputs)))
        figures += setups_per_s(sims.load(timing.module), timing, "natively",
                                 "CPython's CPU time of one run at the defaults")
    figures.append(Figure("sims", "python -m sims serve: 500 requests, defaults",
                          native.serve_cli_s(), "s", SERVE_CLI_S,
                          note="CPU time of the whole command, interpreter start-up included"))
    return figures, [asdict(timing) for timing in timings]


def build_figures(scales: list[buildcost.Scale]) -> list[Figure]:
    """Every scale's costs and overhead; with three scales or more, how cost grows."""
    figures = []
    for scale in scales:
        label = f"{scale.factor}x ({scale.items} items, {scale.pages} pages, {scale.runs} run(s))"
        spread = (f"; runs {min(scale.build_cpu_runs):.2f} to {max(scale.build_cpu_runs):.2f} s"
                  if scale.runs > 1 else "")
        figures += [
            Figure("build", f"full build, {label}", scale.build.cpu_s, "s CPU",
                   note=f"wall {scale.build.wall_s:.1f} s{spread}"),
            Figure("build", f"plain mkdocs build of the same pages, {scale.factor}x",
                   scale.plain.cpu_s, "s CPU", note=f"wall {scale.plain.wall_s:.1f} s"),
            Figure("build", f"pipeline overhead over plain, {scale.factor}x",
                   100 * scale.overhead, "%", 100 * PIPELINE_OVERHEAD),
            Figure("build", f"the build process's own CPU, {scale.factor}x",
                   scale.pipeline_cpu_s, "s CPU",
                   note="our pipeline: the full build without the MkDocs run it starts; "
                        f"{100 * ratio(scale.pipeline_cpu_s, scale.plain.cpu_s):.0f}% of plain"),
            Figure("build", f"content check, {scale.factor}x", scale.check.cpu_s, "s CPU",
                   note=f"wall {scale.check.wall_s:.1f} s"),
        ]
    if len(scales) >= 3:
        figures += _growth_figures(scales)
    return figures


def _growth_figures(scales: list[buildcost.Scale]) -> list[Figure]:
    """The exponent of the marginal cost (above the 1x build) against the added content: 1
    is linear. The full build's carries how far it moves if the middle scale's median were
    its fastest or slowest run instead: the marginal cost there is a few seconds, so run to
    run noise moves the exponent by hundredths."""
    base, middle = scales[0], scales[1]
    sizes = [s.items - base.items for s in scales[1:]]

    def exponent(costs: list[float], reference: float) -> float:
        return growth_exponent(sizes, [max(cost - reference, 1e-6) for cost in costs])

    builds = [s.build.cpu_s for s in scales[1:]]
    meaning = "of the cost above 1x; 1 is linear, 2 quadratic"
    note = meaning
    if middle.runs > 1:
        low, high = (exponent([run, *builds[1:]], base.build.cpu_s)
                     for run in (max(middle.build_cpu_runs), min(middle.build_cpu_runs)))
        note += f"; {low:.2f} to {high:.2f} with {middle.factor}x's slowest or fastest run"
    return [
        Figure("build", "full build: growth exponent of cost in content",
               exponent(builds, base.build.cpu_s), "", GROWTH_EXPONENT, note=note),
        Figure("build", "the build process's own CPU: growth exponent",
               exponent([s.pipeline_cpu_s for s in scales[1:]], base.pipeline_cpu_s), "",
               note="our pipeline alone, without MkDocs"),
        Figure("build", "plain mkdocs build: growth exponent",
               exponent([s.plain.cpu_s for s in scales[1:]], base.plain.cpu_s), "",
               note="the reference: the same pages, MkDocs alone"),
        Figure("build", "content check: growth exponent of cost in content",
               exponent([s.check.cpu_s for s in scales[1:]], base.check.cpu_s), "",
               GROWTH_EXPONENT, note=meaning),
    ]


def bytes_group(playwright: Playwright, base: str, ledger, layout: Layout, site: Path
                ) -> tuple[list[Figure], dict[str, Any]]:
    explainer = transfer.load(playwright, base, EXPLAINER, ledger, transfer.SIMS_READY)
    article_path = next(
        f"articles/{path.parent.name}/" for path in sorted((site / "articles").glob("*/index.html"))
        if 'data-sim="' not in path.read_text(encoding="utf-8"))
    article = transfer.load(playwright, base, article_path, ledger, None)
    unread = transfer.load(playwright, base, SIM_BELOW, ledger, None)
    charts = transfer.chart_library(base, site)
    figures = [
        Figure("bytes", f"explainer page before Python ({EXPLAINER})", explainer.page / 1000,
               "KB", EXPLAINER_BYTES_KB),
        Figure("bytes", "the Python runtime (Pyodide, snapshot, sims)", explainer.runtime / 1000,
               "KB"),
        Figure("bytes", "chart library (on first interaction)", charts / 1000, "KB"),
        Figure("bytes", f"article page ({article_path})", article.page / 1000, "KB"),
        Figure("bytes", f"Python, reading the first screen of {SIM_BELOW}", unread.python / 1000,
               "KB", 0, note="its sim is further down: Python waits until it nears"),
    ]
    reference = pageload.write_reference_page(site, REFERENCE_SIM, layout)
    hosts: dict[str, Any] = {}
    for host, types in HOSTS.items():
        with serve(site, types) as (host_base, host_ledger):
            ours = transfer.load(playwright, host_base, EXPLAINER, host_ledger,
                                 transfer.SIMS_READY)
            theirs = transfer.load(playwright, host_base, reference, host_ledger,
                                   transfer.REFERENCE_READY)
        hosts[host] = {"explainer": asdict(ours), "reference": asdict(theirs)}
        figures += [
            Figure("bytes", f"Python on the wire, {host}", ours.python / 1000, "KB",
                   note=f"reference (plain Pyodide page): {theirs.python / 1000:,.0f} KB"),
            Figure("bytes", f"Python bytes / reference, {host}", ratio(ours.python, theirs.python),
                   "", PYTHON_BYTES_RATIO),
        ]
    return figures, {"explainer": asdict(explainer), "article": asdict(article),
                     "first screen": asdict(unread), "chart_library": charts, "hosts": hosts}


def growth_group(small: Path, large: Path, factor: int) -> tuple[list[Figure], dict[str, Any]]:
    """Pages stay light: the same explainer's HTML at 1x and at `factor`x the content."""
    page = Path(EXPLAINER) / "index.html"
    sites = (("1x", small), ("large", large))
    sizes = {name: transfer.gzipped(site / page) for name, site in sites}
    index = {name: transfer.gzipped(site / transfer.SEARCH_INDEX) for name, site in sites}
    figures = [
        Figure("growth", f"explainer HTML at {factor}x content / at 1x",
               ratio(sizes["large"], sizes["1x"]), "", PAGE_GROWTH,
               note=f"{sizes['1x']} B -> {sizes['large']} B gzipped"),
        Figure("growth", f"search index (every page fetches it), {factor}x", index["large"] / 1000,
               "KB", note=f"1x: {index['1x'] / 1000:.0f} KB gzipped"),
    ]
    return figures, {"explainer_html_gzip": sizes, "search_index_gzip": index}


def lighthouse_group(base: str) -> tuple[list[Figure], list[dict[str, Any]]]:
    results = lighthouse.measure(base)
    return lighthouse.figures(results), [asdict(result) for result in results]


def serve_group(playwright: Playwright, layout: Layout, work: Path, repeats: int
                ) -> tuple[list[Figure], list[dict[str, Any]]]:
    """Save to reload under make serve, per kind of edit, at 1x and 10x the content."""
    timings = [timing for factor in SAVE_TO_RELOAD_S
               for timing in reload.measure(playwright, layout, work, factor, repeats)]
    figures = []
    for timing in timings:
        spread = f"{min(timing.seconds):.2f} to {max(timing.seconds):.2f} s"
        missed = (f"; {timing.missed} never shown within {reload.SHOW_TIMEOUT_S} s"
                  if timing.missed else "")
        figures.append(Figure(
            "serve", f"{timing.factor}x: {timing.kind} edit, save to reload, p50",
            percentile(timing.seconds, 0.5), "s", SAVE_TO_RELOAD_S[timing.factor],
            note=f"{len(timing.seconds)} saves, {spread}{missed}"))
    return figures, [asdict(timing) for timing in timings]


GROUPS = ("sims", "page", "slow", "interaction", "bytes", "lighthouse", "build", "serve")


def everything(layout: Layout, work: Path, quick: bool, only: frozenset[str] = frozenset(GROUPS),
               sims: frozenset[str] | None = None) -> tuple[list[Figure], dict[str, Any]]:
    """The groups in `only` (all by default), measured on the layout's repository; `quick`
    for a short development run (fewer runs, no 100x); `sims` limits the interaction group
    to those sims."""
    started = time.perf_counter()
    figures: list[Figure] = []
    details: dict[str, Any] = {}
    if "sims" in only:
        found, details["sims"] = sims_group()
        figures += found
    runs = 1 if quick else 3
    if "serve" in only:
        with sync_playwright() as playwright:
            found, details["serve"] = serve_group(playwright, layout, work, 3 if quick else 7)
        figures += found
    if not only & {"page", "slow", "interaction", "bytes", "lighthouse", "build"}:
        details["duration_s"] = math.ceil(time.perf_counter() - started)
        return figures, details
    scales = [buildcost.measure(layout, work, 1, runs, warm_up=True, measured="build" in only)]
    site = scales[0].site
    if only & {"page", "slow", "interaction", "bytes", "lighthouse"}:
        with serve(site) as (base, ledger), sync_playwright() as playwright:
            if "page" in only:
                found, details["page_load"] = page_load_group(playwright, base, ledger, layout,
                                                              site, runs)
                figures += found
            if "slow" in only:  # cold loads on throttled links (issue 40)
                reference = pageload.write_reference_page(site, REFERENCE_SIM, layout)
                found, details["slow_link"] = throttled.throttled_group(
                    playwright, base, ledger, EXPLAINER, reference, runs)
                figures += found
            if "interaction" in only:
                found, details["interaction"] = interaction_group(playwright, base, site, sims)
                figures += found
            if "bytes" in only:
                found, details["bytes"] = bytes_group(playwright, base, ledger, layout, site)
                figures += found
            if "lighthouse" in only:
                found, details["lighthouse"] = lighthouse_group(base)
                figures += found
    if "build" in only:
        # Every size is built once unmeasured first (its staged pages cached), as an
        # editor's rebuild finds it; 100x is then measured once: it takes minutes.
        scales.append(buildcost.measure(layout, work, 10, runs, warm_up=True))
        if not quick:
            scales.append(buildcost.measure(layout, work, 100, 1, warm_up=True))
        figures += build_figures(scales)
        details["build"] = [{**asdict(scale), "site": str(scale.site)} for scale in scales]
        found, details["growth"] = growth_group(site, scales[-1].site, scales[-1].factor)
        figures += found
    details["duration_s"] = math.ceil(time.perf_counter() - started)
    return figures, details
