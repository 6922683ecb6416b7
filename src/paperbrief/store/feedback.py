"""The reader's feedback.

A home's store (``reader`` None) sees every signal, as a one-reader home always did. A
reader's view (``Store.for_reader``) writes its signals under the reader's key and reads
its own plus those given without naming a reader (profile ''): nobody else's.
"""

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

    def __init__(self, db: Database, reader: str | None = None) -> None:
        self._db = db
        self._reader = reader

    def _scope(self, clause: str = "") -> tuple[str, tuple[str, ...]]:
        """`` WHERE`` + the reader's scope (and ``clause``), and its parameters."""
        parts = [clause] if clause else []
        parameters: tuple[str, ...] = ()
        if self._reader is not None:
            parts.append("profile IN (?, '')")
            parameters = (self._reader,)
        return (" WHERE " + " AND ".join(parts) if parts else ""), parameters

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
                "INSERT INTO feedback (paper_id, signal, note, source, created_at, profile)"
                " VALUES (?,?,?,?,?,?)",
                (
                    paper_id,
                    Signal(signal).value,
                    note,
                    source,
                    created_at or now(),
                    self._reader or "",
                ),  # fmt: skip
            )

    def events(self, before: str | None = None) -> list[FeedbackEvent]:
        """All feedback, oldest first; ``before`` (ISO timestamp) keeps only earlier events."""
        where, scope = self._scope("" if before is None else "created_at < ?")
        parameters = scope if before is None else (before, *scope)
        with self._db.read() as db:
            rows = db.execute(
                f"SELECT * FROM feedback{where} ORDER BY created_at, id", parameters
            ).fetchall()
        return [_event(row) for row in rows]

    def recent(self, limit: int = 50, sources: tuple[str, ...] = ()) -> list[FeedbackEvent]:
        """The newest events first (only those from ``sources`` when given)."""
        where, scope = self._scope(f"source IN ({','.join('?' * len(sources))})" if sources else "")
        with self._db.read() as db:
            rows = db.execute(
                f"SELECT * FROM feedback{where} ORDER BY id DESC LIMIT ?", (*sources, *scope, limit)
            ).fetchall()
        return [_event(row) for row in rows]

    def remove(self, event_id: int) -> FeedbackEvent | None:
        """Delete one event (``feedback undo``); the removed event, or None if there was none."""
        where, scope = self._scope("id=?")
        with self._db.write() as db:
            row = db.execute(f"SELECT * FROM feedback{where}", (event_id, *scope)).fetchone()
            if row is not None:
                db.execute("DELETE FROM feedback WHERE id=?", (event_id,))
        return _event(row) if row is not None else None

    def for_paper(self, paper_id: str) -> list[FeedbackEvent]:
        where, scope = self._scope("paper_id=?")
        with self._db.read() as db:
            rows = db.execute(
                f"SELECT * FROM feedback{where} ORDER BY created_at, id", (paper_id, *scope)
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
