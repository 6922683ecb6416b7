"""What the web pages show, composed from the store's queries: plain values, no HTML.

Every function takes an open ``Store``; the app opens one per request.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from paperbrief import rank
from paperbrief.models import ScoredPaper
from paperbrief.rank import flags
from paperbrief.records import DeliveryStatus, DigestEntry
from paperbrief.store import Store


@dataclass(frozen=True)
class ArchiveEntry:
    entry: DigestEntry
    deliveries: tuple[DeliveryStatus, ...]


def archive(store: Store, limit: int = 365) -> list[ArchiveEntry]:
    """The archive, newest first: each digest with its picks and delivery states."""
    return [
        ArchiveEntry(entry, tuple(store.deliveries.of(entry.digest_date)))
        for entry in store.digests.entries(limit)
    ]


@dataclass(frozen=True)
class RankingDay:
    listing_day: date
    digest_date: date | None
    ranking: list[ScoredPaper]  # with the reader's history applied (rank.apply_history)
    picked: set[str]  # the picks of the published digest, exactly as published
    days: list[date]  # listing days with a stored ranking, newest first
    hidden: int = 0  # papers the reader hid that the ranking leaves out


def ranking_day(
    store: Store,
    listing_day: date | None = None,
    *,
    language: str = "zh",
    show_hidden: bool = False,
) -> RankingDay | None:
    """A day's full ranking and its picks; without a day, the latest day that has one.

    The reader's feedback counts at once: a paper they hid leaves the ranking (unless
    ``show_hidden``), papers already picked on an earlier day and follow-ups are flagged
    (notes in ``language``).
    The picks of a published digest stay as published, and stay in the ranking even when
    hidden later (the digest still has them).
    """
    days = store.rankings.days()
    for day in [listing_day] if listing_day else days:
        stored = store.rankings.load(day)
        if not stored:
            continue
        published = store.digests.dates_for_listing(day)
        digest_date = published[0] if published else None
        picked = set(store.picks.ids(digest_date)) if digest_date else set()
        history = rank.load_history(store.picks, store.feedback, day)
        ranking = rank.apply_history(stored, history, language)
        leaves = [s for s in ranking if flags.has(s, flags.HIDDEN) and s.paper.id not in picked]
        if not show_hidden:
            gone = {s.paper.id for s in leaves}
            ranking = [s for s in ranking if s.paper.id not in gone]
        return RankingDay(day, digest_date, ranking, picked, days, len(leaves))
    return None
