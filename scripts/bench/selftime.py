"""Run a Python script and record its own CPU time apart from its children's.

The bench charges a build its whole CPU time (user + system, children included). Our build
runs MkDocs as a child process, so the build process's own time is our pipeline's work
(validation, staging, the CSP pass, feeds, the service worker's release) and its children's
is MkDocs'. This splits the two without the build knowing it is measured:

    python -m bench.selftime REPORT.json SCRIPT [ARGS...]

REPORT.json gets {"self_cpu_s": ..., "children_cpu_s": ...}; the exit status is the
script's.
"""

from __future__ import annotations

import json
import resource
import runpy
import sys
from pathlib import Path


def cpu_seconds(who: int) -> float:
    """User + system CPU seconds of this process (RUSAGE_SELF) or its waited-for children."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    report, script, *arguments = sys.argv[1:]
    sys.argv = [script, *arguments]
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        times = {"self_cpu_s": cpu_seconds(resource.RUSAGE_SELF),
                 "children_cpu_s": cpu_seconds(resource.RUSAGE_CHILDREN)}
        Path(report).write_text(json.dumps(times), encoding="utf-8")


if __name__ == "__main__":
    main()
