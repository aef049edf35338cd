"""Figures against their targets: a table for the terminal, a JSON file for the record."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ridgepoint.base.layout import Layout


@dataclass
class Figure:
    """One measured figure; `limit` with `at_most` (or at least) makes it a target."""

    group: str
    name: str
    value: float
    unit: str
    limit: float | None = None
    at_most: bool = True
    note: str = ""

    @property
    def met(self) -> bool | None:
        if self.limit is None:
            return None
        return self.value <= self.limit if self.at_most else self.value >= self.limit

    def target(self) -> str:
        if self.limit is None:
            return ""
        return f"{'<=' if self.at_most else '>='} {number(self.limit)} {self.unit}".strip()

    def verdict(self) -> str:
        """met / NOT MET, with the margin in the figure's unit and as a ratio."""
        if self.limit is None:
            return ""
        gap = abs(self.value - self.limit)
        ratio = f", {self.value / self.limit:.2f}x the target" if self.limit else ""
        if self.met:
            return f"met ({number(gap)} {self.unit} to spare)".replace("  ", " ")
        return f"NOT MET (by {number(gap)} {self.unit}{ratio})".replace("  ", " ")


def number(value: float) -> str:
    """Figures as a reader takes them in: 3 significant digits, no exponent."""
    if value == 0 or abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def table(figures: list[Figure]) -> str:
    rows = [("group", "figure", "value", "target", "status")]
    rows += [(f.group, f.name, f"{number(f.value)} {f.unit}".strip(), f.target(), f.verdict())
             for f in figures]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = []
    for index, row in enumerate(rows):
        cells = [row[i].ljust(widths[i]) if i != 2 else row[i].rjust(widths[i])
                 for i in range(4)]
        lines.append("  ".join([*cells, row[4]]).rstrip())
        if index == 0:
            lines.append("  ".join("-" * width for width in widths) + "  ------")
    return "\n".join(lines)


def _output(*command: str, cwd: Path) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, check=False)
    except OSError:
        return ""
    return done.stdout.strip()


def machine(layout: Layout) -> dict[str, Any]:
    """What the figures were measured on: they mean little without it."""
    cpu = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        cpu = next((line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                    if line.startswith("model name")), "")
    memory = ""
    meminfo = Path("/proc/meminfo")
    if meminfo.is_file():
        memory = meminfo.read_text().splitlines()[0].split(":", 1)[1].strip()
    pyodide = json.loads((layout.node_modules / "pyodide" / "package.json").read_text())
    return {
        "platform": platform.platform(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory": memory,
        "python": sys.version.split()[0],
        "node": _output("node", "--version", cwd=layout.code),
        "chromium": (_output("/usr/bin/chromium", "--version", cwd=layout.code).splitlines()[-1:]
                     or [""]),
        "pyodide": pyodide["version"],
        "commit": _output("git", "rev-parse", "--short", "HEAD", cwd=layout.code),
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }


def write_json(path: Path, figures: list[Figure], details: dict[str, Any],
               about: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "machine": about,
        "figures": [{**asdict(f), "target": f.target(), "met": f.met, "verdict": f.verdict()}
                    for f in figures],
        "details": details,
    }
    path.write_text(json.dumps(document, indent=1, default=str) + "\n", encoding="utf-8")
