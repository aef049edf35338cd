"""Transcribe a chosen subset of ai-dynamo/aiconfigurator's per-operation profiles as cited
calibration points (issue 38): content/catalogue/calibration/aiconfigurator-<gpu>.yaml.

    make transcribe AIC=/path/to/aiconfigurator [AIC_COMMIT=<sha>]
    python scripts/transcribe/aiconfigurator.py /path/to/aiconfigurator [--commit <sha>]

aiconfigurator (Apache-2.0, NVIDIA) profiles single operations on real GPUs and stores the
times as parquet tables under aic-core/src/aiconfigurator_core/systems/data/<gpu>/. Nothing
of it is copied into this repository: this script reads a checkout (or an extracted copy;
give --commit when it has no .git) and writes only figures, each naming its file, the
column values of its row and the commit. Rerunning it on the same commit rewrites the same
bytes.

What is read, and why this subset (the grids hold over 100,000 rows per GPU):
- one backend and version for every GPU: TensorRT-LLM 1.3.0rc20's tables (gemm, attention,
  moe, its custom all-reduce) and NCCL 2.29.2's nccl-tests table, the newest versions that
  H100 SXM, H200 SXM and B200 all have;
- shapes that are real layers of catalogue models (and gpt-oss-20b, the smaller sibling of
  gpt-oss-120b), at token counts from one to 16,384, as listed in the tables below.

The training and held-out sets are decided here, by the rule in `split_rule` (written into
each file as `split:`), before anything is fitted; a point never changes set.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from aiconfigurator_choice import (
    DATA,
    HELD_OUT,
    NCCL,
    REPO,
    SYSTEMS,
    TRAINING,
    TRTLLM,
    System,
    split_rule,
)
from aiconfigurator_points import all_reduces, attention, gemms, moes

from ridgepoint.base.atomic import write_atomic
from ridgepoint.base.layout import repository

# -- writing ---------------------------------------------------------------------------


def document(system: System, commit: str, points: list[dict[str, Any]]) -> str:
    """The YAML file, written by hand so that every point is one short block."""
    url = f"https://github.com/{REPO}/tree/{commit}/{DATA}/{system.folder}"
    title = (f"NVIDIA {REPO}, per-operation performance profiles, systems/data/"
             f"{system.folder}: TensorRT-LLM {TRTLLM} tables (gemm, attention, moe, "
             f"custom all-reduce) and NCCL {NCCL} (nccl_perf), commit {commit[:12]}")
    measured_by = (f"NVIDIA's aiconfigurator collectors on an {system.name} (rows' device "
                   f"{system.device!r}): each operation alone, timed over CUDA-graph replays "
                   f"with CUDA events (nccl-tests for NCCL); times are the tables' latency "
                   f"column in milliseconds, to four significant figures")
    lines = [
        "# yaml-language-server: $schema=../../../scripts/ridgepoint/schemas/"
        "calibration.schema.json",
        f"# Written by scripts/transcribe/aiconfigurator.py from {REPO} at {commit}:",
        "# rerun `make transcribe AIC=<checkout>` rather than editing by hand.",
        "publication:",
        f"  title: {json.dumps(title)}",
        f"  url: {url}",
        f"measured_by: {json.dumps(measured_by)}",
        f"split: {json.dumps(split_rule(system))}",
        "points:",
    ]
    for entry in points:
        case = ", ".join(f"{name}: {value}" for name, value in entry["case"].items())
        lines += [f"- key: {entry['key']}", f"  kind: {entry['kind']}",
                  f"  set: {entry['set']}", f"  what: {json.dumps(entry['what'])}",
                  f"  gpu: {entry['gpu']}", f"  where: {json.dumps(entry['where'])}",
                  f"  measured_ms: {entry['measured_ms']!r}", f"  case: {{{case}}}"]
    return "\n".join(lines) + "\n"


def check(system: System, points: list[dict[str, Any]]) -> None:
    """Keys are unique, and (but on the all-held-out H200) every (category, format) has
    points in both sets."""
    keys = [entry["key"] for entry in points]
    if len(keys) != len(set(keys)):
        raise SystemExit(f"{system.key}: two points share a key")
    if system.key == "h200":
        return
    groups: dict[tuple[str, str], set[str]] = {}
    for entry in points:
        case = entry["case"]
        fmt = (case.get("weights") or case.get("experts_format") or case.get("implementation")
               or case.get("kv"))
        groups.setdefault((entry["kind"], fmt), set()).add(entry["set"])
    lacking = [group for group, sets in groups.items() if sets != {TRAINING, HELD_OUT}]
    if lacking:
        raise SystemExit(f"{system.key}: groups without both sets: {lacking}")


def commit_of(root: Path, given: str | None) -> str:
    """The commit the figures cite: the one given, or the checkout's own HEAD (never that
    of a repository the folder merely sits inside)."""
    if given:
        return given
    try:
        top, commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--show-toplevel", "HEAD"], check=True,
            capture_output=True, text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError, ValueError) as error:
        raise SystemExit(f"{root} is not a git checkout: give its commit with --commit"
                         ) from error
    if Path(top).resolve() != root:
        raise SystemExit(f"{root} is inside the checkout {top}, not one of aiconfigurator: "
                         f"give its commit with --commit")
    return commit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Transcribe aiconfigurator's per-operation profiles as calibration points.")
    parser.add_argument("checkout", type=Path, help="a checkout of ai-dynamo/aiconfigurator")
    parser.add_argument("--commit", help="its commit, when the folder has no .git")
    args = parser.parse_args(argv)
    root = args.checkout.resolve()
    commit = commit_of(root, args.commit)
    if len(commit) != 40:
        raise SystemExit(f"{commit!r} is not a full 40-character commit hash")
    out = repository().content / "catalogue" / "calibration"
    for system in SYSTEMS:
        points = [*gemms(root, system), *attention(root, system), *moes(root, system),
                  *all_reduces(root, system)]
        check(system, points)
        path = out / f"aiconfigurator-{system.key}.yaml"
        write_atomic(path, document(system, commit, points))
        print(f"{path.relative_to(out.parents[2])}: {len(points)} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
