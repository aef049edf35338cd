"""What an editor waits for: a full build, the pipeline's share of it, and the content check,
at 1x, 10x and 100x the real content (synthetic, see bench.synthetic).

A build here is `scripts/build.py` (validate, stage, `mkdocs build --strict`, finish) with
warm caches, as an editor's rebuild is. The reference is `mkdocs build --strict` of the very
tree that build staged: the same pages without our pipeline. Each command runs in its own
process and is charged the CPU time it used (user + system, children included): on a
machine shared with other work, wall time counts the others' work too, CPU time does not.
Wall time is reported beside it, and so is the build process's own CPU time (bench.selftime):
our pipeline's work without the MkDocs run it starts, steadier than the difference of two
whole builds.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench import synthetic
from bench.stats import median
from ridgepoint.base.layout import Layout

ENVIRONMENT = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


@dataclass
class Cost:
    """One command's cost: CPU seconds (user + system) and wall seconds."""

    cpu_s: float
    wall_s: float


@dataclass
class Scale:
    """Medians at one content size."""

    factor: int
    items: int  # terms + readings + articles
    pages: int
    runs: int
    build: Cost
    plain: Cost
    check: Cost
    pipeline_cpu_s: float  # the build process's own CPU: the build without its MkDocs run
    build_cpu_runs: list[float]  # every measured build's CPU, to show the median's spread
    site: Path = field(repr=False)

    @property
    def overhead(self) -> float:
        """How much the pipeline adds to a plain build of the same pages (CPU)."""
        return self.build.cpu_s / self.plain.cpu_s - 1


def run(command: list[str], cwd: Path) -> Cost:
    """Run a command in `cwd` to completion (raising with its output if it fails); its cost."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd,
                          env=ENVIRONMENT, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Cost(cpu, wall)


def run_build(command: list[str], report: Path, cwd: Path) -> tuple[Cost, float]:
    """Run a build script (`command` is [python, script, args...]) to completion: its whole
    cost, and the CPU seconds of the build process itself (its children excluded)."""
    cost = run([command[0], "-m", "bench.selftime", str(report), *command[1:]], cwd)
    return cost, json.loads(report.read_text(encoding="utf-8"))["self_cpu_s"]


def _median_cost(costs: list[Cost]) -> Cost:
    return Cost(median([c.cpu_s for c in costs]), median([c.wall_s for c in costs]))


def measure(layout: Layout, work: Path, factor: int, runs: int, warm_up: bool,
            measured: bool = True) -> Scale:
    """Generate the content at `factor` (from the layout's), then build, plain-build and check
    it `runs` times (after one unmeasured build when `warm_up`: caches filled, as on an
    editor's machine). Unless `measured`, only build the site once (for the browser groups)
    and cost nothing."""
    root = work / f"content-{factor}x"
    counts = synthetic.generate(layout.root, root, factor)
    site, stage = work / f"site-{factor}x", work / f"stage-{factor}x" / "docs"
    build = [sys.executable, str(layout.scripts / "build.py"), "--root", str(root),
             "--site-dir", str(site), "--stage-dir", str(stage)]
    config = stage.parent / f"{stage.name}.build.mkdocs.yml"  # written by the build
    plain = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
             "--config-file", str(config), "--site-dir", str(work / f"plain-{factor}x")]
    check = [sys.executable, str(layout.scripts / "check.py"), str(root)]
    if warm_up or not measured:
        run(build, layout.code)
    if not measured:
        pages = sum(1 for _ in site.rglob("index.html"))
        unmeasured = Cost(0.0, 0.0)
        return Scale(factor, counts.total(), pages, 0, unmeasured, unmeasured, unmeasured,
                     0.0, [], site)
    builds, owns, plains, checks = [], [], [], []
    for _ in range(runs):
        cost, own = run_build(build, work / f"selftime-{factor}x.json", layout.code)
        builds.append(cost)
        owns.append(own)
        plains.append(run(plain, layout.code))
        checks.append(run(check, layout.code))
    pages = sum(1 for _ in site.rglob("index.html"))
    return Scale(factor, counts.total(), pages, runs, _median_cost(builds),
                 _median_cost(plains), _median_cost(checks), median(owns),
                 [cost.cpu_s for cost in builds], site)
