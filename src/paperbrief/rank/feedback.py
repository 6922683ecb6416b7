"""The learned scorer: what the reader's own signals say about a new paper.

Signals (``store.feedback``) become weighted examples: picked / 👍 / saved / read
are positives, 👎 / not interested are negatives, papers only shown count as negatives,
and a listing day the reader accepted papers from counts its other papers as shown.
Recent feedback weighs more (exponential decay, ``half_life_days``) because interests
drift. The model is an L2 logistic regression (plain numpy, well under a second) on a few
dozen day-independent features: relevance to each research line (cosine, key-phrase hits),
arXiv categories, cross-listing and the paper's submission order within its day. With too
few negatives it falls back to the similarity to the positives' centroid. Its weight in the
fusion grows with the number of positives (``full_weight_positives``).

Measured on the development picks (benchmarks/ranking_bench.py): almost all of the gain
comes from the submission-order feature — the reader's history only ever accepted papers
from the latest ~15% of a day's submissions (probably an artifact of how their digests were
produced). Without it, learning adds nothing over the profile; with it, recall@20 goes from
0.37 to about 0.74. ``use_submission_order=False`` switches it off.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Protocol

import numpy as np

from paperbrief.models import Listing, Paper, Signal
from paperbrief.profile import Profile
from paperbrief.rank.embed import Embedder
from paperbrief.rank.scorers import (
    RankContext,
    ScorerResult,
    keyword_hits,
    line_query_text,
    zscore,
)
from paperbrief.records import FeedbackEvent

# Per signal: (label, weight). The strongest, most recent explicit signal decides a paper.
SIGNAL_WEIGHTS: dict[Signal, tuple[int, float]] = {
    Signal.PICKED: (1, 1.0),
    Signal.UP: (1, 1.0),
    Signal.SAVE: (1, 1.2),
    Signal.READ: (1, 0.5),
    Signal.DOWN: (0, 1.0),
    Signal.HIDE: (0, 1.5),
    Signal.SHOWN: (0, 1.0),
}


@dataclass(frozen=True)
class FeedbackExample:
    """One paper the reader reacted to: ``label`` 1 = wanted, 0 = not; ``when`` ISO date."""

    paper: Paper
    label: int
    weight: float
    when: str


Event = tuple[str, Signal, str]  # (paper id, signal, ISO timestamp)


def examples_from_events(
    events: Iterable[Event], papers: dict[str, Paper]
) -> list[FeedbackExample]:
    """Turn ``(paper_id, signal, created_at)`` events into one example per known paper.

    An explicit signal (anything but ``shown``) overrides ``shown``; among explicit ones
    the latest wins. Papers not in ``papers`` are skipped (their text is unknown).
    """
    latest: dict[str, tuple[Signal, str]] = {}
    for paper_id, signal, created_at in events:
        previous = latest.get(paper_id)
        if previous is None or previous[0] == Signal.SHOWN or signal != Signal.SHOWN:
            latest[paper_id] = (signal, created_at)
    examples = []
    for paper_id, (signal, created_at) in latest.items():
        paper = papers.get(paper_id)
        if paper is None:
            continue
        label, weight = SIGNAL_WEIGHTS[signal]
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


# Submission-order bins: a step feature, because a reader (or the feed they read) may only
# ever see the latest submissions of a day, which a linear term cannot express.
ORDER_BINS = (0.7, 0.8, 0.9)


def submission_order(papers: Sequence[Paper], groups: Sequence[str] | None = None) -> np.ndarray:
    """Each paper's position in its day by arXiv id (0 = submitted first, 1 = last).

    ``groups`` (e.g. the listing day of each paper) ranks within each group separately.
    """
    keys = list(groups) if groups is not None else [""] * len(papers)
    order = np.zeros(len(papers))
    by_group: dict[str, list[int]] = {}
    for index, key in enumerate(keys):
        by_group.setdefault(key, []).append(index)
    for members in by_group.values():
        ranked = sorted(members, key=lambda i: papers[i].id)
        for position, index in enumerate(ranked):
            order[index] = position / max(len(members) - 1, 1)
    return order


def paper_features(
    context: RankContext, categories: Sequence[str], order: np.ndarray
) -> np.ndarray:
    """Low-dimensional features of each paper in ``context``, comparable across days:
    cosine to each research line, key-phrase hits per line, indicators for ``categories``
    (listed in / primary), cross-list-only, and the submission order within its day
    (``order``, with step bins). The raw embedding is left out on purpose: with a few
    dozen positives it overfits (measured in benchmarks/ranking_bench.py)."""
    vectors = context.embeddings.astype(np.float64)
    lines = context.lines
    line_vectors = context.embedder.embed([line_query_text(line) for line in lines])
    cosines = vectors @ line_vectors.T.astype(np.float64)
    hits = np.array(
        [
            [len(keyword_hits(view, line.keywords)) for line in lines]
            for view in context.phrase_views
        ],
        dtype=np.float64,
    ).reshape(len(context.papers), len(lines))
    category_columns = np.array(
        [
            [float(c in paper.categories) for c in categories]
            + [float(paper.primary_category == c) for c in categories]
            + [float(paper.is_cross_list_only)]
            for paper in context.papers
        ],
        dtype=np.float64,
    ).reshape(len(context.papers), 2 * len(categories) + 1)
    order_columns = np.stack([order, *[(order >= b).astype(float) for b in ORDER_BINS]], axis=1)
    return np.hstack([cosines, np.log1p(hits), category_columns, order_columns])


CENTROID_SHARE = 0.3


class FeedbackModel:
    """A scorer learned from feedback, fused with the profile scorers by ``rank_papers``.

    ``fit(examples, today)`` keeps the examples; the model itself is trained on first
    ``score(context)``, because its features include the relevance to the profile's research
    lines (``context.profile``). ``ready`` says whether there is enough to learn from.
    Features are standardised on the training data, then an L2 logistic regression (classes
    balanced, examples weighted by signal strength and recency) gives the raw score; with
    too few negatives the similarity to the (recency-weighted) centroid of positives is used.
    """

    name = "feedback"

    def __init__(
        self,
        embedder: Embedder,
        *,
        weight: float = 8.0,
        half_life_days: float = 30.0,
        l2: float = 1e-2,
        min_positives: int = 3,
        min_category_examples: int = 3,
        use_submission_order: bool = True,
        full_weight_positives: int = 30,
    ) -> None:
        self.embedder = embedder
        self.weight = weight
        self.half_life_days = half_life_days
        self.l2 = l2
        self.min_positives = min_positives
        self.min_category_examples = min_category_examples
        self.use_submission_order = use_submission_order
        self.full_weight_positives = full_weight_positives
        self.examples: list[FeedbackExample] = []
        self.today = datetime.now().date()
        self.positives = 0
        self.negatives = 0
        self.latest_example = ""  # latest feedback day learned from (leak checks)
        self._trained_for: str | None = None
        self._coef: np.ndarray | None = None
        self._centroid: np.ndarray | None = None
        self._mean: np.ndarray | None = None
        self._scale: np.ndarray | None = None
        self._categories: list[str] = []

    @property
    def ready(self) -> bool:
        return self.positives >= self.min_positives

    def _recency(self, examples: Sequence[FeedbackExample]) -> np.ndarray:
        ages = np.array(
            [max((self.today - date.fromisoformat(e.when)).days, 0) for e in examples], dtype=float
        )
        return 0.5 ** (ages / self.half_life_days)

    def _order(self, papers: Sequence[Paper], groups: Sequence[str] | None) -> np.ndarray:
        if not self.use_submission_order:
            return np.zeros(len(papers))  # constant columns: standardised to zero
        return submission_order(papers, groups)

    def fit(self, examples: Sequence[FeedbackExample], today: date | None = None) -> FeedbackModel:
        """Keep ``examples`` for training (recency measured from ``today``, default: now)."""
        self.today = today or datetime.now().date()
        self.examples = list(examples)
        self.positives = sum(e.label == 1 for e in self.examples)
        self.negatives = len(self.examples) - self.positives
        self.latest_example = max((e.when for e in self.examples), default="")
        self._trained_for = None
        return self

    def _train(self, profile: Profile) -> None:
        key = profile.ranking_fingerprint()
        if self._trained_for == key:
            return
        examples = self.examples
        positive_categories: dict[str, int] = {}
        for example in examples:
            if example.label == 1:
                for category in example.paper.categories:
                    positive_categories[category] = positive_categories.get(category, 0) + 1
        self._categories = sorted(
            c for c, count in positive_categories.items() if count >= self.min_category_examples
        )
        papers = [e.paper for e in examples]
        context = RankContext(papers, profile, self.embedder)
        groups = [p.announced or e.when for p, e in zip(papers, examples, strict=True)]
        features = paper_features(context, self._categories, self._order(papers, groups))
        labels = np.array([e.label for e in examples], dtype=float)
        weights = np.array([e.weight for e in examples]) * self._recency(examples)
        positive = labels == 1
        centroid = (context.embeddings[positive] * weights[positive, None]).sum(axis=0)
        self._centroid = centroid / max(float(np.linalg.norm(centroid)), 1e-12)
        self._coef = None
        if self.negatives >= 5 * self.positives:
            self._mean = features.mean(axis=0)
            self._scale = np.where(features.std(axis=0) > 1e-9, features.std(axis=0), 1.0)
            standardised = (features - self._mean) / self._scale
            # Balance the classes so the few positives are not drowned out.
            balanced = np.where(
                positive, weights / weights[positive].sum(), weights / weights[~positive].sum()
            )
            self._coef = _fit_logistic(standardised, labels, balanced, self.l2)
        self._trained_for = key

    def raw_scores(self, context: RankContext) -> np.ndarray:
        """Unnormalised scores of the context's papers (higher = more like what was liked)."""
        self._train(context.profile)
        if self._coef is not None and self._mean is not None and self._scale is not None:
            order = self._order(context.papers, None)
            features = paper_features(context, self._categories, order)
            features = (features - self._mean) / self._scale
            return features @ self._coef[:-1] + self._coef[-1]
        if self._centroid is not None:
            return context.embeddings @ self._centroid
        return np.zeros(len(context.papers))

    def score(self, context: RankContext) -> ScorerResult:
        values = zscore(self.raw_scores(context))
        # The centroid fallback (no negatives to contrast with) is a weaker signal.
        # Trust grows with evidence: full weight from ``full_weight_positives`` positives on.
        weight = self.weight * min(1.0, self.positives / max(self.full_weight_positives, 1))
        if self._coef is None:
            weight *= CENTROID_SHARE
        return ScorerResult(self.name, additive=values, weight=weight)


class FeedbackLog(Protocol):
    """The reader's recorded signals (the store's ``feedback`` part implements it)."""

    def events(self, before: str | None = None) -> Sequence[FeedbackEvent]: ...


class PaperArchive(Protocol):
    """Stored papers and listings (the store's ``listings`` part implements it)."""

    def papers(self, paper_ids: Iterable[str]) -> dict[str, Paper]: ...

    def load(self, day: date) -> Listing | None: ...


def implicit_negatives(
    archive: PaperArchive,
    events: Sequence[Event],
    papers: dict[str, Paper],
    before: str | None,
) -> list[Event]:
    """``shown`` events for the rest of each stored listing the reader accepted a paper from.

    The daily run records only what the reader does (picked, 👍, saved …); a listing day with
    an accepted paper also says the other papers of that day were seen and passed over.
    Days that already carry ``shown`` events, and days not strictly before ``before``, are
    left alone. ``papers`` is extended with the listings' papers.
    """
    accepted_days: dict[str, str] = {}
    shown_days: set[str] = set()
    for paper_id, signal, created_at in events:
        paper = papers.get(paper_id)
        if paper is None or not paper.announced:
            continue
        if signal == Signal.SHOWN:
            shown_days.add(paper.announced)
        elif SIGNAL_WEIGHTS[signal][0] == 1:
            accepted_days.setdefault(paper.announced, created_at)
    known = {paper_id for paper_id, _, _ in events}
    cutoff = before[:10] if before else None
    extra: list[Event] = []
    for day, created_at in sorted(accepted_days.items()):
        if day in shown_days or (cutoff is not None and day >= cutoff):
            continue
        listing = archive.load(date.fromisoformat(day))
        for paper in listing.papers if listing else ():
            if paper.id not in known:
                known.add(paper.id)
                papers[paper.id] = paper
                extra.append((paper.id, Signal.SHOWN, created_at))
    return extra


def learner_settings(profile: Profile) -> dict[str, Any]:
    """The learned scorer's settings that the profile controls."""
    return {"use_submission_order": profile.rank.learn_submission_order}


def load_feedback(
    log: FeedbackLog,
    archive: PaperArchive,
    embedder: Embedder,
    *,
    before: str | None = None,
    today: date | None = None,
    **settings: Any,
) -> FeedbackModel:
    """Train a :class:`FeedbackModel` on the stored feedback older than ``before``.

    ``before`` is an ISO timestamp (events at or after it are ignored: the ranked day and
    later must not leak in); ``today`` anchors recency (default: the date of ``before``,
    else now). Listings the reader accepted papers from add their other papers as
    ``shown`` (see :func:`implicit_negatives`). This is the one path from stored signals to
    the learned scorer, used by the daily run and by ``paperbrief eval ranking --learn``.
    """
    events: list[Event] = [(e.paper_id, e.signal, e.created_at) for e in log.events(before)]
    papers = archive.papers(paper_id for paper_id, _, _ in events)
    events += implicit_negatives(archive, events, papers, before)
    examples = examples_from_events(events, papers)
    if today is None and before is not None:
        today = date.fromisoformat(before[:10])
    return FeedbackModel(embedder, **settings).fit(examples, today)
