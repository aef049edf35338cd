"""Tests for the routing experiment (scripts/experiments/routing_encoder).

Statistics, features, classifiers and the data set need numpy only and run in `make test`.
The tests marked ``experiments`` run the numpy encoder against the sentence-transformers
reference; they need the experiment-only packages (requirements-experiments.lock) and run
under `make experiments`, which installs them first.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest

from experiments.routing_encoder import dataset as ds
from experiments.routing_encoder import run
from experiments.routing_encoder.classifiers import (
    NearestCentroid,
    SoftmaxRegression,
    log_loss,
    select_l2,
    softmax,
)
from experiments.routing_encoder.encoder import REFERENCE_PATH, erf, gelu
from experiments.routing_encoder.features import TfidfVectorizer, terms
from experiments.routing_encoder.metrics import (
    accuracy,
    bootstrap,
    confusion_matrix,
    expected_calibration_error,
    macro_f1,
    per_class_scores,
    percentiles,
    reliability_bins,
    selective_accuracy,
)

# Deselected by default (pyproject addopts: -m "not experiments"), selected by
# `make experiments` after it installs requirements-experiments.lock: never a silent skip.
needs_model = pytest.mark.experiments


# --- metrics -------------------------------------------------------------------------------

Y = np.array([0, 0, 0, 1, 1, 2])
PRED = np.array([0, 0, 1, 1, 2, 2])


def test_accuracy_and_confusion_matrix_by_hand() -> None:
    assert accuracy(Y, PRED) == pytest.approx(4 / 6)
    assert confusion_matrix(Y, PRED, 3).tolist() == [[2, 1, 0], [0, 1, 1], [0, 0, 1]]


def test_per_class_scores_and_macro_f1_by_hand() -> None:
    # class 0: P 2/2, R 2/3, F1 0.8; class 1: P 1/2, R 1/2, F1 0.5; class 2: P 1/2, R 1, F1 2/3
    scores = per_class_scores(Y, PRED, 3)
    np.testing.assert_allclose(scores, [[1, 2 / 3, 0.8], [0.5, 0.5, 0.5], [0.5, 1, 2 / 3]])
    assert macro_f1(Y, PRED, 3) == pytest.approx((0.8 + 0.5 + 2 / 3) / 3)


def test_macro_f1_ignores_classes_absent_from_the_sample_and_scores_zero_when_undefined() -> None:
    # Class 2 never occurs in y: averaged over classes 0 and 1 only. Class 1 is never
    # predicted: precision undefined -> 0, so its F1 is 0, not NaN.
    y, pred = np.array([0, 0, 1]), np.array([0, 0, 0])
    assert macro_f1(y, pred, 3) == pytest.approx((0.8 + 0.0) / 2)


def test_reliability_bins_and_ece_by_hand() -> None:
    confidence = np.array([0.85, 0.85, 0.55, 0.55])
    correct = np.array([1.0, 0.0, 1.0, 1.0])
    bins = reliability_bins(confidence, correct, 10)
    assert len(bins) == 10 and sum(b.count for b in bins) == 4
    high, low = bins[8], bins[5]          # (0.8, 0.9] and (0.5, 0.6]
    assert (high.count, high.mean_confidence, high.accuracy) == (2, pytest.approx(0.85), 0.5)
    assert (low.count, low.mean_confidence, low.accuracy) == (2, pytest.approx(0.55), 1.0)
    # half the predictions off by 0.35, half by 0.45
    assert expected_calibration_error(confidence, correct, 10) == pytest.approx(0.4)


def test_ece_is_zero_when_confidence_matches_accuracy_and_edges_fall_in_lower_bin() -> None:
    confidence = np.array([0.6] * 5)
    correct = np.array([1.0, 1.0, 1.0, 0.0, 0.0])
    assert expected_calibration_error(confidence, correct, 10) == pytest.approx(0.0)
    assert reliability_bins(confidence, correct, 10)[5].count == 5   # 0.6 is in (0.5, 0.6]
    assert reliability_bins(np.array([1.0]), np.array([1.0]), 10)[9].count == 1


def test_selective_accuracy_by_hand() -> None:
    confidence = np.array([0.95, 0.8, 0.6, 0.3])
    correct = np.array([1.0, 1.0, 0.0, 0.0])
    assert selective_accuracy(confidence, correct, 0.7) == (0.5, 1.0)
    assert selective_accuracy(confidence, correct, 0.5) == (0.75, pytest.approx(2 / 3))
    coverage, acc = selective_accuracy(confidence, correct, 0.99)
    assert coverage == 0.0 and math.isnan(acc)


def test_bootstrap_of_a_constant_is_that_constant_and_seeded() -> None:
    result = bootstrap(lambda i: 0.25, 50, resamples=200, seed=1)
    assert (result.point, result.low, result.high) == (0.25, 0.25, 0.25)
    values = np.arange(20, dtype=float)
    first = bootstrap(lambda i: float(values[i].mean()), 20, resamples=200, seed=7)
    assert first == bootstrap(lambda i: float(values[i].mean()), 20, resamples=200, seed=7)
    assert first.point == pytest.approx(9.5) and first.low < 9.5 < first.high


def test_bootstrap_interval_of_a_coin_matches_the_normal_approximation() -> None:
    # 200 right out of 400: standard error sqrt(0.25 / 400) = 0.025, so +-1.96 * 0.025.
    correct = np.array([1.0, 0.0] * 200)
    result = bootstrap(lambda i: float(correct[i].mean()), 400, resamples=2000, seed=3)
    assert result.point == 0.5
    assert result.low == pytest.approx(0.5 - 0.049, abs=0.008)
    assert result.high == pytest.approx(0.5 + 0.049, abs=0.008)


def test_percentiles_interpolate() -> None:
    assert percentiles([1, 2, 3, 4, 5], (50, 95)) == {"p50": 3.0, "p95": pytest.approx(4.8)}


# --- features and classifiers ----------------------------------------------------------------

def test_terms_are_lowercase_words_then_bigrams() -> None:
    assert terms("Reset my PASSWORD, it's stuck!") == [
        "reset", "my", "password", "it's", "stuck",
        "reset my", "my password", "password it's", "it's stuck"]


def test_tfidf_by_hand() -> None:
    vectorizer = TfidfVectorizer().fit(["a b", "a c"])
    assert list(vectorizer.vocabulary) == ["a", "a b", "a c", "b", "c"]
    rare = math.log(3 / 2) + 1                 # idf of a term in one of two documents
    np.testing.assert_allclose(vectorizer.idf, [1.0, rare, rare, rare, rare])
    row = vectorizer.transform(["a b b"])[0]   # a once, b twice (1 + ln 2), "a b", "b b" unknown
    raw = np.array([1.0, rare, 0.0, (1 + math.log(2)) * rare, 0.0])
    np.testing.assert_allclose(row, raw / np.linalg.norm(raw))
    assert not vectorizer.transform(["zzz"]).any()      # nothing known: a zero row, not NaN


def test_softmax_rows_sum_to_one_even_for_large_logits() -> None:
    probs = softmax(np.array([[1000.0, 1000.0], [0.0, math.log(3.0)]]))
    np.testing.assert_allclose(probs, [[0.5, 0.5], [0.25, 0.75]])


def test_softmax_regression_reaches_the_hand_derived_optimum() -> None:
    # x = +1 is class 1, x = -1 is class 0. By symmetry the bias is 0 and the weights are
    # (-a, a); the objective log(1 + e^(-2a)) + l2 * a^2 is stationary where
    # l2 * a = 1 / (1 + e^(2a)). Solve that by bisection and compare.
    l2 = 0.1
    low, high = 0.0, 10.0
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (mid, high) if l2 * mid < 1 / (1 + math.exp(2 * mid)) else (low, mid)
    model = SoftmaxRegression(l2, tol=1e-10).fit(np.array([[1.0], [-1.0]]), np.array([1, 0]), 2)
    np.testing.assert_allclose(model.weights, [[-low, low], [0.0, 0.0]], atol=1e-6)
    assert model.predict_proba(np.array([[1.0]]))[0, 1] == pytest.approx(
        1 / (1 + math.exp(-2 * low)))


def test_softmax_regression_rejects_zero_penalty() -> None:
    with pytest.raises(ValueError, match="l2"):
        SoftmaxRegression(0.0)


def test_log_loss_by_hand() -> None:
    probs = np.array([[0.5, 0.5], [0.1, 0.9]])
    assert log_loss(probs, np.array([0, 1])) == pytest.approx(-(math.log(0.5) + math.log(0.9)) / 2)


def blobs(seed: int, per_class: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Three well-separated Gaussian clusters in 5 dimensions."""
    rng = np.random.default_rng(seed)
    centres = np.eye(5)[:3] * 4
    x = np.concatenate([c + rng.normal(size=(per_class, 5)) for c in centres])
    return x, np.repeat(np.arange(3), per_class)


def test_select_l2_returns_the_grid_value_with_lowest_loss() -> None:
    x, y = blobs(0)
    folds = ds.stratified_folds(y, 3, seed=0)
    splits = [(x[folds != f], y[folds != f], x[folds == f], y[folds == f]) for f in range(3)]
    chosen, losses = select_l2(splits, 3, (1e-3, 10.0))
    assert set(losses) == {1e-3, 10.0}
    # A penalty of 10 squeezes every probability towards 1/3: much worse held-out loss.
    assert chosen == 1e-3 and losses[10.0] > losses[1e-3]


def test_nearest_centroid_by_hand() -> None:
    x = np.array([[1.0, 0.0], [2.0, 0.2], [0.0, 1.0], [0.1, 3.0]])
    model = NearestCentroid().fit(x, np.array([0, 0, 1, 1]), 2)
    assert model.predict(np.array([[5.0, 1.0], [1.0, 5.0]])).tolist() == [0, 1]


# --- data set and protocol -----------------------------------------------------------------

def test_stratified_folds_balance_every_class_and_are_seeded() -> None:
    y = np.repeat(np.arange(3), [10, 7, 5])
    folds = ds.stratified_folds(y, 4, seed=5)
    assert np.array_equal(folds, ds.stratified_folds(y, 4, seed=5))
    sizes = np.bincount(folds, minlength=4)
    assert sizes.max() - sizes.min() <= 1
    for label in range(3):
        per_fold = np.bincount(folds[y == label], minlength=4)
        assert per_fold.max() - per_fold.min() <= 1


def test_the_hand_written_data_set_is_complete_and_clean() -> None:
    data = ds.load()
    counts = np.bincount(data.y, minlength=len(ds.LABELS))
    assert counts.min() >= 40 and len(data.texts) >= 300
    normalised = [" ".join(t.lower().split()) for t in data.texts]
    assert len(set(normalised)) == len(normalised), "duplicate texts"
    for label in range(len(ds.LABELS)):
        assert data.hard[data.y == label].sum() >= 10


def test_unknown_label_is_an_error_naming_the_line(tmp_path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "hi", "label": "billing", "hard": false}\n'
                   '{"text": "yo", "label": "sales", "hard": false}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2: unknown label 'sales'"):
        ds.load(bad)


def small_dataset() -> tuple[ds.Dataset, np.ndarray]:
    x, y = blobs(1, per_class=20)
    hard = np.zeros(len(y), dtype=bool)
    hard[::4] = True
    return ds.Dataset([f"t{i}" for i in range(len(y))], y, hard, ("a", "b", "c")), x


FAST = replace(run.Parameters(), bootstrap_resamples=100, l2_grid=(0.1, 1.0))


def test_cross_validation_predicts_every_example_from_a_model_that_never_saw_it() -> None:
    data, x = small_dataset()
    oof = run.cross_validate(run.embedding_featurizer(x), data.y, 3, FAST)
    assert oof.probs.shape == (60, 3)
    np.testing.assert_allclose(oof.probs.sum(axis=1), 1.0)
    assert set(oof.chosen_l2) <= set(FAST.l2_grid) and len(oof.chosen_l2) == FAST.outer_folds
    assert accuracy(data.y, oof.probs.argmax(axis=1)) > 0.9
    assert accuracy(data.y, oof.centroid_pred) > 0.9
    # An outlier far from its class is predicted from the others, so it comes out wrong:
    # had it been in its own training fold, a flexible model could have learned it.
    x_odd = np.vstack([x, [[0, 4.0, 0, 0, 0]]])       # sits on class 1's centre
    y_odd = np.append(data.y, 0)
    odd = run.cross_validate(run.embedding_featurizer(x_odd), y_odd, 3, FAST)
    assert odd.probs[-1].argmax() == 1


def test_scores_and_paired_difference_have_the_documented_shape() -> None:
    data, x = small_dataset()
    oof = run.cross_validate(run.embedding_featurizer(x), data.y, 3, FAST)
    scores = run.score_probabilities(oof.probs, data, FAST)
    acc = scores["accuracy"]
    assert acc["ci_low"] <= acc["point"] <= acc["ci_high"]
    assert set(scores["act_only_when_confident"]) == {
        "confidence_at_least_50pct", "confidence_at_least_70pct", "confidence_at_least_90pct"}
    assert sum(b["count"] for b in scores["reliability_bins"]) == 60
    assert sum(map(sum, scores["confusion_matrix"]["counts"])) == 60
    pred = oof.probs.argmax(axis=1)
    same = run.paired_difference(pred, pred, data, FAST)
    assert same["accuracy"] == {"point": 0.0, "ci_low": 0.0, "ci_high": 0.0}
    json.dumps(scores)  # JSON-ready


def test_learning_curve_uses_the_requested_number_of_examples_per_class() -> None:
    data, x = small_dataset()
    seen: list[int] = []

    def featurize(train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        seen.append(len(train))
        return x[train], x[test]

    params = replace(FAST, learning_curve_per_class=(2, 5), learning_curve_repeats=2)
    curve = run.learning_curve(featurize, data.y, 3, 0.1, params)
    assert list(curve) == ["train_2_per_class", "train_5_per_class"]
    assert set(seen) == {2 * 3, 5 * 3}
    for point in curve.values():
        assert point["logreg_accuracy_min"] <= point["logreg_accuracy_mean"] \
            <= point["logreg_accuracy_max"]
        assert point["centroid_accuracy_mean"] > 0.9     # well-separated clusters


def test_most_common_prefers_the_majority_then_the_smaller_value() -> None:
    assert run.most_common([1e-3, 1e-4, 1e-3]) == 1e-3
    assert run.most_common([1e-3, 1e-4]) == 1e-4


def test_tfidf_featurizer_learns_vocabulary_from_training_rows_only() -> None:
    featurize = run.tfidf_featurizer(["alpha beta", "gamma", "alpha"])
    train, test = featurize(np.array([0]), np.array([1, 2]))
    assert train.shape == (1, 3)                       # alpha, alpha beta, beta
    assert not test[0].any() and test[1].any()         # gamma unseen; alpha seen


# --- the encoder ---------------------------------------------------------------------------

def test_erf_and_gelu_match_the_exact_functions() -> None:
    x = np.linspace(-6, 6, 241)
    np.testing.assert_allclose(erf(x), [math.erf(v) for v in x], atol=2e-7)
    np.testing.assert_allclose(gelu(np.array([1.0, -1.0, 0.0])),
                               [0.8413447, -0.1586553, 0.0], atol=1e-6)


@needs_model
def test_numpy_encoder_matches_sentence_transformers_reference() -> None:
    from experiments.routing_encoder.encoder import MiniLMEncoder, reference_agreement

    agreement = reference_agreement(MiniLMEncoder())
    assert agreement["sentences"] == 10
    assert agreement["min_cosine_similarity"] > 0.9999
    assert agreement["max_abs_difference"] < 1e-4


@needs_model
def test_padding_and_truncation_do_not_change_embeddings() -> None:
    from experiments.routing_encoder.encoder import MAX_SEQ_LENGTH, MiniLMEncoder

    encoder = MiniLMEncoder()
    sentences = json.loads(REFERENCE_PATH.read_text())["sentences"]
    one_by_one = encoder.encode(sentences, batch_size=1)
    together = encoder.encode(sentences, batch_size=len(sentences))   # padded to the longest
    np.testing.assert_allclose(one_by_one, together, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    ids, mask = encoder.tokenize(["word " * 400])
    assert ids.shape == (1, MAX_SEQ_LENGTH) and mask.all()
    assert encoder.parameter_count == 22_713_216
