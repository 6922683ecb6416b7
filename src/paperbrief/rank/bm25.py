"""Okapi BM25 over one day's papers (the day is the corpus, so IDF reflects that day)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np


class BM25Index:
    """BM25 index of tokenized documents. ``k1``/``b`` are the usual Okapi parameters."""

    def __init__(
        self,
        documents: Sequence[Sequence[str]],
        k1: float = 1.2,
        b: float = 0.75,
        statistics: Sequence[bool] | None = None,
    ):
        """``statistics`` (a mask over ``documents``) names the documents whose document
        frequencies and lengths define IDF and the length norm (default: all of them)."""
        self.k1 = k1
        self.b = b
        self.size = len(documents)
        self.lengths = np.array([len(doc) for doc in documents], dtype=np.float64)
        counted = np.ones(self.size, dtype=bool) if statistics is None else np.asarray(statistics)
        if not counted.any():
            counted = np.ones(self.size, dtype=bool)
        corpus = int(counted.sum())
        self.average_length = float(self.lengths[counted].mean()) if self.size else 0.0
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for index, doc in enumerate(documents):
            for term, tf in Counter(doc).items():
                docs, tfs = postings.setdefault(term, ([], []))
                docs.append(index)
                tfs.append(tf)
        self.postings = {
            term: (np.array(docs), np.array(tfs, dtype=np.float64))
            for term, (docs, tfs) in postings.items()
        }
        frequency = {term: int(counted[docs].sum()) for term, (docs, _) in self.postings.items()}
        self.idf = {
            term: math.log(1 + (corpus - df + 0.5) / (df + 0.5)) for term, df in frequency.items()
        }
        self.norm = self.k1 * (1 - self.b + self.b * self.lengths / max(self.average_length, 1e-9))

    def term_scores(self, term: str) -> np.ndarray:
        """Per-document BM25 contribution of one query term."""
        scores = np.zeros(self.size)
        if term not in self.postings:
            return scores
        docs, tfs = self.postings[term]
        scores[docs] = self.idf[term] * tfs * (self.k1 + 1) / (tfs + self.norm[docs])
        return scores

    def score(self, query: Mapping[str, float]) -> np.ndarray:
        """Scores of all documents for a weighted bag-of-terms query."""
        total = np.zeros(self.size)
        for term, weight in query.items():
            total += weight * self.term_scores(term)
        return total
