"""The two builders side by side on the real site: `scripts/build.py --builder mkdocs` and
`--builder zensical` (validate, stage, build, finish; warm caches, as an editor's rebuild),
and each builder's own step alone on the same staged tree (`mkdocs build --strict`,
`zensical build --strict`, through the adapters' derived configs).

The runs are interleaved (mkdocs, zensical, mkdocs, ...), so that a busy spell of the shared
machine falls on both; each is charged its CPU time (user + system, children included,
bench.buildcost.run) beside its wall time, and the medians are printed.

    .venv/bin/python -m bench.builders [--runs 5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from bench.buildcost import Cost, run
from bench.stats import median
from ridgepoint import adapters
from ridgepoint.adapters import mkdocs, zensical
from ridgepoint.base.layout import repository


def step_command(builder: str, stage_dir: Path, out: Path) -> list[str]:
    """The builder's own build of `stage_dir` into a folder named `out` (under stage_dir's
    parent for Zensical, which keeps both there)."""
    layout = repository()
    if builder == "mkdocs":
        config = mkdocs.derived_config(layout.mkdocs_yml, stage_dir, "bench", site_dir=str(out))
        return [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config)]
    config = zensical.derived_config(layout.mkdocs_yml, stage_dir, "bench", out.name)
    return zensical.command(config, "build", "--strict")


def measure(runs: int, work: Path) -> dict[str, dict[str, list[Cost]]]:
    layout = repository()
    costs: dict[str, dict[str, list[Cost]]] = {b: {"build": [], "step": []}
                                               for b in adapters.names()}
    stage = {b: work / b / "stage" / "docs" for b in adapters.names()}
    for index in range(runs + 1):  # the first round warms the caches and is not counted
        for builder in adapters.names():
            site = work / builder / f"site-{index}"
            build = run([sys.executable, str(layout.scripts / "build.py"), "--builder", builder,
                         "--site-dir", str(site), "--stage-dir", str(stage[builder])],
                        layout.code)
            step = run(step_command(builder, stage[builder], stage[builder].parent /
                                    f"step-{index}"), stage[builder].parent)
            if index:
                costs[builder]["build"].append(build)
                costs[builder]["step"].append(step)
    return costs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-builders-") as folder:
        costs = measure(args.runs, Path(folder))
    print(f"medians of {args.runs} interleaved runs (CPU = user + system, children included)")
    print(f"{'':10} {'build.py CPU':>13} {'wall':>7} {'builder CPU':>12} {'wall':>7}")
    for builder, kinds in costs.items():
        build, step = kinds["build"], kinds["step"]
        print(f"{builder:10} {median([c.cpu_s for c in build]):12.2f}s "
              f"{median([c.wall_s for c in build]):6.2f}s "
              f"{median([c.cpu_s for c in step]):11.2f}s {median([c.wall_s for c in step]):6.2f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
