"""How much the cheap ranking counts next to the LLM's reading, learned from the reader.

The judge's relevance ``J`` and the screen's ``S`` are on the judge's 0-100 scale; the cheap
score ``C`` is in reference z units (``rank.reference``: the same for a paper whatever day
it is listed in). The fused scores stay on the judge's scale:

    judged:   F = J + beta * (C - c_J)          screened: G = S + gamma * (C - c_S)

``c_J`` and ``c_S`` are the mean cheap score of the evidence the judge read (screened): the
papers of earlier days the reader kept or passed over. The cheap term adds what a paper's
cheap score says beyond what the judge usually sees, so a paper of the usual cheap score
keeps the judge's own number and stars (``rank.calibrate`` starts from the judge's bands).
Uncentred, a head paper's ``beta * C`` alone was worth 30-100 points, which put a quarter
of the picks at 4-5 stars until the calibration had seen enough of the reader's picks. The
centre is a constant of the day: it moves no paper within its tier.

``beta`` and ``gamma`` are learned from the reader's own feedback on earlier days
(``Evidence``: papers with a standing signal and what the LLM said about them on their
day): the weight on ``WEIGHTS`` that ranks the reader's kept papers above the papers they
passed over, within each day, most often (pairwise AUC, averaged over days), shrunk towards
0 by ``n / (n + PRIOR_PICKS)`` with ``n`` kept papers behind it. With no evidence the LLM
alone decides; trust in the cheap score grows with evidence, as the learned taste's does.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

# Candidate weights, in judge points per reference standard deviation of the cheap score.
WEIGHTS = (0.0, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 14.0, 20.0, 30.0)
PRIOR_PICKS = 10


@dataclass(frozen=True)
class Evidence:
    """One paper the reader reacted to, with its scores as they stood on its own day."""

    day: str  # listing day (ISO)
    kept: bool  # standing signal positive (picked, 👍, saved, read) or not
    cheap: float  # the cheap score (reference z units)
    percentile: float  # the cheap score's percentile in the reference
    screen: float | None = None  # first-screen relevance 0-100
    judge: float | None = None  # per-paper judge relevance 0-100
    rating: int | None = None  # the reader's own stars, when they gave them


@dataclass(frozen=True)
class Fusion:
    beta: float = 0.0  # judged papers: F = J + beta * (C - judged_centre)
    gamma: float = 0.0  # screened papers: G = S + gamma * (C - screened_centre)
    judged_evidence: int = 0  # kept papers with a judge verdict behind beta
    screened_evidence: int = 0
    judged_centre: float = 0.0  # mean cheap score of the evidence read in full
    screened_centre: float = 0.0  # ... of the evidence screened

    def judged(self, judge: float, cheap: float) -> float:
        return judge + self.beta * (cheap - self.judged_centre)

    def screened(self, screen: float, cheap: float) -> float:
        return screen + self.gamma * (cheap - self.screened_centre)


def _auc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    pos = np.asarray(positives)[:, None]
    neg = np.asarray(negatives)[None, :]
    return float(((pos > neg).sum() + 0.5 * (pos == neg).sum()) / (pos.size * neg.size))


def learn_weight(samples: Iterable[tuple[str, bool, float, float]]) -> tuple[float, int]:
    """The shrunk weight for ``llm + w * cheap`` from (day, kept, llm, cheap) samples, and
    the number of kept papers behind it."""
    by_day: dict[str, list[tuple[bool, float, float]]] = defaultdict(list)
    for day, kept, llm, cheap in samples:
        by_day[day].append((kept, llm, cheap))
    days = [
        rows
        for rows in by_day.values()
        if any(k for k, _, _ in rows) and not all(k for k, _, _ in rows)
    ]
    kept_count = sum(1 for rows in days for k, _, _ in rows if k)
    if not days:
        return 0.0, 0
    best, best_auc = 0.0, -1.0
    for weight in WEIGHTS:
        aucs = [
            _auc(
                [llm + weight * c for k, llm, c in rows if k],
                [llm + weight * c for k, llm, c in rows if not k],
            )
            for rows in days
        ]
        value = float(np.mean(aucs))
        if value > best_auc + 1e-9:
            best, best_auc = weight, value
    return best * kept_count / (kept_count + PRIOR_PICKS), kept_count


def learn_fusion(evidence: Sequence[Evidence]) -> Fusion:
    """Both weights and their centres from the reader's evidence (see the module docstring)."""
    read = [e for e in evidence if e.judge is not None]
    screened_rows = [e for e in evidence if e.screen is not None]
    beta, judged = learn_weight(
        (e.day, e.kept, e.judge, e.cheap) for e in read if e.judge is not None
    )
    gamma, screened = learn_weight(
        (e.day, e.kept, e.screen, e.cheap) for e in screened_rows if e.screen is not None
    )
    return Fusion(beta, gamma, judged, screened, _mean_cheap(read), _mean_cheap(screened_rows))


def _mean_cheap(rows: Sequence[Evidence]) -> float:
    return float(np.mean([e.cheap for e in rows])) if rows else 0.0
