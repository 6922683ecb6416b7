"""The reader's feedback."""

from __future__ import annotations

import sqlite3

from paperbrief.models import Signal
from paperbrief.records import FeedbackEvent, FeedbackState
from paperbrief.store.database import Database, now


def _event(row: sqlite3.Row) -> FeedbackEvent:
    return FeedbackEvent(
        row["paper_id"],
        Signal(row["signal"]),
        row["note"],
        row["source"],
        row["created_at"],
        row["id"],
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

    def recent(self, limit: int = 50, sources: tuple[str, ...] = ()) -> list[FeedbackEvent]:
        """The newest events first (only those from ``sources`` when given)."""
        query = "SELECT * FROM feedback"
        if sources:
            query += f" WHERE source IN ({','.join('?' * len(sources))})"
        with self._db.read() as db:
            rows = db.execute(query + " ORDER BY id DESC LIMIT ?", (*sources, limit)).fetchall()
        return [_event(row) for row in rows]

    def remove(self, event_id: int) -> FeedbackEvent | None:
        """Delete one event (``feedback undo``); the removed event, or None if there was none."""
        with self._db.write() as db:
            row = db.execute("SELECT * FROM feedback WHERE id=?", (event_id,)).fetchone()
            if row is not None:
                db.execute("DELETE FROM feedback WHERE id=?", (event_id,))
        return _event(row) if row is not None else None

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
