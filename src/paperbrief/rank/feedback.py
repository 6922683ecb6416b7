"""The learned scorer: what the reader's own signals say about a new paper.

Signals (``store.feedback_events``) become weighted examples: picked / 👍 / saved / read
are positives, 👎 / not interested are negatives, and papers that were only shown count as
weak negatives. Recent feedback weighs more (exponential decay with ``half_life_days``),
because interests drift. The model is an L2-regularised logistic regression on the
papers' embeddings (plain numpy, a fraction of a second for thousands of examples), or a
positive-centroid similarity when there are too few negatives to fit one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Protocol

import numpy as np

from paperbrief.models import Paper
from paperbrief.rank.embed import Embedder
from paperbrief.rank.scorers import RankContext, ScorerResult, zscore
from paperbrief.rank.text import paper_text

# Per signal: (label, weight). The strongest, most recent explicit signal decides a paper.
SIGNALS: dict[str, tuple[int, float]] = {
    "picked": (1, 1.0),
    "up": (1, 1.0),
    "save": (1, 1.2),
    "read": (1, 0.5),
    "down": (0, 1.0),
    "hide": (0, 1.5),
    "shown": (0, 1.0),
}


@dataclass(frozen=True)
class FeedbackExample:
    """One paper the reader reacted to: ``label`` 1 = wanted, 0 = not; ``when`` ISO date."""

    paper: Paper
    label: int
    weight: float
    when: str


def examples_from_events(
    events: Iterable[tuple[str, str, str]], papers: dict[str, Paper]
) -> list[FeedbackExample]:
    """Turn ``(paper_id, signal, created_at)`` events into one example per known paper.

    An explicit signal (anything but ``shown``) overrides ``shown``; among explicit ones
    the latest wins. Papers not in ``papers`` are skipped (their text is unknown).
    """
    latest: dict[str, tuple[str, str]] = {}
    for paper_id, signal, created_at in events:
        if signal not in SIGNALS:
            continue
        previous = latest.get(paper_id)
        if previous is None or previous[0] == "shown" or signal != "shown":
            latest[paper_id] = (signal, created_at)
    examples = []
    for paper_id, (signal, created_at) in latest.items():
        paper = papers.get(paper_id)
        if paper is None:
            continue
        label, weight = SIGNALS[signal]
        examples.append(FeedbackExample(paper, label, weight, created_at[:10]))
    return examples


def _fit_logistic(
    features: np.ndarray, labels: np.ndarray, weights: np.ndarray, l2: float, steps: int = 300
) -> np.ndarray:
    """Weighted L2 logistic regression by gradient descent with momentum (bias last)."""
    design = np.hstack([features, np.ones((features.shape[0], 1), dtype=features.dtype)])
    coef = np.zeros(design.shape[1])
    velocity = np.zeros_like(coef)
    total = weights.sum()
    rate = 2.0
    for _ in range(steps):
        logits = design @ coef
        probability = 1.0 / (1.0 + np.exp(-np.clip(logits, -30, 30)))
        gradient = design.T @ (weights * (probability - labels)) / total
        gradient[:-1] += l2 * coef[:-1]
        velocity = 0.9 * velocity - rate * gradient
        coef += velocity
    return coef


class FeedbackModel:
    """A scorer learned from feedback, fused with the profile scorers by ``rank_papers``.

    ``fit(examples, today)`` trains it; ``ready`` says whether there was enough to learn
    from; ``score(context)`` returns an additive, day-normalised ``ScorerResult``.
    """

    name = "feedback"

    def __init__(
        self,
        embedder: Embedder,
        *,
        weight: float = 0.8,
        half_life_days: float = 30.0,
        l2: float = 1e-3,
        min_positives: int = 3,
    ) -> None:
        self.embedder = embedder
        self.weight = weight
        self.half_life_days = half_life_days
        self.l2 = l2
        self.min_positives = min_positives
        self.coef: np.ndarray | None = None
        self.centroid: np.ndarray | None = None
        self.positives = 0
        self.negatives = 0
        self.latest_example = ""  # latest feedback day learned from (leak checks)

    @property
    def ready(self) -> bool:
        return self.coef is not None or self.centroid is not None

    def _recency(self, examples: Sequence[FeedbackExample], today: date) -> np.ndarray:
        ages = np.array(
            [max((today - date.fromisoformat(e.when)).days, 0) for e in examples], dtype=float
        )
        return 0.5 ** (ages / self.half_life_days)

    def fit(self, examples: Sequence[FeedbackExample], today: date | None = None) -> FeedbackModel:
        """Learn from ``examples`` (recency measured from ``today``, default: now)."""
        today = today or datetime.now().date()
        positives = [e for e in examples if e.label == 1]
        negatives = [e for e in examples if e.label == 0]
        self.positives, self.negatives = len(positives), len(negatives)
        self.latest_example = max((e.when for e in examples), default="")
        self.coef = self.centroid = None
        if len(positives) < self.min_positives:
            return self
        vectors = self.embedder.embed([paper_text(e.paper) for e in examples])
        recency = self._recency(examples, today)
        labels = np.array([e.label for e in examples], dtype=float)
        weights = np.array([e.weight for e in examples]) * recency
        positive_mask = labels == 1
        centroid = (vectors[positive_mask] * weights[positive_mask, None]).sum(axis=0)
        self.centroid = centroid / max(float(np.linalg.norm(centroid)), 1e-12)
        if len(negatives) >= 5 * len(positives):
            # Balance the classes so the few positives are not drowned out.
            weights = np.where(
                positive_mask,
                weights / weights[positive_mask].sum(),
                weights / weights[~positive_mask].sum(),
            )
            self.coef = _fit_logistic(vectors.astype(np.float64), labels, weights, self.l2)
        return self

    def raw_scores(self, vectors: np.ndarray) -> np.ndarray:
        if self.coef is not None:
            return vectors @ self.coef[:-1] + self.coef[-1]
        if self.centroid is not None:
            return vectors @ self.centroid
        return np.zeros(len(vectors))

    def score(self, context: RankContext) -> ScorerResult:
        vectors = context.embeddings
        values = zscore(self.raw_scores(vectors.astype(np.float64)))
        return ScorerResult(self.name, additive=values, weight=self.weight)


class FeedbackStore(Protocol):
    """What the learner reads from the store (``paperbrief.store.Store`` implements it)."""

    def feedback_events(self, before: str | None = None) -> list[Any]: ...

    def get_papers(self, paper_ids: Iterable[str]) -> dict[str, Paper]: ...


def load_feedback(
    store: FeedbackStore,
    embedder: Embedder,
    *,
    before: str | None = None,
    today: date | None = None,
    **settings: float,
) -> FeedbackModel:
    """Train a :class:`FeedbackModel` on the stored feedback older than ``before``.

    ``before`` is an ISO timestamp (events at or after it are ignored: the ranked day and
    later must not leak in); ``today`` anchors recency (default: the date of ``before``,
    else now). This is the one path from stored signals to the learned scorer, used by the
    daily run and by ``paperbrief eval ranking --learn`` alike.
    """
    events = store.feedback_events(before=before)
    papers = store.get_papers(e.paper_id for e in events)
    examples = examples_from_events(((e.paper_id, e.signal, e.created_at) for e in events), papers)
    if today is None and before is not None:
        today = date.fromisoformat(before[:10])
    return FeedbackModel(embedder, **settings).fit(examples, today)  # type: ignore[arg-type]
