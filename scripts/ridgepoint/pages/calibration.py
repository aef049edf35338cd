"""The calibration page `calibration/`, "How close is this to a real GPU?".

A reader should take in at a glance how far to trust the physics every sim shares: the lede
gives the held-out errors, the chart (ridgepoint.pages.calibration_chart) every point beside
the line where ours equals measured, the table (ridgepoint.pages.calibration_tables) each
category's errors on the points it was fitted to (training) and on those nothing was fitted
to (held out) against its targets, and a list says what the model leaves out. Then every point,
folded per category and one click from its source, the older points held to a band or to
none (tests/sims/test_calibration.py holds the banded ones), and the sources. Every number
is computed from the calibration table (ridgepoint.catalogue.calibration) as this build
priced it.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path

from ridgepoint.base import urls
from ridgepoint.base.markup import esc, link
from ridgepoint.catalogue.calibration import (
    THROUGHPUT_MAX_BATCH,
    THROUGHPUT_TOKEN_BUDGET,
    Errors,
    Row,
    by_target,
    table,
)
from ridgepoint.catalogue.categories import LABELS, SERVED, SERVED_TARGETS, TARGETS
from ridgepoint.content.model import Site
from ridgepoint.pages import calibration_tables as tables
from ridgepoint.pages.calibration_chart import figure
from ridgepoint.pages.common import heading, page, paragraph
from ridgepoint.sims.simcode import SimCode

# What the physics does not model, by a name the page uses to add what the points show of
# it (`_leaves_out`), with numbers computed from the rows and the sims.
LEAVES_OUT = {
    "cpu": "The engine's work on the CPU: scheduling, sampling, detokenizing, the HTTP server. "
           "A step here is its kernels and collectives only; a served run adds its engine's "
           "overheads per step and per request (the engine profiles), constants where the "
           "real ones vary with the batch.",
    "engines": "Each engine's own kernels: every engine's steps are priced with the same "
               "kernel profiles, fitted mostly to TensorRT-LLM's kernels. In a served run's "
               "closed loop of identical requests, the step's token budget alone decides "
               "whether requests that arrive together are prefilled together or drift apart "
               "(their intake times are drawn, their lengths are not); real servers and "
               "clients have more ways to stay in step or not.",
    "overlap": "Overlap of communication with computation: each collective waits for the "
               "kernels before it, and the next kernel waits for the collective.",
    "experts": "Expert imbalance: routing is taken as balanced, and the experts a batch "
               "touches as if each token chose its own independently.",
    "tiles": "Tile and wave quantization: a kernel's time here is smooth in its shape, where "
             "a real GEMM's steps as its tiles fill, or leave idle, the GPU's "
             "multiprocessors.",
    "power": "Power and clocks: every GPU runs at its datasheet's rates; one held below its "
             "full power, or throttling, reaches less.",
}


def calibration_page(site: Site, code: SimCode, charts: Path | None = None) -> str:
    """The page, priced by `code` (the sims as this build read them); the chart drawn into
    `charts`, the SVG cache, or left out when None (`make check` draws no charts)."""
    rows = table(site, code)
    in_sets = [row for row in rows if row.point.set is not None]
    older = [row for row in rows if row.point.set is None]
    held_rows = [row for row in rows if row.point.set == "held_out"]
    held = Errors.of(held_rows) if held_rows else None
    numbers = tables.numbered(rows)
    blocks = [paragraph(_lede(rows, held), "rp-lede"),
              paragraph(f"The GPUs and models are those of the "
                        f"{link(urls.relative(urls.CALIBRATION, urls.CATALOGUE), 'catalogue')}; "
                        f"each kernel class is priced with efficiencies and fixed costs fitted "
                        f"per number format and GPU generation to the training points.",
                        "rp-note"),
              figure(rows, held, charts)]
    profiles = {key: profile.name for key, profile in site.kernels.items()}
    kernels = [row for row in in_sets if row.point.kind not in SERVED]
    served = [row for row in in_sets if row.point.kind in SERVED]
    if kernels:
        blocks += [heading(2, "Error per category", "categories"),
                   paragraph(esc(tables.targets_note()), "rp-note"),
                   tables.category_table(kernels, profiles)]
    if served:
        blocks += [heading(2, "End to end: served runs", "end-to-end"),
                   paragraph(esc(_end_to_end(served) + _deployments(site)), "rp-note"),
                   tables.category_table(served, profiles)]
    blocks += [heading(2, "What the model leaves out", "leaves-out"),
               "<ul>" + "".join(f"<li>{esc(item)}</li>" for item in _leaves_out(site, code, rows))
               + "</ul>"]
    if in_sets:
        blocks += [heading(2, "Every point", "points"), paragraph(esc(
            "Each category's points, folded: a point's description links to its publication, "
            "the line below says where in it the figure is, and the number to the source's "
            "entry below."), "rp-note"), tables.points_by_category(in_sets, numbers)]
    if older:
        blocks += [heading(2, "Older points, in no set", "older"), paragraph(esc(
            "Published figures from before the sets: each held to a band of its own, which a "
            "test holds it to, or shown beside the physics with the reason it is held to none "
            "(whole requests through an engine, and measurements whose conditions the model "
            "does not describe)."), "rp-note"), tables.points_table(older, numbers, reasons=True)]
    blocks += [heading(2, "Sources", "sources"), tables.sources(rows)]
    return page("How close is this to a real GPU?", *blocks,
                description="The shared physics against published measurements: each "
                            "category's error on the points it was fitted to and on points "
                            "held out, every point with its source, and what it leaves out.")


def _lede(rows: Sequence[Row], held: Errors | None) -> str:
    """What the page is and the held-out headline, from the rows."""
    count = {name: sum(row.point.set == name for row in rows) for name in tables.SETS}
    older = len(rows) - sum(count.values())
    text = (f"The physics every sim shares, held to {len(rows):,} published measurements: "
            f"{count['training']:,} it was fitted to (training), {count['held_out']:,} that "
            f"nothing was fitted to (held out)"
            + (f" and {older:,} older points in neither set." if older else "."))
    if held is not None:
        verdicts = [tables.verdict(group.kind, held, trained=training is not None)[0]
                    for group, (training, held) in by_target(rows).items()
                    if held is not None and group.kind in TARGETS
                    and group.kind not in SERVED]
        held_to = [status for status in verdicts if status in ("met", "missed")]
        assumed = verdicts.count("assumed")
        text += (f" On the held-out points the median error is {held.median:.0%} and the "
                 f"90th percentile {held.p90:.0%}; {held_to.count('met')} of the "
                 f"{len(held_to)} fitted kernel classes and throughput groups meet their "
                 f"targets" + (f", and {assumed} more, with no training points of their own, "
                               f"are shown but not held to them." if assumed else "."))
    return esc(text)


def _end_to_end(rows: Sequence[Row]) -> str:
    """What the served runs are, the end-to-end targets, and each figure's held-out errors
    over every engine together (the issue's targets are on the whole held-out set)."""
    text = ("Whole served runs: a benchmark's closed loop of users (or its arrival rate) "
            "through an engine profile (python -m sims serve), against the published figures "
            "of the same set-up. Targets, on the held-out runs: "
            + "; ".join(f"{LABELS[kind].removeprefix('Served ')} median |error| at most "
                        f"{median:.0%}" + (f", p90 at most {p90:.0%}" if p90 else "")
                        for kind, (median, p90) in SERVED_TARGETS.items())
            + ". Over every engine's held-out runs together:")
    parts = []
    for kind in SERVED_TARGETS:
        held = [row for row in rows if row.point.kind == kind and row.point.set == "held_out"]
        if held:
            errors = Errors.of(held)
            parts.append(f"{LABELS[kind].removeprefix('Served ')} {errors.median:.0%} median, "
                         f"{errors.p90:.0%} p90 over {errors.count} runs")
    return f"{text} {'; '.join(parts)}. An engine without training runs of its own keeps " \
           f"assumed overheads: its rows are shown, not held."


def _deployments(site: Site) -> str:
    """The budgets the fit found for deployments whose publications do not give them, and
    the runs reported at their steady state."""
    parts = [f"{_model_name(site, budget.model)} on {budget.gpus} GPU"
             f"{'s' if budget.gpus > 1 else ''} at {budget.tokens:,} tokens"
             for engine in site.engines.values() if engine.deployments
             for budget in engine.deployments.token_budgets]
    steady = any(point.case.warmup for calibration in site.calibration.values()
                 for point in calibration.points)
    text = (" A run whose client reported only its steady state is priced the same way: "
            "its users' first requests, which arrive together, are left out." if steady
            else "")
    if parts:
        text += (" Where a publication does not give its deployments' token budget per step, "
                 "each deployment is priced at the one its own training runs fit best: "
                 + "; ".join(parts) + ".")
    return text


def _leaves_out(site: Site, code: SimCode, rows: Sequence[Row]) -> list[str]:
    """LEAVES_OUT with what the points show of the CPU's work (whole requests) and of
    routing (MoE layers measured with skewed routing), then the memory every fit keeps free
    (from the sims) and offline throughput (from the runs)."""
    shown = dict(LEAVES_OUT)
    requests = [row.ratio for row in rows
                if row.point.kind == "request" and row.point.band is None]
    if requests:
        shown["cpu"] += (f" Whole requests through an engine, held to no band, "
                         f"{_against(requests)}: ours / measured {min(requests):.2f} to "
                         f"{max(requests):.2f} over {len(requests)} such points.")
    moe = [row for row in rows if row.point.kind == "moe"]
    skewed = [row.ratio for row in moe if row.point.case.distribution not in (None, "balanced")]
    balanced = [row.ratio for row in moe if row.point.case.distribution in (None, "balanced")]
    if skewed and balanced:
        routes = ", ".join(sorted({row.point.case.distribution or "" for row in moe} - {
            "", "balanced"}))
        shown["experts"] += (f" The {len(skewed)} MoE layers measured with skewed routing "
                             f"({routes}) are priced as if balanced: ours / measured "
                             f"{statistics.median(skewed):.2f} at the median, against "
                             f"{statistics.median(balanced):.2f} for the {len(balanced)} "
                             f"measured balanced.")
    free = 1 - code.module("physics").USABLE_MEMORY_FRACTION
    memory = (f"Memory beyond weights and KV: activations, CUDA graphs' pools and the "
              f"allocator's slack are the {free:.0%} of memory every fit keeps free, whatever "
              f"they really need.")
    shown["engines"] += _first_tokens(site, rows)
    served = [row for row in rows if row.point.kind == "tpot" and row.point.case.engine != "trtllm"]
    if served:
        ratios = [row.ratio for row in served]
        shown["engines"] += (f" DeepSeek-R1 served by vLLM and SGLang in early 2025 decodes "
                             f"slower than these kernels: ours / measured time per output "
                             f"token {statistics.median(ratios):.2f} at the median over "
                             f"{len(ratios)} runs.")
    return [*shown.values(), memory, *_throughput(site, rows)]


# Served runs at this many users or more are "under load" where their first tokens are told
# apart from those of the runs at a few users.
LOADED_USERS = 25


def _first_tokens(site: Site, rows: Sequence[Row]) -> str:
    """How each served deployment's first-token times come out at a few users and under
    load: where the closed loop's lockstep, and what the engines do that the model does
    not, show."""
    groups: dict[tuple[str, str, int, str], tuple[list[float], list[float]]] = {}
    for row in rows:
        case = row.point.case
        if row.point.kind == "ttft" and case.concurrency:
            light, loaded = groups.setdefault(
                (case.model or "", row.point.gpu or "", case.tp or 1, case.engine or ""),
                ([], []))
            (light if case.concurrency < LOADED_USERS else loaded).append(row.ratio)
    parts = []
    for (model, gpu, tp, engine), (light, loaded) in sorted(groups.items()):
        if not (light and loaded):
            continue
        gpus = f"{tp} {gpu.upper()}{'s' if tp > 1 else ''}"
        served_by = site.engines[engine].name if engine in site.engines else engine
        parts.append(f"{_model_name(site, model)} on {gpus} ({served_by}) "
                     f"{statistics.median(light):.2f} over {len(light)} runs, and "
                     f"{statistics.median(loaded):.2f} ({min(loaded):.2f} to "
                     f"{max(loaded):.2f}) over {len(loaded)}")
    if not parts:
        return ""
    return (f" First-token times, ours / measured at the median with fewer than "
            f"{LOADED_USERS} users, then with {LOADED_USERS} or more (and their range): "
            f"{'; '.join(parts)}.")


def _model_name(site: Site, model: str) -> str:
    return site.models[model].name if model in site.models else model


def _throughput(site: Site, rows: Sequence[Row]) -> list[str]:
    """The engines' own limits in offline runs, and what mixture-of-experts runs show."""
    runs = [row for row in rows if row.point.kind == "throughput"]
    if not runs:
        return []
    moe = sorted(row.ratio for row in runs if _is_moe(site, row.point.case.model))
    dense = [row.ratio for row in runs if not _is_moe(site, row.point.case.model)]
    text = (f"Offline throughput: the engines' own batch limits and per-step overheads. A run "
            f"is priced with as many sequences as the KV cache holds, at most "
            f"{THROUGHPUT_MAX_BATCH:,}, and {THROUGHPUT_TOKEN_BUDGET:,} tokens a step, for each "
            f"attention rank: one under tensor parallelism, every GPU under data-parallel "
            f"attention, where each GPU schedules its own sequences. It works through as many "
            f"requests as the run had where its publication says (TensorRT-LLM's dataset "
            f"table, per pair of lengths): a run of a few thousand requests fills its batch "
            f"at the start and drains it at the end, and spread over eight attention ranks it "
            f"may never fill it.")
    if len(moe) >= 4 and dense:
        low, median, high = statistics.quantiles(moe, n=4)
        text += (f" Mixture-of-experts models' runs {_against([median])}: ours / measured "
                 f"(time per output token) {median:.2f} at the median over {len(moe)} runs, "
                 f"half of them between {low:.2f} and {high:.2f}, where dense models' "
                 f"{len(dense)} runs give {statistics.median(dense):.2f}.")
    spread = {profile: [row.ratio for row in runs if (row.point.case.ep or 0) > 1
                        and row.category.profile == profile] for profile in ("hopper", "blackwell")}
    if all(len(ratios) >= 4 for ratios in spread.values()):
        hopper, blackwell = (statistics.median(spread[key]) for key in ("hopper", "blackwell"))
        text += (f" Those with the experts spread over the GPUs and attention data-parallel "
                 f"move their tokens as TensorRT-LLM does by default: every GPU gathers every "
                 f"GPU's tokens for its experts and the sums come back by reduce-scatter, "
                 f"whatever a token's top-k (an all-to-all only across a multi-node NVLink "
                 f"domain, with the experts on more GPUs than a token picks). They "
                 f"{_against([hopper, blackwell])}: ours / measured {hopper:.2f} at the median "
                 f"over {len(spread['hopper'])} runs on Hopper and {blackwell:.2f} over "
                 f"{len(spread['blackwell'])} on Blackwell. The model leaves out what slows "
                 f"them further: neither the engines' batch limits, nor skewed routing, nor "
                 f"steps that wait for one rank's whole prompt match these runs.")
    return [text]


def _against(ratios: Sequence[float]) -> str:
    """How `ratios` (ours / measured, as times) come out, in words that stay true."""
    if max(ratios) < 1:
        return "come out faster than measured"
    if min(ratios) > 1:
        return "come out slower than measured"
    return "come out both sides of measured"


def _is_moe(site: Site, model: str | None) -> bool:
    config = site.models[model].config if model in site.models else None
    return config is not None and bool(
        config.num_experts or config.num_local_experts or config.n_routed_experts)
