"""Transcribe the all-reduce tables of Azure's AI benchmarking guide into calibration points.

Reads one or more results files of Azure/AI-benchmarking-guide (Azure_Results/ND_*_results.md,
local copies given as GPU=PATH) and prints a calibration set on stdout. Each file has an
"NCCL Bandwidth" (or "RCCL Bandwidth") table: the in-place bus bandwidth of nccl-tests'
(rccl-tests') all_reduce_perf over the VM's 8 GPUs, run as the guide's benchmark script does,
`NCCL_ALGO=<algo> all_reduce_perf -b 8 -e 8G -f 2 -g 8 -n 40` (float, sum), from 1 KB to 8 GB.

The table's sizes are rounded labels ("65K", "132K", "33M") of the doubling sizes 1,024 x 2^i;
each row is read by its position and its label checked against that size. A bus bandwidth B
over n GPUs is turned into the time it stands for: the algorithm bandwidth is B / (2(n-1)/n),
and the time is the size over that. Kept: rows whose printed bandwidth is at least 0.5 GB/s,
so that its rounding to 0.01 GB/s moves the time by under 1%. Every point is held out.

    python scripts/transcribe/azure_all_reduce.py --commit <sha> --algo NVLS \\
        --implementation nvls h100=ND_H100_v5_results.md h200=ND_H200_v5_results.md
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from calibration_yaml import dump

GPUS = 8
ROW = re.compile(r"^\|\s*(\d+)([KMG])\s*\|\s*([\d.]+)\s*\|")
UNITS = {"K": 1, "M": 2, "G": 3}
NAMES = {"h100": "H100", "h200": "H200", "mi300x": "MI300X"}


def rows(text: str) -> list[tuple[str, int, float]]:
    """(label, bytes, bus bandwidth in GB/s) of the bandwidth table, sizes read by position."""
    section = re.search(r"^## [NR]CCL Bandwidth\n(.*?)(?=^## )", text + "\n## ", re.M | re.S)
    if section is None:
        raise ValueError("no NCCL or RCCL Bandwidth section")
    found = []
    for index, match in enumerate(m for line in section[1].splitlines()
                                  if (m := ROW.match(line.strip()))):
        size = 1024 * 2**index
        label = int(match[1])
        power = UNITS[match[2]]
        if not any(abs(label * base**power / size - 1) < 0.02 for base in (1000, 1024)):
            raise ValueError(f"row {index + 1}: label {match[1]}{match[2]} is not {size} bytes")
        found.append((match[1] + match[2], size, float(match[3])))
    return found


def points(gpu: str, path: Path, args: argparse.Namespace) -> list[dict]:
    """The points of one results file."""
    text = path.read_text("utf-8")
    library = re.search(r"^\|\s*([NR]CCL)\s*\|\s*(\S+)\s*\|", text, re.M)
    if library is None:
        raise ValueError(f"{path}: no NCCL or RCCL version in its system table")
    name = library[1] + " " + library[2]
    factor = 2 * (GPUS - 1) / GPUS
    found: list[dict] = []
    for label, size, busbw in rows(text):
        if busbw < 0.5:
            continue
        seconds = size * factor / (busbw * 1e9)
        ms = float(f"{seconds * 1e3:.4g}")
        found.append({
            "key": f"{gpu}-azure-all-reduce-{GPUS}-{size}",
            "kind": "all_reduce",
            "what": (f"All-reduce over {GPUS} {NAMES[gpu]}s, {size:,} bytes (float, sum, in "
                     f"place), {name}, all_reduce_perf with NCCL_ALGO={args.algo}"
                     + (f" ({args.algo_note})" if args.algo_note else "")),
            "gpu": gpu,
            "where": (f"{path.name}, {library[1]} Bandwidth table, row {label}: bus bandwidth "
                      f"{busbw:.2f} GB/s; time = {size} B x 2(n-1)/n ({factor:g} for n = "
                      f"{GPUS}) / {busbw:.2f} GB/s = {seconds * 1e6:.4g} us"),
            "measured_ms": ms,
            "set": "held_out",
            "case": {"gpus": GPUS, "bytes": size, "implementation": args.implementation},
        })
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="GPU=PATH: a catalogue GPU and its results")
    parser.add_argument("--repo", default="Azure/AI-benchmarking-guide")
    parser.add_argument("--commit", required=True)
    parser.add_argument("--folder", default="Azure_Results")
    parser.add_argument("--algo", required=True, help="the NCCL_ALGO the table says it used")
    parser.add_argument("--algo-note", default="", help="what that setting means here")
    parser.add_argument("--implementation", choices=("nccl", "nvls"), default="nccl",
                        help="how the physics prices it: nvls where NCCL_ALGO=NVLS forced "
                             "NVLink SHARP (NVSwitch), nccl where the library chose")
    parser.add_argument("--measured-by", default="Microsoft Azure (AI benchmarking guide)")
    parser.add_argument("--title-note", default="")
    args = parser.parse_args(argv)
    found: list[dict] = []
    names = []
    for spec in args.files:
        gpu, path = spec.split("=", 1)
        found += points(gpu, Path(path), args)
        names.append(Path(path).name)
    folder = f"https://github.com/{args.repo}/blob/{args.commit}/{args.folder}"
    document = {
        "publication": {
            "title": (f"{args.repo} at commit {args.commit[:8]}, {args.folder}/"
                      f"{' and '.join(names)}: the all-reduce bus bandwidth tables "
                      f"(nccl-tests all_reduce_perf, in place, 8 GPUs){args.title_note}"),
            "url": f"{folder}/{names[0]}" if len(names) == 1 else
                   f"https://github.com/{args.repo}/tree/{args.commit}/{args.folder}",
        },
        "measured_by": args.measured_by,
        "split": ("All held out, decided before any prediction was looked at: nccl-tests "
                  "measurements that nothing is fitted to."),
        "points": found,
    }
    sys.stdout.write(dump(document, "scripts/transcribe/azure_all_reduce.py"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
