"""Lighthouse's four scores for every kind of page, on a phone and on a desktop.

A measurement, not a test: Lighthouse simulates a slow phone (its mobile preset: throttled
network and a 4x slower CPU, by simulation) or a desktop, and its performance score moves
with the machine's load. Accessibility, best practices and SEO are checks with a pass or a
fail per audit, so they should be 100; any audit that costs points is named beside its score.

Lighthouse 12.2.3 is pinned in scripts/bench/node/ (13.x needs Node 22), apart from the
site's package.json so that `make setup` and `make test` do not install it; it runs the
machine's Chromium (CHROME_PATH) with the bench's flags, against the bench's server, which
compresses and answers a missing path with the site's 404 page as a static host does.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from bench.chromium import CHROMIUM, CHROMIUM_ARGS
from bench.report import Figure

LIGHTHOUSE = Path(__file__).parent / "node" / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
PRESETS = ("mobile", "desktop")
# One page of each kind a reader meets. The article embeds a sim, the heavier kind.
PAGE_KINDS = {
    "home": "",
    "explainer": "explainers/batching/",
    "article": "articles/prompt-caching/",
    "glossary": "glossary/",
    "reading feed": "feed/",
    "hub": "feed/tags/latency/",
    "tag listing": "tags/latency/",
    # Lighthouse refuses a document whose status is 404, as a host serves this page for a
    # missing address; it is measured at its own address.
    "404": "404.html",
}
# Audits that fail by design: the 404 page is noindex (issue 20), which is exactly what
# "is-crawlable" checks against. Its SEO score has no target; the other SEO audits have.
BY_DESIGN = {("404", "seo"): {"is-crawlable"}}
CHECKS_TARGET = 100  # accessibility, best practices, SEO
PERFORMANCE_TARGET = 90  # issue 20: mobile, explainers and articles
PERFORMANCE_TARGETED = {("explainer", "mobile"), ("article", "mobile")}
RUN_TIMEOUT_S = 240


@dataclass
class Scores:
    """One Lighthouse run: each category's score (0-100) and the audits that cost points."""

    kind: str
    preset: str
    url: str
    scores: dict[str, int] = field(default_factory=dict)
    failing: dict[str, list[str]] = field(default_factory=dict)
    error: str = ""


def run(url: str, kind: str, preset: str) -> Scores:
    """Lighthouse once on `url` with `preset`; an error is kept, not raised."""
    if not LIGHTHOUSE.exists():
        raise RuntimeError(f"{LIGHTHOUSE} is missing: make bench installs it")
    command = [str(LIGHTHOUSE), url, "--quiet", "--output=json", "--output-path=stdout",
               f"--only-categories={','.join(CATEGORIES)}",
               f"--chrome-flags={' '.join(['--headless=new', *CHROMIUM_ARGS])}"]
    if preset == "desktop":
        command.append("--preset=desktop")
    done = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                          env={**os.environ, "CHROME_PATH": CHROMIUM}, check=False)
    result = Scores(kind, preset, url)
    if done.returncode != 0:
        result.error = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return result
    report = json.loads(done.stdout)
    if report.get("runtimeError"):
        result.error = report["runtimeError"].get("message", "runtime error")
    for name in CATEGORIES:
        category = report["categories"][name]
        if category["score"] is not None:
            result.scores[name] = round(100 * category["score"])
        result.failing[name] = [
            ref["id"] for ref in category["auditRefs"]
            if ref["weight"] > 0 and (report["audits"][ref["id"]]["score"] or 0) < 1
            and report["audits"][ref["id"]]["scoreDisplayMode"] in ("binary", "numeric")
        ]
    return result


def measure(base: str) -> list[Scores]:
    """Every page kind under both presets, one after another (a run takes the machine)."""
    return [run(base + path, kind, preset)
            for preset in PRESETS for kind, path in PAGE_KINDS.items()]


def figures(results: list[Scores]) -> list[Figure]:
    """One figure per page kind, preset and category, each with its target and what cost it."""
    found = []
    for result in results:
        for name in CATEGORIES:
            if name not in result.scores:
                found.append(Figure("lighthouse", f"{result.kind}, {result.preset}: {name}",
                                    0, "", note=f"no score: {result.error}"))
                continue
            limit = None
            if name != "performance":
                limit = CHECKS_TARGET
            elif (result.kind, result.preset) in PERFORMANCE_TARGETED:
                limit = PERFORMANCE_TARGET
            failing = result.failing.get(name, [])
            expected = BY_DESIGN.get((result.kind, name), set())
            note = ("below 1: " + ", ".join(failing)) if failing else ""
            if expected:
                limit = None
                note += f" ({', '.join(sorted(expected))} by design: the page is noindex)"
            label = f"{result.kind}, {result.preset}: {name}"
            found.append(Figure("lighthouse", label, result.scores[name], "", limit,
                                at_most=False, note=note))
            if expected:
                others = [audit for audit in failing if audit not in expected]
                found.append(Figure("lighthouse", f"{label}: other audits below 1", len(others),
                                    "", 0, note=", ".join(others)))
    return found
