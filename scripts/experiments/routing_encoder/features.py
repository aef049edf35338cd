"""TF-IDF over word unigrams and bigrams: the bag-of-words baseline's features.

The vocabulary and the inverse document frequencies are learned from the training texts
only; words never seen in training are dropped at prediction time, which is exactly the
baseline's weakness that a pretrained encoder is supposed to fix.
"""

from __future__ import annotations

import re

import numpy as np

TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def terms(text: str) -> list[str]:
    """Lower-cased words, then adjacent-word bigrams: "Reset password" -> reset, password,
    "reset password"."""
    words = TOKEN.findall(text.lower())
    return words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]


class TfidfVectorizer:
    """Sublinear TF (1 + ln tf) times smoothed IDF (ln((1 + n) / (1 + df)) + 1), L2-normalised rows.

    The same weighting as scikit-learn's ``TfidfVectorizer(sublinear_tf=True)``.
    """

    def __init__(self) -> None:
        self.vocabulary: dict[str, int] = {}
        self.idf = np.zeros(0)

    def fit(self, texts: list[str]) -> TfidfVectorizer:
        """Learn the vocabulary and IDF weights from ``texts``."""
        docs = [set(terms(t)) for t in texts]
        self.vocabulary = {term: i for i, term in enumerate(sorted(set().union(*docs)))}
        df = np.zeros(len(self.vocabulary))
        for doc in docs:
            df[[self.vocabulary[t] for t in doc]] += 1
        self.idf = np.log((1 + len(texts)) / (1 + df)) + 1
        return self

    def transform(self, texts: list[str]) -> np.ndarray:
        """A dense (len(texts), vocabulary) matrix; unknown terms are ignored."""
        out = np.zeros((len(texts), len(self.vocabulary)))
        for row, text in enumerate(texts):
            columns = [self.vocabulary[t] for t in terms(text) if t in self.vocabulary]
            index, counts = np.unique(np.array(columns, dtype=np.int64), return_counts=True)
            out[row, index] = (1 + np.log(counts)) * self.idf[index]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)
