"""Routing requests with a small encoder: all-MiniLM-L6-v2 against a bag-of-words baseline.

A production system often needs a decision per request (which handler, or whether a
frontier LLM is needed at all), not prose. This experiment measures how well, and how
fast on a CPU, a 22.7M-parameter sentence encoder plus a linear classifier makes that
decision on a small hand-written data set, against TF-IDF features with the same
classifier. Run with ``python -m experiments.routing_encoder`` (``make experiments``);
results go to ``content/data/experiments/routing_encoder.json``.

Modules: ``dataset`` (the labelled requests and the folds), ``features`` (TF-IDF),
``classifiers`` (softmax regression, nearest centroid), ``metrics`` (accuracy, macro-F1,
calibration, bootstrap intervals), ``encoder`` (the model in numpy), ``run`` (the
experiment and its result file).
"""
