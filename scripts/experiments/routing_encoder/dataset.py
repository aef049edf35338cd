"""The labelled requests and how they are split.

``data.jsonl`` beside this module was written by hand by the Ridgepoint team for this
experiment: short requests to a made-up project-management SaaS, one JSON object per line
(``text``, ``label``, ``hard``). It is not sampled from real traffic. The label is the
handler that has to act on the request (LABELS below); ``hard`` marks the examples we
wrote to be difficult on purpose: another class's vocabulary (a bug report that mentions an
invoice), no keywords at all ("I'm locked out."), typos, or a question form that belongs
to another class ("How come search finds nothing anymore?" is a bug).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DATA_PATH = Path(__file__).with_name("data.jsonl")

# label -> who handles it; the order fixes class indices everywhere.
LABELS: dict[str, str] = {
    "billing": "Billing team: charges, refunds, invoices, plans, cancellation.",
    "account_access": "Support: sign-in, passwords, two-factor, SSO, locked or lost accounts.",
    "bug_report": "Engineering triage: the product misbehaves.",
    "feature_request": "Product team: a capability the product does not have.",
    "privacy_security": "Security and privacy: data rights, compliance, vulnerabilities, "
                        "suspected compromise.",
    "how_to": "Self-service: answered from the documentation.",
    "frontier_llm": "A general-purpose LLM: the request asks for new text, code or analysis.",
}


@dataclass(frozen=True)
class Dataset:
    """Texts, integer labels (indices into ``label_names``) and the hard-case flags."""

    texts: list[str]
    y: np.ndarray
    hard: np.ndarray
    label_names: tuple[str, ...]


def load(path: Path = DATA_PATH) -> Dataset:
    """Read a JSONL file of ``{"text", "label", "hard"}`` records; unknown labels are errors."""
    names = tuple(LABELS)
    texts: list[str] = []
    labels: list[int] = []
    hard: list[bool] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        record = json.loads(line)
        if record["label"] not in LABELS:
            raise ValueError(f"{path}:{number}: unknown label {record['label']!r}")
        texts.append(record["text"])
        labels.append(names.index(record["label"]))
        hard.append(bool(record["hard"]))
    return Dataset(texts, np.array(labels, dtype=np.int64), np.array(hard), names)


def stratified_folds(y: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Assign each example a fold in ``0..k-1`` so every class is spread evenly over folds.

    Each class's examples are shuffled (seeded) and dealt round-robin, continuing the deal
    where the previous class stopped, so fold sizes differ by at most one.
    """
    rng = np.random.default_rng(seed)
    folds = np.empty(len(y), dtype=np.int64)
    offset = 0
    for label in np.unique(y):
        members = rng.permutation(np.flatnonzero(y == label))
        folds[members] = (offset + np.arange(len(members))) % k
        offset += len(members)
    return folds
