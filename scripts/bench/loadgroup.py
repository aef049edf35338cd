"""The page-load group: the explainer against the reference page, cold and warm, and the
explainer again with service workers blocked (what the offline worker costs a returning
reader, issue 22)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from playwright.sync_api import Playwright

from bench import pageload
from bench.report import Figure
from bench.stats import median, ratio
from ridgepoint.base.layout import Layout

# Targets (issues 7 and 22).
FIRST_CHART_MS = 300
READY_COLD_RATIO = 0.35  # issue 40: straight to the sim, as fast as before
READY_WARM_RATIO = 0.35
LONGEST_TASK_MS = 50

EXPLAINER = "explainers/batching/"
BLOCKED = "the explainer, service workers blocked"  # its loads' key, not a page
REFERENCE_SIM = "batching"


def _median_load(loads: list[pageload.Load], attribute: str) -> float:
    return median([getattr(load, attribute) for load in loads])


def _intent(load: pageload.Load) -> float:
    return load.ready_ms - load.wanted_ms


def page_load_group(playwright: Playwright, base: str, ledger, layout: Layout, site: Path,
                    runs: int) -> tuple[list[Figure], dict[str, Any]]:
    """The explainer against the reference, cold and warm; and the explainer's visits again
    with service workers blocked, to show what the offline worker costs a returning reader."""
    reference = pageload.write_reference_page(site, REFERENCE_SIM, layout)
    loads: dict[str, dict[str, list[pageload.Load]]] = {
        page: {"cold": [], "warm": []} for page in (EXPLAINER, reference, BLOCKED)}
    for _ in range(runs):  # interleaved, so every page sees the same machine
        for page in (EXPLAINER, reference, BLOCKED):
            if page == BLOCKED:
                cold, warm = pageload.untraced(playwright, base + EXPLAINER, ledger, "block")
            else:
                cold, warm = pageload.cold_and_warm(playwright, base + page, ledger)
            loads[page]["cold"].append(cold)
            loads[page]["warm"].append(warm)
    ours, theirs, blocked = loads[EXPLAINER], loads[reference], loads[BLOCKED]
    figures = []
    for visit in ("cold", "warm"):
        ready = _median_load(ours[visit], "ready_ms")
        ref_ready = _median_load(theirs[visit], "ready_ms")
        task = _median_load(ours[visit], "longest_task_ms")
        ref_chart = _median_load(theirs[visit], "chart_ms")
        chart = _median_load(ours[visit], "chart_ms")
        ref_task = _median_load(theirs[visit], "longest_task_ms")
        figures += [
            Figure("page load", f"first chart visible, {visit}", chart, "ms",
                   FIRST_CHART_MS if visit == "cold" else None),
            Figure("page load", f"first chart, reference, {visit}", ref_chart, "ms"),
            Figure("page load", f"first chart / reference, {visit}", ratio(chart, ref_chart), ""),
            Figure("page load", f"Python wanted to ready, {visit}",
                   median([_intent(load) for load in ours[visit]]), "ms",
                   note="from the sim's first wanting Python (python.js marks it) to live; "
                        f"wanted at {_median_load(ours[visit], 'wanted_ms'):.0f} ms"),
            Figure("page load", f"Python ready, {visit}", ready, "ms",
                   note="from navigation start"),
            Figure("page load", f"Python ready, reference, {visit}", ref_ready, "ms"),
            Figure("page load", f"Python ready / reference, {visit}", ratio(ready, ref_ready), "",
                   READY_COLD_RATIO if visit == "cold" else READY_WARM_RATIO,
                   note=_controlled(ours[visit]) if visit == "warm" else ""),
            Figure("page load", f"longest main-thread task, {visit}", task, "ms",
                   LONGEST_TASK_MS),
            Figure("page load", f"longest main-thread task, CPU within it, {visit}",
                   _median_load(ours[visit], "longest_task_cpu_ms"), "ms",
                   note="the rest of its wall time the thread waited for a core"),
            Figure("page load", f"longest main-thread task, reference, {visit}", ref_task, "ms"),
            Figure("page load", f"longest task / reference, {visit}", ratio(task, ref_task), ""),
        ]
    for visit in ("cold", "warm"):
        figures += _waterfall_figures(ours[visit], visit)
    figures += _offline_worker_figures(ours, theirs, blocked)
    starts = sorted({load.python_start for load in ours["cold"] + ours["warm"]})
    details = {page: {visit: [asdict(load) for load in visits] for visit, visits in kinds.items()}
               for page, kinds in loads.items()}
    details["explainer_python_start"] = starts
    return figures, details


def _waterfall_figures(loads: list[pageload.Load], visit: str) -> list[Figure]:
    """Where the explainer's time to Python ready goes: each step's median end, from
    navigation start, over the visits that had it, in the order they end."""
    steps: dict[str, list[float]] = {}
    for load in loads:
        for step, at in load.waterfall.items():
            steps.setdefault(step, []).append(at)
    ends = sorted((median(times), step, len(times)) for step, times in steps.items())
    return [Figure("waterfall", f"{visit}: {step}", at, "ms",
                   note="" if count == len(loads) else f"in {count} of {len(loads)} visits")
            for at, step, count in ends]


def _controlled(warm: list[pageload.Load]) -> str:
    held = sum(load.controlled for load in warm)
    return f"controlled by the service worker in {held} of {len(warm)} warm visits"


def _offline_worker_figures(ours: dict[str, list[pageload.Load]],
                            theirs: dict[str, list[pageload.Load]],
                            blocked: dict[str, list[pageload.Load]]) -> list[Figure]:
    """Issue 22: a returning reader, whose visit the service worker controls, waits no
    longer than a first-time one, and the worker costs the warm visit nothing."""
    if not all(load.controlled for load in ours["warm"]):
        raise RuntimeError("a warm visit of the explainer was not controlled by the service "
                           "worker: the bench would not measure what a returning reader gets")
    warm, cold = _median_load(ours["warm"], "ready_ms"), _median_load(ours["cold"], "ready_ms")
    warm_blocked = _median_load(blocked["warm"], "ready_ms")
    ref_warm = _median_load(theirs["warm"], "ready_ms")
    return [
        Figure("page load", "Python ready, warm / cold (the worker in control)",
               ratio(warm, cold), "", 1.0, note=_controlled(ours["warm"])),
        Figure("page load", "Python ready, warm, service workers blocked", warm_blocked, "ms",
               note=f"cold, blocked: {_median_load(blocked['cold'], 'ready_ms'):.0f} ms"),
        Figure("page load", "Python ready / reference, warm, service workers blocked",
               ratio(warm_blocked, ref_warm), ""),
        Figure("page load", "Python ready, warm, with the worker / without",
               ratio(warm, warm_blocked), "",
               note="what the offline worker costs a returning reader"),
    ]
