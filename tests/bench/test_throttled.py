"""The slow-link figures from fixed loads: DevTools' presets, the ratio's target, and bytes
counted only up to Python ready."""

from __future__ import annotations

import pytest

from bench.throttled import PROFILES, READY_RATIO, Response, SlowLoad, _figures


def _load(ready_ms: float, sizes: list[tuple[str, int, float]]) -> SlowLoad:
    responses = [Response(path, size, 0.0, end) for path, size, end in sizes]
    before = sum(response.bytes for response in responses if response.end <= ready_ms)
    return SlowLoad(ready_ms, before, sum(size for _, size, _ in sizes), "snapshot", responses)


def test_the_profiles_are_devtools_presets() -> None:
    fast, slow = PROFILES["Fast 4G"], PROFILES["Slow 4G"]
    assert fast == {"download": 1_012_500, "upload": 168_750, "latency": 165}
    assert slow == {"download": 180_000, "upload": 84_375, "latency": 562.5}


def test_ours_beats_the_plain_page_when_ready_first_whatever_the_bytes() -> None:
    ours = [_load(ready, [("/a/snapshot.bin", 5_000_000, ready - 10),
                          ("/a/late.js", 40_000, ready + 500)])
            for ready in (9_000, 11_000, 10_000)]
    theirs = [_load(ready, [("/p/python_stdlib.zip", 2_500_000, ready - 3000)])
              for ready in (12_000, 12_500, 13_000)]
    figures = {figure.name: figure for figure in _figures("Fast 4G", ours, theirs)}
    ratio = figures["Python ready, cold / plain page, Fast 4G"]
    assert ratio.value == pytest.approx(10 / 12.5)
    assert ratio.limit == READY_RATIO and ratio.met
    assert figures["Python ready, cold, Fast 4G"].value == pytest.approx(10.0)
    # The script that came after ready is not in the bytes to ready.
    assert figures["bytes to Python ready, Fast 4G"].value == pytest.approx(5.0)
    assert figures["bytes to Python ready / plain page, Fast 4G"].value == pytest.approx(2.0)
    assert "snapshot.bin 5.00 MB" in figures["bytes to Python ready, Fast 4G"].note


def test_a_slower_explainer_misses_the_target() -> None:
    ours = [_load(60_000, [("/a/snapshot.bin", 9_800_000, 59_000)])]
    theirs = [_load(45_000, [("/p/wasm", 6_500_000, 40_000)])]
    ratio = next(figure for figure in _figures("Slow 4G", ours, theirs)
                 if figure.name == "Python ready, cold / plain page, Slow 4G")
    assert ratio.met is False
