"""The reader's history across days, as it bears on one day's ranking and picks.

``load_history`` reads, through two small protocols, what earlier days and the reader's
feedback say about papers: which were picked in an earlier digest (or in imported
history), which the reader hid, and which they liked. ``apply_history`` turns that into
flags on a ranking (``rank.flags``): hidden and already-picked papers are never picked
again, and a liked paper that is announced again (a new version) is a follow-up. It is
applied whenever a ranking is handed out (fresh or from the store), so feedback given a
minute ago counts at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Protocol

from paperbrief.labels import labels_for
from paperbrief.models import ScoredPaper, Signal
from paperbrief.rank import flags
from paperbrief.rank.feedback import SIGNAL_WEIGHTS, FeedbackLog, latest_signals


class PickHistory(Protocol):
    """Which papers earlier digests picked (the store's ``picks`` part implements it)."""

    def ids_before(self, listing_day: date) -> set[str]: ...


@dataclass(frozen=True)
class History:
    """What the reader's past says about papers, by arXiv id (without version)."""

    picked_before: frozenset[str] = field(default_factory=frozenset)
    hidden: frozenset[str] = field(default_factory=frozenset)
    liked: frozenset[str] = field(default_factory=frozenset)
    disliked: frozenset[str] = field(default_factory=frozenset)
    unused: int = 0  # signals given at or after ``until``, left out (a replay of a past day)


def load_history(
    picks: PickHistory, log: FeedbackLog, listing_day: date, until: str | None = None
) -> History:
    """The history that bears on ``listing_day``'s picks.

    * picked before: a pick of a digest from an earlier listing day, or a ``picked`` signal
      (imported history) dated before this listing day;
    * hidden / disliked: the reader's standing verdict is "not interested" / 👎;
    * liked: picked, 👍, saved or read before this listing day.

    ``until`` (an ISO timestamp) keeps the verdicts to those given before it: a replay of a
    past day judges with what was known then (``unused`` counts what it left out); None
    (today, or a rerun of it) uses every verdict, the one given a minute ago included.
    """
    cutoff = listing_day.isoformat()
    every = log.events()
    kept = [e for e in every if until is None or e.created_at < until]
    events = [(e.paper_id, e.signal, e.created_at) for e in kept]
    picked = set(picks.ids_before(listing_day))
    picked |= {pid for pid, signal, at in events if signal == Signal.PICKED and at[:10] < cutoff}
    standing = latest_signals(events)
    hidden = {pid for pid, (signal, _) in standing.items() if signal == Signal.HIDE}
    disliked = {pid for pid, (signal, _) in standing.items() if signal == Signal.DOWN}
    liked = {
        pid for pid, signal, at in events if SIGNAL_WEIGHTS[signal][0] == 1 and at[:10] < cutoff
    }
    # A later "not interested" or 👎 outweighs an earlier like.
    liked -= hidden | disliked
    return History(
        frozenset(picked),
        frozenset(hidden),
        frozenset(liked),
        frozenset(disliked),
        unused=len(every) - len(kept),
    )


def apply_history(
    ranking: Sequence[ScoredPaper], history: History, language: str
) -> list[ScoredPaper]:
    """``ranking`` with the history's flags set (and stale ones cleared); order unchanged.

    A follow-up also says so in its reason. The ranking's own flags (instructions) stay.
    """
    note = labels_for(language).rank_follow_up
    out = []
    for scored in ranking:
        paper_id = scored.paper.id
        follow_up = paper_id in history.liked
        updated = flags.set_flags(
            scored,
            {
                flags.HIDDEN: paper_id in history.hidden,
                flags.DISLIKED: paper_id in history.disliked,
                flags.PICKED_BEFORE: paper_id in history.picked_before,
                flags.FOLLOW_UP: follow_up,
            },
        )
        if follow_up:
            updated = replace(updated, reason=flags.with_note(updated.reason, note, language))
        out.append(updated)
    return out
