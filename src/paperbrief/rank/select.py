"""Choosing the day's picks from a ranking: quality first, then spread across lines."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import replace

from paperbrief.models import ScoredPaper
from paperbrief.profile import Profile

# A digest with fewer than this many papers feels empty; when the day has fewer papers at
# ``min_stars`` we top up from the ranking's head (they keep their honest star count).
MIN_PICKS = 3
# Candidates considered for the picks: the head of the ranking only, so diversity never
# promotes a paper from deep down the list.
POOL_FACTOR = 3


def select_picks(ranking: Sequence[ScoredPaper], profile: Profile) -> list[ScoredPaper]:
    """The papers to deep-read today, in digest order (best first).

    Contract:
    * at most ``profile.picks_per_day`` papers, each with ``stars >= profile.min_stars``;
    * if fewer than ``MIN_PICKS`` papers reach ``min_stars``, the best remaining papers
      of the ranking fill up to ``MIN_PICKS`` (never more than ``picks_per_day``) — a
      thin day still gets a short digest, and the stars say how strong it is;
    * diversity (MMR-like, strength ``profile.rank.diversity``): greedily take the paper
      maximising ``score - diversity * spread * (papers already picked for the same
      line)``, where ``spread`` is the standard deviation of the day's scores, from the top
      ``POOL_FACTOR * picks_per_day`` of the ranking;
    * returned papers keep their ranking fields; the list is ordered by pick order.
    """
    wanted = profile.picks_per_day
    pool = [p for p in ranking[: POOL_FACTOR * wanted] if p.stars >= profile.min_stars]
    scores = [p.score for p in ranking]
    spread = statistics.pstdev(scores) if len(scores) > 1 else 1.0
    penalty = profile.rank.diversity * (spread or 1.0)
    chosen: list[ScoredPaper] = []
    per_line: dict[str | None, int] = {}
    while pool and len(chosen) < wanted:
        best = max(
            pool,
            key=lambda p: (p.score - penalty * per_line.get(p.line, 0), -p.rank),
        )
        pool.remove(best)
        chosen.append(best)
        per_line[best.line] = per_line.get(best.line, 0) + 1
    floor = min(MIN_PICKS, wanted)
    if len(chosen) < floor:
        taken = {p.paper.id for p in chosen}
        for candidate in ranking:
            if len(chosen) >= floor:
                break
            if candidate.paper.id not in taken:
                chosen.append(candidate)
    return [replace(p) for p in chosen]
