"""Run every experiment and rewrite its result file (``make experiments``).

Each experiment is a package under ``scripts/experiments/`` that runs as ``python -m
<package>`` and writes ``content/data/experiments/<name>.json`` itself, with the machine,
versions, date and parameters. They run one after another, each in a fresh interpreter,
so one experiment's imports, threads or sockets cannot disturb another's measurements; a
failure is reported and the others still run.

    python scripts/run_experiments.py             # all of them
    python scripts/run_experiments.py streaming   # only the named ones
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Sequence

from ridgepoint.base.layout import repository

# The registry: one package per experiment, in the order they run.
EXPERIMENTS = [
    "experiments.streaming",
    "experiments.routing_encoder",
]

TIMEOUT_S = 3600  # per experiment: a hung run fails instead of blocking the rest


def short_name(package: str) -> str:
    """``experiments.streaming`` -> ``streaming``: the name used on the command line."""
    return package.rsplit(".", 1)[-1]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run experiments, rewrite their results.")
    names = [short_name(p) for p in EXPERIMENTS]
    parser.add_argument("names", nargs="*", help=f"any of {', '.join(names)} (default: all)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(names))
    if unknown:
        parser.error(f"unknown experiment(s): {', '.join(unknown)}; known: {', '.join(names)}")
    selected = [p for p in EXPERIMENTS if not args.names or short_name(p) in args.names]
    layout = repository()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(layout.scripts), str(layout.code), *filter(None, [env.get("PYTHONPATH")])]
    )
    failed = []
    for package in selected:
        print(f"== {short_name(package)}", flush=True)
        try:
            code = subprocess.run(
                [sys.executable, "-m", package], cwd=layout.code, env=env, timeout=TIMEOUT_S
            ).returncode
        except subprocess.TimeoutExpired:
            code = -1
        if code != 0:
            failed.append(short_name(package))
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
