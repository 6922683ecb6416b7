"""Ranking metrics against the reader's picks: recall@k, nDCG@10, MRR, bootstrap intervals.

Recall@k is pooled over every pick; nDCG@10 (stars as graded gains) and MRR are means over
posts. Intervals are 95 % bootstrap intervals that resample listing days (the posts of one
listing day share a ranking, so they move together).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from paperbrief.rank.imported import RecordedPost

CUTOFFS = (5, 10, 20, 50, 100)
BOOTSTRAP_SAMPLES = 1000


@dataclass
class PostResult:
    post: RecordedPost
    ranks: list[int | None]  # 1-based rank of each pick in the view (None = not in it)
    learned_from: int = 0  # feedback examples the learner saw
    latest_feedback: str = ""  # latest feedback day it saw (must be < listing day)
    pick_stars: list[int | None] = field(default_factory=list)  # stars given to each pick


def point_metrics(results: Sequence[PostResult]) -> dict[str, float]:
    """recall@k for every cutoff, ndcg@10 and mrr."""
    picks = sum(len(r.ranks) for r in results)
    out: dict[str, float] = {}
    for k in CUTOFFS:
        hits = sum(1 for r in results for rank in r.ranks if rank is not None and rank <= k)
        out[f"recall@{k}"] = hits / picks if picks else 0.0
    ndcgs, mrrs = [], []
    for r in results:
        gains = {
            rank: stars for rank, (_, stars) in zip(r.ranks, r.post.picks, strict=True) if rank
        }
        dcg = sum(g / np.log2(rank + 1) for rank, g in gains.items() if rank <= 10)
        ideal = sorted((s for _, s in r.post.picks), reverse=True)[:10]
        idcg = sum(g / np.log2(i + 2) for i, g in enumerate(ideal))
        ndcgs.append(dcg / idcg if idcg else 0.0)
        found = [rank for rank in r.ranks if rank]
        mrrs.append(1.0 / min(found) if found else 0.0)
    out["ndcg@10"] = float(np.mean(ndcgs)) if ndcgs else 0.0
    out["mrr"] = float(np.mean(mrrs)) if mrrs else 0.0
    return out


def summarize(results: Sequence[PostResult], seed: int = 7) -> dict[str, object]:
    """Point metrics plus 95% bootstrap intervals (resampling listing days)."""
    point = point_metrics(results)
    by_day: dict[object, list[PostResult]] = {}
    for result in results:
        by_day.setdefault(result.post.listing_day, []).append(result)
    days = list(by_day)
    generator = random.Random(seed)
    samples: dict[str, list[float]] = {key: [] for key in point}
    for _ in range(BOOTSTRAP_SAMPLES if len(days) > 1 else 0):
        drawn = [r for _ in days for r in by_day[days[generator.randrange(len(days))]]]
        for key, value in point_metrics(drawn).items():
            samples[key].append(value)
    ci = {
        key: [round(float(np.percentile(v, 2.5)), 4), round(float(np.percentile(v, 97.5)), 4)]
        for key, v in samples.items()
        if v
    }
    return {
        "recall": {str(k): round(point[f"recall@{k}"], 4) for k in CUTOFFS},
        "ndcg@10": round(point["ndcg@10"], 4),
        "mrr": round(point["mrr"], 4),
        "ci95": ci,
    }
