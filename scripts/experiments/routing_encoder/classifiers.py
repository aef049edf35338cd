"""Two small classifiers in numpy, used on both feature sets so only the features differ.

- ``SoftmaxRegression``: multinomial logistic regression with an L2 penalty, fitted by
  Nesterov's accelerated gradient (the objective is smooth and strongly convex, so this
  converges without a line search). It returns probabilities, which is what a router
  needs to decide when to trust itself.
- ``NearestCentroid``: the mean (unit-length) vector of each class; predict the class with
  the highest cosine similarity. No training beyond averaging: the "few labelled examples
  and an embedding" recipe.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax, shifted by the row maximum for stability."""
    z = np.exp(logits - logits.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def log_loss(probs: np.ndarray, y: np.ndarray) -> float:
    """Mean negative log-probability of the true class (nats), clipped at 1e-15."""
    return float(-np.mean(np.log(np.clip(probs[np.arange(len(y)), y], 1e-15, 1.0))))


class SoftmaxRegression:
    """Minimise mean cross-entropy + (l2 / 2) * ||W||^2 (bias not penalised)."""

    def __init__(self, l2: float, max_iter: int = 20000, tol: float = 1e-5) -> None:
        if l2 <= 0:
            raise ValueError("l2 must be positive (it makes the problem strongly convex)")
        self.l2, self.max_iter, self.tol = l2, max_iter, tol
        self.weights = np.zeros((0, 0))
        self.iterations = 0

    @staticmethod
    def _with_bias(x: np.ndarray) -> np.ndarray:
        return np.hstack([x, np.ones((len(x), 1))])

    def fit(self, x: np.ndarray, y: np.ndarray, n_classes: int) -> SoftmaxRegression:
        """Fit on features ``x`` (n, d) and integer labels ``y`` in ``0..n_classes-1``."""
        xb = self._with_bias(np.asarray(x, dtype=np.float64))
        n = len(xb)
        onehot = np.eye(n_classes)[y]
        penalty = np.ones((xb.shape[1], 1))
        penalty[-1] = 0.0
        # Gradient Lipschitz constant: softmax curvature is at most 1/2 per sample.
        lipschitz = 0.5 * np.linalg.norm(xb, 2) ** 2 / n + self.l2
        step = 1.0 / lipschitz
        root_kappa = np.sqrt(lipschitz / self.l2)
        momentum = (root_kappa - 1) / (root_kappa + 1)
        w = np.zeros((xb.shape[1], n_classes))
        previous = w
        iterations = 0
        while iterations < self.max_iter:
            iterations += 1
            look = w + momentum * (w - previous)
            grad = xb.T @ (softmax(xb @ look) - onehot) / n + self.l2 * penalty * look
            previous, w = w, look - step * grad
            if np.linalg.norm(grad) < self.tol:
                break
        self.weights, self.iterations = w, iterations
        return self

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities, (n, n_classes)."""
        return softmax(self._with_bias(np.asarray(x, dtype=np.float64)) @ self.weights)


Split = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def select_l2(splits: Sequence[Split], n_classes: int,
              grid: Sequence[float]) -> tuple[float, dict[float, float]]:
    """The L2 strength from ``grid`` with the lowest mean held-out log loss over ``splits``.

    Each split is ``(x_train, y_train, x_held, y_held)``. Build them from the TRAINING part
    of an outer fold only (nested cross-validation), so the test fold never influences the
    choice. Returns the choice and the mean loss of each value.
    """
    losses: dict[float, float] = {}
    for l2 in grid:
        losses[l2] = float(np.mean([
            log_loss(SoftmaxRegression(l2).fit(xt, yt, n_classes).predict_proba(xh), yh)
            for xt, yt, xh, yh in splits]))
    return min(losses, key=losses.__getitem__), losses


class NearestCentroid:
    """Predict the class whose mean unit-length feature vector is most cosine-similar."""

    def __init__(self) -> None:
        self.centroids = np.zeros((0, 0))

    def fit(self, x: np.ndarray, y: np.ndarray, n_classes: int) -> NearestCentroid:
        """Average each class's rows (each row scaled to unit length first)."""
        unit = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
        centroids = np.stack([unit[y == c].mean(axis=0) for c in range(n_classes)])
        self.centroids = centroids / np.maximum(
            np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
        return self

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Index of the most similar centroid for each row."""
        return np.argmax(x @ self.centroids.T, axis=1)
