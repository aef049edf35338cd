"""`make bench`: measure what readers and editors feel, against the targets of issue 7.

    python scripts/bench.py                  # everything (several minutes), build/bench.json
    python scripts/bench.py --quick          # one run each, no 100x build (development)
    python scripts/bench.py --json FILE      # write the figures elsewhere
    python scripts/bench.py --only interaction --sim routing   # one group, one sim
    python scripts/bench.py --only serve     # save to reload under make serve, 1x and 10x
    python scripts/bench.py --only slow      # cold loads on throttled links, Fast and Slow 4G

Prints one table (every figure, its target, met or not and by how much) and writes the same
with a description of the machine as JSON. Needs Chromium at /usr/bin/chromium and Node
(`make setup` provides the rest). Exits 0 whether or not targets are met: a missed target is
a finding, reported, not a crash.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from bench import report
from bench.run import GROUPS, everything
from ridgepoint.base.layout import repository


def main(argv: list[str] | None = None) -> int:
    layout = repository()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs, no 100x build")
    parser.add_argument("--json", type=Path, default=layout.build / "bench.json")
    parser.add_argument("--only", action="append", choices=GROUPS,
                        help="measure only this group (repeatable; default: every group)")
    parser.add_argument("--sim", action="append",
                        help="in the interaction group, only this sim (repeatable)")
    args = parser.parse_args(argv)
    about = report.machine(layout)
    work = Path(tempfile.mkdtemp(prefix="ridgepoint-bench-"))
    try:
        figures, details = everything(
            layout, work, args.quick, frozenset(args.only or GROUPS),
            frozenset(args.sim) if args.sim else None)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    about["load_average_after"] = report.machine(layout)["load_average"]
    print(report.table(figures))
    print(f"\nload average (1, 5, 15 min) before: {_loads(about['load_average'])}; "
          f"after: {_loads(about['load_average_after'])} (2 cores: above 2 the figures include "
          "waiting for a core; see the CPU figures beside them)")
    report.write_json(args.json, figures, details, about)
    missed = [figure for figure in figures if figure.met is False]
    print(f"\n{len(figures)} figures, {sum(f.met is not None for f in figures)} with a target, "
          f"{len(missed)} missed; took {details['duration_s']} s; written to {args.json}")
    return 0


def _loads(values: tuple[float, ...] | None) -> str:
    return ", ".join(f"{value:.2f}" for value in values) if values else "unknown"


if __name__ == "__main__":
    sys.exit(main())
