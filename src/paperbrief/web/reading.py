"""What the web pages show, composed from the store's queries: plain values, no HTML.

Every function takes an open ``Store``; the app opens one per request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from paperbrief import rank, sources
from paperbrief.models import ScoredPaper
from paperbrief.rank import flags
from paperbrief.rank.feedback import FeedbackLog
from paperbrief.records import DeliveryStatus, DigestEntry
from paperbrief.store import Store
from paperbrief.store.search import query_terms


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
    digest_date: date  # the day's digest date, the date every route names the day by
    published: bool  # a digest of that date is stored (the page links to it)
    ranking: list[ScoredPaper]  # with the reader's history applied (rank.apply_history)
    picked: set[str]  # the picks of the published digest, exactly as published
    days: list[date]  # digest dates of the days with a stored ranking, newest first
    hidden: int = 0  # papers the reader hid that the ranking leaves out


def highlighted(text: str, query: str) -> list[tuple[str, bool]]:
    """``text`` cut into pieces, each marked whether it is a word of ``query`` (matched
    case-insensitively), for the search page to wrap the matches in ``<mark>``; the
    template escapes every piece, so nothing in the text becomes markup."""
    terms = sorted({t.casefold() for t in query_terms(query) if t}, key=len, reverse=True)
    if not terms:
        return [(text, False)]
    pattern = re.compile("|".join(re.escape(term) for term in terms), re.IGNORECASE)
    pieces: list[tuple[str, bool]] = []
    last = 0
    for found in pattern.finditer(text):
        if found.start() > last:
            pieces.append((text[last : found.start()], False))
        pieces.append((found.group(), True))
        last = found.end()
    if last < len(text):
        pieces.append((text[last:], False))
    return pieces


def listing_day_of(store: Store, digest_date: date) -> date:
    """The listing day a digest date covers: the stored digest's, else arXiv's calendar."""
    stored = store.digests.load(digest_date)
    return stored.listing_day if stored is not None else sources.listing_day_for(digest_date)


def digest_date_of(store: Store, listing_day: date) -> date:
    """The digest date of a listing day: the published digest's, else arXiv's calendar."""
    published = store.digests.dates_for_listing(listing_day)
    return published[0] if published else sources.digest_date_for(listing_day)


def ranking_day(
    store: Store,
    digest_date: date | None = None,
    *,
    language: str = "zh",
    show_hidden: bool = False,
    feedback: FeedbackLog | None = None,
) -> RankingDay | None:
    """The full ranking behind the digest of ``digest_date`` and its picks; without a date,
    the latest day that has one. Days are named by digest date, as ``/digest/<date>`` is.

    The reader's feedback (``feedback``, default: the whole home's) counts at once: a paper
    they hid leaves the ranking (unless ``show_hidden``), papers already picked on an
    earlier day and follow-ups are flagged (notes in ``language``).
    The picks of a published digest stay as published, and stay in the ranking even when
    hidden later (the digest still has them).
    """
    listing_days = store.rankings.days()
    wanted = [listing_day_of(store, digest_date)] if digest_date else listing_days
    for day in wanted:
        stored = store.rankings.load(day)
        if not stored:
            continue
        published = store.digests.dates_for_listing(day)
        named = digest_date or digest_date_of(store, day)
        picked = set(store.picks.ids(named)) if named in published else set()
        history = rank.load_history(store.picks, feedback or store.feedback, day)
        ranking = rank.apply_history(stored, history, language)
        leaves = [s for s in ranking if flags.has(s, flags.HIDDEN) and s.paper.id not in picked]
        if not show_hidden:
            gone = {s.paper.id for s in leaves}
            ranking = [s for s in ranking if s.paper.id not in gone]
        days = [digest_date_of(store, listing_day) for listing_day in listing_days]
        return RankingDay(day, named, named in published, ranking, picked, days, len(leaves))
    return None
