"""The reader's taste, learned from the papers they were shown: what they kept and passed over.

Examples are papers with a label (1 = picked, 👍, saved, read; 0 = shown and not picked,
👎, not interested) and a weight (signal strength times recency). Papers the reader never
saw are not examples: a paper outside what an older tool showed was not rejected, and
learning from it would learn the exposure (which ids were shown), not the taste.

Two scores, both in embedding space (so the model only needs ``Embedder.embed``, whatever
the embedding model is) and both cheap (numpy, well under a second for a year of history):

* ``kernel_taste``: a class-balanced kernel density ratio, log p(x | liked) - log p(x |
  passed over), with a Gaussian-like kernel on cosine similarity (width ``tau``). It says
  "this is near papers you kept, far from papers you passed over".
* ``lda_direction``: a linear taste vector, shrinkage LDA (the difference of the class
  means solved against their pooled covariance, shrunk towards a scaled identity).

Measured on the development days (walk-forward, within what the reader was shown; see
/work/notes/issue12-note.md): ``z(profile) + r * (0.5 z(kNN) + 0.5 z(LDA))`` with
``r = min(1, positives / 20)`` adds about +0.09 recall@5 over the profile alone; the earlier
logistic regression on line cosines and categories (without its exposure feature) was
worse than no learning at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np

from paperbrief.models import Paper
from paperbrief.rank.embed import Embedder
from paperbrief.rank.scorers import RankContext, ScorerResult, zscore
from paperbrief.rank.text import paper_text

# Kernel width on cosine similarity and LDA shrinkage: both sit on plateaus of the
# development days' within-day AUC (tau 0.05-0.2, shrinkage 0.7-0.95).
KERNEL_WIDTH = 0.1
LDA_SHRINKAGE = 0.95
# The learned part starts once there are this many positives (fewer say nothing stable).
MIN_POSITIVES = 2


@dataclass(frozen=True)
class FeedbackExample:
    """One paper the reader reacted to: ``label`` 1 = wanted, 0 = not; ``when`` ISO date."""

    paper: Paper
    label: int
    weight: float
    when: str


@dataclass(frozen=True)
class Examples:
    """Labelled examples as arrays: unit embedding rows, labels 0/1 and weights."""

    vectors: np.ndarray  # (m, d)
    labels: np.ndarray  # (m,)
    weights: np.ndarray  # (m,)

    @property
    def positives(self) -> np.ndarray:
        return self.labels == 1


def kernel_taste(vectors: np.ndarray, examples: Examples, tau: float = KERNEL_WIDTH) -> np.ndarray:
    """log(mass of liked examples near x) - log(mass of passed-over examples near x).

    Each class's kernel mass is normalised by its total weight, so the value is 0 where both
    classes are equally dense whatever their sizes. Without negatives it is the positives'
    log density alone (still a ranking: nearer to what was liked is better).
    """
    positive = examples.positives
    similarity = vectors @ examples.vectors.T
    kernel = np.exp((similarity - 1.0) / tau) * examples.weights[None, :]

    def log_mass(members: np.ndarray) -> np.ndarray:
        total = float(examples.weights[members].sum())
        return np.log(kernel[:, members].sum(axis=1) / max(total, 1e-12) + 1e-30)

    if not positive.any():
        return np.zeros(len(vectors))
    score = log_mass(positive)
    if (~positive).any():
        score = score - log_mass(~positive)
    return score


def lda_direction(examples: Examples, shrinkage: float = LDA_SHRINKAGE) -> np.ndarray | None:
    """The shrinkage-LDA taste vector, or None without two examples of each class."""
    positive = examples.positives
    if positive.sum() < 2 or (~positive).sum() < 2:
        return None
    x, w = examples.vectors, examples.weights
    mean_pos = np.average(x[positive], axis=0, weights=w[positive])
    mean_neg = np.average(x[~positive], axis=0, weights=w[~positive])
    centred = np.vstack([x[positive] - mean_pos, x[~positive] - mean_neg])
    weights = np.concatenate([w[positive], w[~positive]])
    covariance = (centred * weights[:, None]).T @ centred / weights.sum()
    target = np.trace(covariance) / covariance.shape[0]
    shrunk = (1 - shrinkage) * covariance + shrinkage * target * np.eye(covariance.shape[0])
    direction: np.ndarray = np.linalg.solve(shrunk, mean_pos - mean_neg)
    return direction


class TasteModel:
    """The learned scorer ``rank_papers`` adds to the profile's score.

    ``fit(examples, today)`` keeps the examples (recency is measured from ``today``);
    ``score(context)`` embeds them once, and returns ``0.5 z(kNN) + 0.5 z(LDA)`` over the
    context's papers (z within the day; kNN alone when LDA lacks examples) with the weight
    ``feedback_weight * min(1, positives / ramp_positives)``: with little feedback the
    ranking stays the profile's, and trust grows with evidence.
    """

    name = "feedback"

    def __init__(
        self,
        embedder: Embedder,
        *,
        weight: float = 1.0,
        ramp_positives: int = 20,
        half_life_days: float = 60.0,
    ) -> None:
        self.embedder = embedder
        self.weight = weight
        self.ramp_positives = ramp_positives
        self.half_life_days = half_life_days
        self.examples: list[FeedbackExample] = []
        self.today: date | None = None
        self.positives = 0
        self.negatives = 0
        self.latest_example = ""  # the latest feedback day learned from (leak checks)
        self._arrays: Examples | None = None

    @property
    def ready(self) -> bool:
        return self.positives >= MIN_POSITIVES and self.weight > 0

    def fit(self, examples: Sequence[FeedbackExample], today: date | None = None) -> TasteModel:
        """Keep ``examples`` (recency measured from ``today``; None = no decay)."""
        self.examples = list(examples)
        self.today = today
        self.positives = sum(e.label == 1 for e in self.examples)
        self.negatives = len(self.examples) - self.positives
        self.latest_example = max((e.when for e in self.examples), default="")
        self._arrays = None
        return self

    def _recency(self) -> np.ndarray:
        if self.today is None or self.half_life_days <= 0:
            return np.ones(len(self.examples))
        today = self.today
        ages = [max((today - date.fromisoformat(e.when[:10])).days, 0) for e in self.examples]
        return np.asarray(0.5 ** (np.array(ages, dtype=float) / self.half_life_days))

    def arrays(self) -> Examples:
        """The examples as arrays (embedded on first use; the embedder caches vectors)."""
        if self._arrays is None:
            vectors = self.embedder.embed([paper_text(e.paper) for e in self.examples])
            self._arrays = Examples(
                vectors=np.asarray(vectors, dtype=np.float64),
                labels=np.array([e.label for e in self.examples], dtype=float),
                weights=np.array([e.weight for e in self.examples]) * self._recency(),
            )
        return self._arrays

    def raw_scores(
        self, vectors: np.ndarray, reference: np.ndarray | None = None
    ) -> dict[str, np.ndarray]:
        """The taste signals for unit ``vectors``, each z-scored over the ``reference`` rows
        (default: all of them)."""
        examples = self.arrays()
        signals = {"knn": zscore(kernel_taste(vectors, examples), reference)}
        direction = lda_direction(examples)
        if direction is not None:
            signals["lda"] = zscore(vectors @ direction, reference)
        return signals

    def evidence(self) -> float:
        """The share of ``weight`` the evidence so far earns (0..1)."""
        if not self.ready:
            return 0.0
        return min(1.0, self.positives / max(self.ramp_positives, 1))

    def score(self, context: RankContext) -> ScorerResult:
        vectors = np.asarray(context.embeddings, dtype=np.float64)
        signals = self.raw_scores(vectors, context.reference)
        combined = sum(signals.values()) / len(signals)
        assert isinstance(combined, np.ndarray)
        return ScorerResult(self.name, additive=combined, weight=self.weight * self.evidence())
