"""The error table: per category and set, how many points, |ours / measured - 1| at the
median and the 90th percentile, and the median ratio (below 1: ours too fast)."""

from __future__ import annotations

import statistics
from collections.abc import Iterable

from calibrate.harness import Harness, Point
from ridgepoint.catalogue.calibration import Errors


def errors(harness: Harness, points: Iterable[Point]) -> dict[tuple[str, str], Errors]:
    """Errors by (category label, set), categories in first-seen order; points in no set
    count as "no set" (held to a band each, or shown with a reason)."""
    grouped: dict[tuple[str, str], list[float]] = {}
    for point in points:
        ratio = harness.ratio(point)
        grouped.setdefault((point.category.label, point.point.set or "no set"), []).append(ratio)
    return {key: Errors.of_ratios(ratios) for key, ratios in grouped.items()}


def table(harness: Harness) -> str:
    """The table as text: one line per category, training and held-out side by side."""
    found = errors(harness, harness.points)
    labels = list(dict.fromkeys(label for label, _ in found))
    lines = [f"{'category':44} {'set':9} {'n':>4} {'median':>7} {'p90':>7} {'ratio':>6}"]
    for label in labels:
        for kind in ("training", "held_out", "no set"):
            row = found.get((label, kind))
            if row:
                lines.append(f"{label:44} {kind:9} {row.count:4d} {row.median:7.1%} "
                             f"{row.p90:7.1%} {row.median_ratio:6.2f}")
    return "\n".join(lines)


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))
