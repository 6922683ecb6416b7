"""The reader's feedback, and where each digest was delivered."""

from __future__ import annotations

import sqlite3
from datetime import date

from paperbrief.models import Signal
from paperbrief.records import DeliveryStatus, FeedbackEvent, FeedbackState
from paperbrief.store.database import Database, now


def _event(row: sqlite3.Row) -> FeedbackEvent:
    return FeedbackEvent(
        row["paper_id"], Signal(row["signal"]), row["note"], row["source"], row["created_at"]
    )


class Feedback:
    """``store.feedback``: every signal, oldest first (``rank.FeedbackLog``)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def add(
        self,
        paper_id: str,
        signal: Signal,
        note: str | None = None,
        source: str = "cli",
        created_at: str | None = None,
    ) -> None:
        with self._db.write() as db:
            db.execute(
                "INSERT INTO feedback (paper_id, signal, note, source, created_at)"
                " VALUES (?,?,?,?,?)",
                (paper_id, Signal(signal).value, note, source, created_at or now()),
            )

    def events(self, before: str | None = None) -> list[FeedbackEvent]:
        """All feedback, oldest first; ``before`` (ISO timestamp) keeps only earlier events."""
        with self._db.read() as db:
            if before is None:
                rows = db.execute("SELECT * FROM feedback ORDER BY created_at, id").fetchall()
            else:
                rows = db.execute(
                    "SELECT * FROM feedback WHERE created_at < ? ORDER BY created_at, id",
                    (before,),
                ).fetchall()
        return [_event(row) for row in rows]

    def for_paper(self, paper_id: str) -> list[FeedbackEvent]:
        with self._db.read() as db:
            rows = db.execute(
                "SELECT * FROM feedback WHERE paper_id=? ORDER BY created_at, id", (paper_id,)
            ).fetchall()
        return [_event(row) for row in rows]

    def states(self, paper_id: str | None = None) -> dict[str, FeedbackState]:
        """The reader's standing verdict per paper (of one paper when given).

        As in the ranking's learner, the latest button signal is the reader's verdict, so
        only that button shows pressed; pipeline signals (picked, shown, read) have none.
        """
        events = self.events() if paper_id is None else self.for_paper(paper_id)
        states: dict[str, FeedbackState] = {}
        for event in events:
            if not event.signal.is_button:
                continue
            state = states.setdefault(event.paper_id, FeedbackState(set(), []))
            state.signals = {event.signal}
            state.last = event.created_at
            if event.note:
                state.notes.append(event.note)
        return states


def _delivery(row: sqlite3.Row) -> DeliveryStatus:
    return DeliveryStatus(
        digest_date=date.fromisoformat(row["digest_date"]),
        channel=row["channel"],
        status=row["status"],
        attempts=row["attempts"],
        last_error=row["last_error"],
        sent_at=row["sent_at"],
        updated_at=row["updated_at"],
    )


class Deliveries:
    """``store.deliveries``: per digest and channel, whether it was sent (``deliver`` journal)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def status(self, digest_date: date, channel: str) -> DeliveryStatus | None:
        with self._db.read() as db:
            row = db.execute(
                "SELECT * FROM deliveries WHERE digest_date=? AND channel=?",
                (digest_date.isoformat(), channel),
            ).fetchone()
        return _delivery(row) if row is not None else None

    def record(
        self, digest_date: date, channel: str, ok: bool, error: str | None = None
    ) -> DeliveryStatus:
        stamp = now()
        with self._db.write() as db:
            db.execute(
                "INSERT INTO deliveries (digest_date, channel, status, attempts, last_error,"
                " sent_at, updated_at) VALUES (?,?,?,1,?,?,?)"
                " ON CONFLICT(digest_date, channel) DO UPDATE SET status=excluded.status,"
                " attempts=attempts+1, last_error=excluded.last_error,"
                " sent_at=COALESCE(excluded.sent_at, sent_at), updated_at=excluded.updated_at",
                (
                    digest_date.isoformat(),
                    channel,
                    "sent" if ok else "failed",
                    error,
                    stamp if ok else None,
                    stamp,
                ),
            )
            row = db.execute(
                "SELECT * FROM deliveries WHERE digest_date=? AND channel=?",
                (digest_date.isoformat(), channel),
            ).fetchone()
        return _delivery(row)

    def of(self, digest_date: date | None = None) -> list[DeliveryStatus]:
        """Delivery states of one digest date (every date when none is given)."""
        with self._db.read() as db:
            if digest_date is None:
                rows = db.execute(
                    "SELECT * FROM deliveries ORDER BY digest_date, channel"
                ).fetchall()
            else:
                rows = db.execute(
                    "SELECT * FROM deliveries WHERE digest_date=? ORDER BY rowid",
                    (digest_date.isoformat(),),
                ).fetchall()
        return [_delivery(row) for row in rows]
