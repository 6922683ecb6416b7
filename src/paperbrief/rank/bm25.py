"""Okapi BM25 over one day's papers (the day is the corpus, so IDF reflects that day)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np


class BM25Index:
    """BM25 index of tokenized documents. ``k1``/``b`` are the usual Okapi parameters."""

    def __init__(self, documents: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75):
        self.k1 = k1
        self.b = b
        self.term_counts = [Counter(doc) for doc in documents]
        self.lengths = np.array([len(doc) for doc in documents], dtype=np.float64)
        self.average_length = float(self.lengths.mean()) if len(documents) else 0.0
        frequencies: Counter[str] = Counter()
        for counts in self.term_counts:
            frequencies.update(counts.keys())
        total = len(documents)
        self.idf = {
            term: math.log(1 + (total - df + 0.5) / (df + 0.5)) for term, df in frequencies.items()
        }

    def term_scores(self, term: str) -> np.ndarray:
        """Per-document BM25 contribution of one query term."""
        idf = self.idf.get(term)
        scores = np.zeros(len(self.term_counts))
        if idf is None:
            return scores
        norm = self.k1 * (1 - self.b + self.b * self.lengths / max(self.average_length, 1e-9))
        for index, counts in enumerate(self.term_counts):
            tf = counts.get(term, 0)
            if tf:
                scores[index] = idf * tf * (self.k1 + 1) / (tf + norm[index])
        return scores

    def score(self, query: Mapping[str, float]) -> np.ndarray:
        """Scores of all documents for a weighted bag-of-terms query."""
        total = np.zeros(len(self.term_counts))
        for term, weight in query.items():
            total += weight * self.term_scores(term)
        return total
