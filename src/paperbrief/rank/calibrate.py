"""Absolute stars: every paper's relevance on one fixed 0-100 scale, stars = its band.

A paper's relevance comes from the best evidence it has — a tier:

* ``judged``: the judge read it in full; its score is the fused ``J + beta * (C - c_J)``
  (judge relevance 0-100 plus the cheap score in reference z units, centred, ``rank.fusion``);
* ``screened``: the first screen saw its title and gist; score ``S + gamma * (C - c_S)``;
* ``cheap``: only the cheap ranking; its score is the paper's percentile in the reference
  (a background of real listing days, ``rank.reference``).

Each tier's score is mapped to relevance piecewise-linearly through four thresholds (where
★2, ★3, ★4 and ★5 start) onto the band edges 35 / 55 / 75 / 90 of the judge's scale. None of
it reads the day: a paper has the same relevance in a day of 5 papers or of 5,000.

Thresholds start from a default and lean towards the reader's own picks as they accumulate
(``anchored``): ★2 starts where the reader's kept papers start (their 10th percentile), ★3
splits them as the reader's own ratings do, and ★4+ is the top tenth of what they kept (their
90th percentile; ★5 the 98th) — "most picks ★2-3, ★4-5 rare", as the reader describes their
stars. The evidence weight is ``n / (n + PRIOR_PICKS)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

BAND_EDGES = (35.0, 55.0, 75.0, 90.0)  # relevance where 2, 3, 4 and 5 stars start
PRIOR_PICKS = 10  # kept papers it takes before the reader's own picks weigh half
LOW_TAIL = 0.10  # share of the reader's kept papers allowed below 2 stars
HIGH_TAIL = 0.10  # share at 4 stars or more
TOP_TAIL = 0.02  # share at 5 stars
UNRATED_SPLIT = 0.5  # share of 2-star picks assumed when the reader rated none
TIERS = ("judged", "screened", "cheap")


def stars_of(relevance: float) -> int:
    """1-5 stars: the band of a 0-100 relevance."""
    return 1 + sum(relevance >= edge for edge in BAND_EDGES)


@dataclass(frozen=True)
class Calibration:
    """One tier's map from its score to relevance: ``thresholds`` are the scores where
    2..5 stars start, ``low`` / ``high`` the scores that map to 0 and 100."""

    thresholds: tuple[float, float, float, float]
    low: float
    high: float

    def relevance(self, score: float) -> float:
        t2, t3, t4, t5 = self.thresholds
        # The ends stretch when the thresholds passed them (a fused score is unbounded).
        low = min(self.low, t2 - (t3 - t2))
        high = max(self.high, t5 + (t5 - t4))
        xs = [low, t2, t3, t4, t5, high]
        ys = [0.0, *BAND_EDGES, 100.0]
        return float(np.clip(np.interp(score, xs, ys), 0.0, 100.0))


def judge_default() -> Calibration:
    """Judged and screened tiers: their scores are on the judge's own scale."""
    return Calibration(BAND_EDGES, 0.0, 100.0)


# Default star rates of the cheap tier, papers per listing day of the reference's mean size,
# from the scale's own words: two stars ("worth a look") for ten times the day's picks, three
# ("the kind of paper this reader usually keeps") for twice the picks, four ("rare: at most
# about one a day") for half a paper a day, five ("very rare: a few a month") for 0.15.
WORTH_A_LOOK = 10
USUALLY_KEPT = 2
FOUR_STARS_A_DAY = 0.5
FIVE_STARS_A_DAY = 0.15


def cheap_default(picks_per_day: int, day_size: float) -> Calibration:
    """The cheap tier's default: reference percentiles at the rates above."""
    size = max(day_size, 1.0)
    counts = (
        WORTH_A_LOOK * picks_per_day,
        USUALLY_KEPT * picks_per_day,
        FOUR_STARS_A_DAY,
        FIVE_STARS_A_DAY,
    )
    thresholds = tuple(float(np.clip(1 - c / size, 0.0, 1.0)) for c in counts)
    return Calibration(_increasing(thresholds, 0.0, 1.0), 0.0, 1.0)


def _increasing(
    values: Sequence[float], low: float, high: float
) -> tuple[float, float, float, float]:
    """Thresholds made strictly increasing (by a hair of the nominal range low..high)."""
    gap = (high - low) * 1e-4
    out: list[float] = []
    for value in values:
        out.append(max(value, out[-1] + gap) if out else value)
    return (out[0], out[1], out[2], out[3])


def anchored(
    default: Calibration, kept_scores: Sequence[float], ratings: Sequence[int]
) -> Calibration:
    """``default`` leaning towards the reader's kept papers (their tier scores, as scored on
    their own day) and their star ratings of them (any that were rated)."""
    n = len(kept_scores)
    if n == 0:
        return default
    split = sum(1 for r in ratings if r <= 2) / len(ratings) if ratings else UNRATED_SPLIT
    levels = (LOW_TAIL, LOW_TAIL + (1 - LOW_TAIL - HIGH_TAIL) * split, 1 - HIGH_TAIL, 1 - TOP_TAIL)
    own = np.quantile(np.asarray(kept_scores, dtype=float), levels)
    weight = n / (n + PRIOR_PICKS)
    blended = [
        (1 - weight) * d + weight * float(o) for d, o in zip(default.thresholds, own, strict=True)
    ]
    return Calibration(_increasing(blended, default.low, default.high), default.low, default.high)
