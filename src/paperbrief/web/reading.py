"""What the web pages show, composed from the store's queries: plain values, no HTML.

Every function takes an open ``Store``; the app opens one per request.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from paperbrief.models import ScoredPaper
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
    ranking: list[ScoredPaper]
    picked: set[str]
    days: list[date]  # listing days with a stored ranking, newest first


def ranking_day(store: Store, listing_day: date | None = None) -> RankingDay | None:
    """A day's full ranking and its picks; without a day, the latest day that has one."""
    days = store.rankings.days()
    for day in [listing_day] if listing_day else days:
        ranking = store.rankings.load(day)
        if not ranking:
            continue
        published = store.digests.dates_for_listing(day)
        digest_date = published[0] if published else None
        picked = set(store.picks.ids(digest_date)) if digest_date else set()
        return RankingDay(day, digest_date, ranking, picked, days)
    return None
