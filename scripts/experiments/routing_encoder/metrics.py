"""Accuracy, macro-F1, calibration and seeded bootstrap intervals, in numpy.

A router acts on its probabilities (answer here, or hand the request on), so calibration
matters as much as accuracy: we report the expected calibration error, the reliability
bins behind it, and what accuracy a confidence threshold buys at what coverage.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np


def accuracy(y: np.ndarray, pred: np.ndarray) -> float:
    """Share of predictions equal to the label."""
    return float(np.mean(y == pred))


def confusion_matrix(y: np.ndarray, pred: np.ndarray, n_classes: int) -> np.ndarray:
    """Counts, rows = true class, columns = predicted class."""
    matrix = np.zeros((n_classes, n_classes), dtype=np.int64)
    np.add.at(matrix, (y, pred), 1)
    return matrix


def per_class_scores(y: np.ndarray, pred: np.ndarray, n_classes: int) -> np.ndarray:
    """(n_classes, 3) array of precision, recall, F1; 0 where undefined (no predictions/support)."""
    matrix = confusion_matrix(y, pred, n_classes)
    tp = np.diag(matrix).astype(np.float64)
    predicted, actual = matrix.sum(axis=0), matrix.sum(axis=1)
    precision = np.divide(tp, predicted, out=np.zeros_like(tp), where=predicted > 0)
    recall = np.divide(tp, actual, out=np.zeros_like(tp), where=actual > 0)
    total = precision + recall
    f1 = np.divide(2 * precision * recall, total, out=np.zeros_like(tp), where=total > 0)
    return np.stack([precision, recall, f1], axis=1)


def macro_f1(y: np.ndarray, pred: np.ndarray, n_classes: int) -> float:
    """Unweighted mean of the per-class F1 scores over classes present in ``y``.

    Classes absent from a bootstrap resample are left out rather than counted as F1 = 0.
    """
    present = np.unique(y)
    return float(per_class_scores(y, pred, n_classes)[present, 2].mean())


@dataclass(frozen=True)
class ReliabilityBin:
    """One confidence bin: its bounds, how many predictions fell in, their mean confidence
    and the share of them that were right."""

    low: float
    high: float
    count: int
    mean_confidence: float
    accuracy: float


def reliability_bins(confidence: np.ndarray, correct: np.ndarray,
                     n_bins: int) -> list[ReliabilityBin]:
    """Equal-width bins over (0, 1]; bin i holds confidences in (i/n, (i+1)/n]. Empty bins kept."""
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    index = np.clip(np.digitize(confidence, edges[1:-1], right=True), 0, n_bins - 1)
    bins = []
    for i in range(n_bins):
        members = index == i
        count = int(members.sum())
        bins.append(ReliabilityBin(
            float(edges[i]), float(edges[i + 1]), count,
            float(confidence[members].mean()) if count else 0.0,
            float(correct[members].mean()) if count else 0.0))
    return bins


def expected_calibration_error(confidence: np.ndarray, correct: np.ndarray,
                               n_bins: int) -> float:
    """Sum over bins of (bin share of predictions) * |bin accuracy - bin mean confidence|."""
    n = len(confidence)
    return float(sum(b.count / n * abs(b.accuracy - b.mean_confidence)
                     for b in reliability_bins(confidence, correct, n_bins) if b.count))


def selective_accuracy(confidence: np.ndarray, correct: np.ndarray,
                       threshold: float) -> tuple[float, float]:
    """(coverage, accuracy on the covered) when only predictions with confidence >= threshold
    are acted on and the rest are handed on; accuracy is NaN when nothing is covered."""
    covered = confidence >= threshold
    coverage = float(covered.mean())
    return coverage, float(correct[covered].mean()) if covered.any() else float("nan")


@dataclass(frozen=True)
class Interval:
    """A point estimate and its percentile-bootstrap interval."""

    point: float
    low: float
    high: float


def bootstrap(statistic: Callable[[np.ndarray], float], n: int, resamples: int, seed: int,
              level: float = 0.95) -> Interval:
    """Percentile bootstrap of ``statistic(indices)`` over ``n`` examples.

    ``statistic`` receives an index array (all of ``0..n-1`` for the point estimate, then
    ``resamples`` draws of ``n`` indices with replacement). Pass a statistic that compares
    two systems on the same indices to get a paired interval for their difference.
    """
    rng = np.random.default_rng(seed)
    values = np.array([statistic(rng.integers(0, n, size=n)) for _ in range(resamples)])
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return Interval(statistic(np.arange(n)), float(low), float(high))


def percentiles(samples: Sequence[float], points: Sequence[float]) -> dict[str, float]:
    """``{"p50": ..., "p95": ...}`` of ``samples`` (linear interpolation)."""
    values = np.quantile(np.asarray(samples, dtype=np.float64), [p / 100 for p in points])
    return {f"p{p:g}": float(v) for p, v in zip(points, values, strict=True)}
