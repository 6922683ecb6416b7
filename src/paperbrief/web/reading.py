"""What the web pages show, read from the store: plain values, no HTML.

Every function takes an open ``Store``; the app opens one per request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date

from paperbrief.models import Digest, PaperBrief, ScoredPaper, digest_from_dict
from paperbrief.store import FeedbackEvent, Store

SIGNALS = ("up", "down", "save", "hide")


@dataclass(frozen=True)
class ArchiveEntry:
    digest_date: date
    listing_day: date
    language: str
    title: str
    writer: str
    picks: tuple[tuple[str, str, int], ...]  # (paper id, title, stars)
    deliveries: tuple[tuple[str, str], ...]  # (channel, status)


@dataclass
class FeedbackState:
    """The reader's standing verdict on one paper: latest of each kind, and the notes."""

    signals: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    last: str = ""


def feedback_states(events: list[FeedbackEvent]) -> dict[str, FeedbackState]:
    """Fold feedback events (oldest first) into a state per paper.

    As in the ranking's learner, the latest explicit signal is the reader's verdict, so
    only that button shows pressed; pipeline signals (picked, shown, read) have no button.
    """
    states: dict[str, FeedbackState] = {}
    for event in events:
        if event.signal not in SIGNALS:
            continue
        state = states.setdefault(event.paper_id, FeedbackState())
        state.signals = {event.signal}
        state.last = event.created_at
        if event.note:
            state.notes.append(event.note)
    return states


def load_stored_digest(store: Store, digest_date: date) -> tuple[Digest | None, str]:
    """The digest of a date (parsed) and its stored HTML; (None, "") when absent."""
    row = store.load_digest(digest_date)
    if row is None:
        return None, ""
    try:
        digest = digest_from_dict(json.loads(row["body"]))
    except (ValueError, KeyError, TypeError):
        digest = None  # an unreadable body still leaves the HTML page to show
    return digest, row["html"]


def archive(store: Store, limit: int = 365) -> list[ArchiveEntry]:
    entries = []
    for row in store.list_digests(limit=limit):
        day = date.fromisoformat(row["digest_date"])
        digest, _ = load_stored_digest(store, day)
        picks = (
            tuple((b.paper.id, b.paper.title, b.scored.stars) for b in digest.briefs)
            if digest
            else ()
        )
        deliveries = tuple((d["channel"], d["status"]) for d in store.deliveries(day))
        entries.append(
            ArchiveEntry(
                digest_date=day,
                listing_day=date.fromisoformat(row["listing_day"]),
                language=row["language"],
                title=row["title"],
                writer=row["writer"],
                picks=picks,
                deliveries=deliveries,
            )
        )
    return entries


def briefs_of(store: Store, paper_id: str) -> list[tuple[date, PaperBrief]]:
    """Every digest brief written about a paper, newest digest first."""
    found: list[tuple[date, PaperBrief]] = []
    for row in store.list_digests():
        day = date.fromisoformat(row["digest_date"])
        stored = store.load_digest(day, row["language"])
        if stored is None or paper_id not in stored["body"]:
            continue
        try:
            digest = digest_from_dict(json.loads(stored["body"]))
        except (ValueError, KeyError, TypeError):
            continue
        found.extend((day, brief) for brief in digest.briefs if brief.paper.id == paper_id)
    return found


@dataclass(frozen=True)
class Outline:
    source: str
    source_url: str
    sections: tuple[tuple[int, str], ...]  # (level, heading)
    tables: tuple[str, ...]
    figures: int
    flags: tuple[str, ...]


def document_outline(store: Store, paper_id: str) -> Outline | None:
    row = store.load_document(paper_id)
    if row is None:
        return None
    try:
        body = json.loads(row["body"])
    except ValueError:
        return None
    return Outline(
        source=str(body.get("source") or row["source"]),
        source_url=str(body.get("source_url") or ""),
        sections=tuple(
            (int(s.get("level") or 1), str(s.get("heading") or ""))
            for s in body.get("sections") or ()
            if s.get("heading")
        ),
        tables=tuple(
            " ".join(part for part in (t.get("label"), t.get("caption")) if part)
            for t in body.get("tables") or ()
        ),
        figures=len(body.get("figures") or ()),
        flags=tuple(body.get("flags") or ()),
    )


@dataclass(frozen=True)
class RankingDay:
    listing_day: date
    digest_date: date | None
    ranking: list[ScoredPaper]
    picked: set[str]
    days: list[date]  # listing days with a stored ranking, newest first


def ranking_day(store: Store, listing_day: date | None = None) -> RankingDay | None:
    """A day's full ranking and its picks; without a day, the latest day that has one."""
    days = list(reversed(store.listing_days()))
    candidates = [listing_day] if listing_day else days
    for day in candidates:
        ranking = store.load_scores(day)
        if not ranking:
            continue
        digest_date = None
        for row in store.list_digests():
            if row["listing_day"] == day.isoformat():
                digest_date = date.fromisoformat(row["digest_date"])
                break
        picked = set(store.load_pick_ids(digest_date)) if digest_date else set()
        return RankingDay(day, digest_date, ranking, picked, days)
    return None


def search_digests(store: Store, query: str, limit: int = 30) -> list[tuple[date, str, str]]:
    """Digests whose Markdown mentions ``query`` (case-insensitive): (date, title, snippet)."""
    needle = query.casefold()
    hits = []
    for row in store.list_digests():
        day = date.fromisoformat(row["digest_date"])
        stored = store.load_digest(day, row["language"])
        if stored is None:
            continue
        text = stored["markdown"]
        position = text.casefold().find(needle)
        if position < 0:
            continue
        start = max(position - 60, 0)
        snippet = text[start : position + len(query) + 60].replace("\n", " ")
        hits.append((day, row["title"], snippet))
        if len(hits) >= limit:
            break
    return hits
