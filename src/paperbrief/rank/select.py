"""Choosing the day's picks from a ranking: quality first, then spread across lines."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import overload

from paperbrief.labels import labels_for
from paperbrief.models import ScoredPaper
from paperbrief.profile import Profile
from paperbrief.rank import flags

# Candidates considered for the picks: the head of the pickable ranking only, so diversity
# never promotes a paper from deep down the list.
POOL_FACTOR = 3


@dataclass(frozen=True)
class PickSelection(Sequence[ScoredPaper]):
    """The day's picks (a sequence, in digest order) and what a thin day needs to say.

    ``wanted`` is the profile's ``picks_per_day``; ``qualified`` counts the papers of the
    ranking that could be picked at all (``min_stars`` reached, no flag against them);
    ``held_back`` counts papers that reached ``min_stars`` but were not eligible (picked in
    an earlier digest, hidden by the reader, or carrying instructions to the model).
    ``short`` says the day published fewer picks than wanted: nothing is topped up with
    papers below ``min_stars``.
    """

    picks: tuple[ScoredPaper, ...]
    wanted: int
    qualified: int
    held_back: int = 0

    @overload
    def __getitem__(self, index: int) -> ScoredPaper: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[ScoredPaper]: ...

    def __getitem__(self, index: int | slice) -> ScoredPaper | Sequence[ScoredPaper]:
        return self.picks[index]

    def __len__(self) -> int:
        return len(self.picks)

    @property
    def short(self) -> bool:
        return len(self.picks) < self.wanted

    @property
    def missing(self) -> int:
        """How many picks fewer than wanted the day has."""
        return max(self.wanted - len(self.picks), 0)


def select_picks(ranking: Sequence[ScoredPaper], profile: Profile) -> PickSelection:
    """The papers to deep-read today, in digest order (best first).

    Contract:
    * at most ``profile.picks_per_day`` papers, each with ``stars >= profile.min_stars``
      and none flagged as never to be picked (``flags.NEVER_PICKED``): a thin day publishes
      fewer picks and the selection says so (``short``, ``missing``);
    * diversity (strength ``profile.rank.diversity``): greedily take the paper maximising
      ``score - diversity * spread * (papers already picked for the same line)``, where
      ``spread`` is the standard deviation of the day's scores, from the top
      ``POOL_FACTOR * picks_per_day`` pickable papers of the ranking; with any diversity,
      no line takes more than half the picks (rounded up) while the pool still holds
      papers of another line;
    * returned papers keep their ranking fields; the order is the pick order.
    """
    wanted = profile.picks_per_day
    strong = [p for p in ranking if p.stars >= profile.min_stars]
    eligible = [p for p in strong if flags.pickable(p)]
    pool = eligible[: POOL_FACTOR * wanted]
    scores = [p.score for p in ranking]
    spread = statistics.pstdev(scores) if len(scores) > 1 else 1.0
    diversity = profile.rank.diversity
    penalty = diversity * (spread or 1.0)
    cap = math.ceil(wanted / 2) if diversity > 0 else wanted
    chosen: list[ScoredPaper] = []
    per_line: dict[str | None, int] = {}
    while pool and len(chosen) < wanted:
        open_lines = [p for p in pool if per_line.get(p.line, 0) < cap]
        candidates = open_lines or pool
        best = max(
            candidates,
            key=lambda p: (p.score - penalty * per_line.get(p.line, 0), -p.rank),
        )
        pool.remove(best)
        chosen.append(best)
        per_line[best.line] = per_line.get(best.line, 0) + 1
    return PickSelection(
        picks=tuple(replace(p) for p in chosen),
        wanted=wanted,
        qualified=len(eligible),
        held_back=len(strong) - len(eligible),
    )


def thin_day_note(picks: PickSelection, papers_considered: int, profile: Profile) -> str | None:
    """What the digest says on a thin day (fewer picks than wanted: nothing weaker was
    added), in the profile's language; None on a full day."""
    if not picks.short:
        return None
    return labels_for(profile.language).rank_thin_day.format(
        count=len(picks),
        total=papers_considered,
        stars=profile.min_stars,
        wanted=picks.wanted,
    )
