"""The interaction group of the bench: each sim measured stepping and computed
(bench.interaction), and its figures against issue 40's targets."""

from __future__ import annotations

import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from playwright.sync_api import Playwright

import sims
from bench import interaction
from bench.chromium import profile
from bench.report import Figure
from bench.search import setups_per_s

ANSWER_P95_MS = 16  # from the input to the summary and the first chart updated
ALL_CHARTS_P95_MS = 50
EVENT_TIMING_P95_MS = 100  # Chromium's own interaction latency, as INP measures it
LONGEST_TASK_MS = 50  # a page's longest main-thread task while a reader changes inputs


def interaction_group(playwright: Playwright, base: str, site: Path,
                      only: frozenset[str] | None = None
                      ) -> tuple[list[Figure], list[dict[str, Any]]]:
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-interaction-") as folder, \
            profile(playwright, Path(folder)) as context:
        for module, page in sorted(interaction.pages_by_sim(site).items()):
            if only is not None and module not in only:
                continue
            results.append(interaction.measure(context, base, site, module, page))
            results.append(interaction.measure(context, base, site, module, page, ahead=False))
    figures = []
    for result in results:
        sim = sims.load(result.module)
        # A sim whose issue sets its own page targets declares them (the planner's search:
        # its first ranked answer, and the whole search, issue 41).
        answer_target = getattr(sim, "PAGE_ANSWER_MS", ANSWER_P95_MS)
        all_target = getattr(sim, "PAGE_COMPLETE_MS", ALL_CHARTS_P95_MS)
        how = (f"stepping: {result.kept} of {result.changes} answered from the page"
               if result.ahead else "every change computed (look-ahead off)")
        name = f"{result.module} ({'stepping' if result.ahead else 'computed'})"
        figures += [
            Figure("interaction", f"{name}: summary + first chart, p95",
                   result.answer_p95_ms, "ms", answer_target,
                   note=f"{how}; from the key to both drawn; p50 {result.answer_p50_ms:.1f} ms; "
                        f"{result.changes} changes on {result.page}; slowest: "
                        f"{result.slowest_answer}"),
            Figure("interaction", f"{name}: all charts, p95", result.p95_ms, "ms",
                   all_target,
                   note=f"p50 {result.p50_ms:.1f} ms; slowest: {result.slowest}"),
            Figure("interaction", f"{name}: Event Timing, p95", result.event_p95_ms,
                   "ms", EVENT_TIMING_P95_MS,
                   note=f"Chromium's interaction latency (as INP); p50 "
                        f"{result.event_p50_ms:.0f} ms, max {result.event_max_ms:.0f} ms; "
                        f"{result.under_threshold} of {result.changes} under "
                        f"{interaction.EVENT_THRESHOLD_MS} ms (no entry), counted as "
                        f"{interaction.EVENT_THRESHOLD_MS}"),
            Figure("interaction", f"{name}: p95 CPU within the change",
                   result.cpu_p95_ms, "ms",
                   note=f"p50 {result.cpu_p50_ms:.1f} ms; the page's main thread "
                        f"(p95 {result.main_cpu_p95_ms:.1f} ms) and Python's worker "
                        f"(p95 {result.worker_cpu_p95_ms:.1f} ms), key to all charts: the "
                        "rest of the wall time waited for a core"),
            Figure("interaction", f"{name}: longest main-thread task in the changes",
                   result.longest_task_ms, "ms", LONGEST_TASK_MS,
                   note="wall time of the longest task on the page's main thread while the "
                        "timed changes ran (Chromium's trace): what a key press waits for"),
            # What a search costs is a computed change's CPU (a kept answer costs none).
            *(() if result.ahead else setups_per_s(
                sim, result, "in the browser",
                "the CPU of the page and Python's worker within a change, p50")),
            Figure("interaction", f"{name}: first change", result.first_answer_ms,
                   "ms", note=f"summary + first chart; all charts {result.first_ms:.0f} ms; "
                              f"{interaction.THINK_MS} ms after focusing the controls"),
        ]
    return figures, [asdict(result) for result in results]
