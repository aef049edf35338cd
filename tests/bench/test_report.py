"""Figures against targets: met, missed and by how much."""

from __future__ import annotations

import json
from pathlib import Path

from bench.report import Figure, table, write_json


def test_a_target_is_met_or_missed_with_its_margin() -> None:
    fast = Figure("page load", "first chart", 120, "ms", 300)
    slow = Figure("page load", "first chart", 450, "ms", 300)
    floor = Figure("build", "throughput", 8, "pages/s", 10, at_most=False)
    plain = Figure("bytes", "runtime", 12_000, "KB")
    assert fast.met is True and fast.verdict() == "met (180 ms to spare)"
    assert slow.met is False and slow.verdict() == "NOT MET (by 150 ms, 1.50x the target)"
    assert floor.met is False and floor.target() == ">= 10 pages/s"
    assert plain.met is None and plain.verdict() == "" and plain.target() == ""
    printed = table([fast, slow, floor, plain])
    assert "NOT MET (by 150 ms" in printed and "12,000 KB" in printed


def test_the_json_holds_every_figure_and_the_machine(tmp_path: Path) -> None:
    path = tmp_path / "bench.json"
    write_json(path, [Figure("sims", "batching", 3.5, "ms", 20)], {"runs": 3}, {"cores": 2})
    document = json.loads(path.read_text())
    assert document["machine"] == {"cores": 2}
    assert document["figures"][0]["met"] is True
    assert document["figures"][0]["target"] == "<= 20 ms"
    assert document["details"] == {"runs": 3}
