"""Absolute stars: every paper's relevance on one fixed 0-100 scale, stars = its band.

One scale of rarity holds every tier: a paper's **reference percentile**, the share of the
reference's papers (a background of real listing days of this profile, ``rank.reference``)
it stands above. Stars are rates on that scale, from the scale's own words
(``prompts/judge_reader.md``), in papers per listing day of the reference's mean size:
★2 ("worth a look") for ten times the day's picks, ★3 ("what they usually keep") for twice
the picks, ★4 ("at most ~1 a day") for half a paper a day, ★5 ("a few a month") for 0.15
(``cheap_default``). None of it reads the day, nor the reader's picks: a paper has the same
stars in a day of 5 papers or of 5,000.

A paper's percentile comes from its best evidence — a tier:

* ``cheap``: its cheap score's percentile among the reference papers (``rank.core``);
* ``judged``: the judge read it in full; its fused score ``J + beta * (C - c_J)``
  (``rank.fusion``) is linked to the percentile scale by **equipercentile linking** over
  the papers the judge read on the stored listing days before (``rank.reader.LINK_DAYS``,
  ``linked``): the k-th best fused score among
  them stands where the k-th best cheap percentile among the same papers stands. Whatever
  sample the judge read (the head, or any other), its scores are put on the rarity of
  that same sample, so the judge may reorder papers but spends the same stars;
* ``screened``: the first screen's ``S + gamma * (C - c_S)``, linked the same way over the
  same days' screened papers.

With fewer than ``MIN_LINKED`` such papers (a first run), a tier on
the judge's scale takes the judge's own bands (``judge_default``: 35 / 55 / 75 / 90).
Relevance is the percentile mapped piecewise-linearly through the star thresholds onto the
band edges 35 / 55 / 75 / 90, so ``stars_of(relevance)`` is the paper's band.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from paperbrief.records import BAND_MIDDLE, Verdict

BAND_EDGES = (35.0, 55.0, 75.0, 90.0)  # relevance where 2, 3, 4 and 5 stars start
# Reference papers with both a tier score and a percentile it takes to link that tier.
MIN_LINKED = 30
# Linking papers at or above a star's threshold it takes before a linked tier gives that
# star: with fewer, the star's start would be one extreme paper (the best of a day or two
# of judged papers stands at the top of the scale), and 5 stars came out every other day.
MIN_AT_STAR = 3
TIERS = ("judged", "screened", "cheap")


def judge_relevance(verdict: Verdict) -> float:
    """The verdict's relevance 0-100 (the middle of its star's band when it has none)."""
    return float(verdict.relevance if verdict.relevance is not None else BAND_MIDDLE[verdict.stars])


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


class Tier(Protocol):
    """A tier's map from its score to relevance 0-100."""

    def relevance(self, score: float) -> float: ...


@dataclass(frozen=True)
class Linked:
    """A tier on the judge's 0-100 scale linked to the reference percentile (``linked``):
    ``scores[i]`` stands at ``percentiles[i]``; relevance is then the ``cheap`` tier's, below
    the band of ``ceiling + 1`` stars (the most its linking papers can tell)."""

    scores: tuple[float, ...]
    percentiles: tuple[float, ...]
    cheap: Calibration
    ceiling: int = 5

    def percentile(self, score: float) -> float:
        return float(np.interp(score, self.scores, self.percentiles))

    def relevance(self, score: float) -> float:
        relevance = self.cheap.relevance(self.percentile(score))
        if self.ceiling < 5:
            # just below the next band, by more than a score's rounding (two decimals)
            relevance = min(relevance, BAND_EDGES[self.ceiling - 1] - 0.01)
        return relevance


# The judge's scale ends where the linking has no papers: 0 is the least rare, 100 the rarest.
JUDGE_SCALE = (0.0, 100.0)


def linked(pairs: Sequence[tuple[float, float]], cheap: Calibration) -> Tier | None:
    """The equipercentile link of a tier from ``pairs`` of (tier score, reference percentile)
    of the same reference papers: the sorted scores against the sorted percentiles (tied
    scores at the mean of their percentiles), between (0, 0) and (100, 1) of the judge's
    scale, giving no more stars than ``MIN_AT_STAR`` of its papers reached. None when fewer
    than ``MIN_LINKED`` pairs."""
    if len(pairs) < MIN_LINKED:
        return None
    scores = np.sort(np.asarray([s for s, _ in pairs], dtype=float))
    levels = np.sort(np.asarray([p for _, p in pairs], dtype=float))
    reached = [int((levels >= t).sum()) >= MIN_AT_STAR for t in cheap.thresholds]
    ceiling = 1 + sum(reached[: reached.index(False)] if False in reached else reached)
    xs: list[float] = []
    ys: list[float] = []
    for value in np.unique(scores):
        xs.append(float(value))
        ys.append(float(levels[scores == value].mean()))
    low, high = JUDGE_SCALE
    if xs[0] > low:
        xs, ys = [low, *xs], [0.0, *ys]
    if xs[-1] < high:
        xs, ys = [*xs, high], [*ys, 1.0]
    return Linked(tuple(xs), tuple(ys), cheap, ceiling)
