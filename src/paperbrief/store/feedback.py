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
        profile=row["profile"],
        title=row["title"] or "",
    )


class Feedback:
    """``store.feedback``: every signal, oldest first (``rank.FeedbackLog``).

    ``store.feedback`` sees the whole home; ``store.feedback.of(profile)`` one reader's:
    the signals given for that profile and those given for every profile (''), and what
    it adds is that profile's. A signal that repeats the paper's standing one (same signal,
    no new note) is folded into it: the existing event is dated anew, not stored twice.
    """

    def __init__(self, db: Database, profile: str | None = None) -> None:
        self._db = db
        self.profile = profile

    def of(self, profile: str) -> Feedback:
        """One reader's feedback (see the class docstring)."""
        return Feedback(self._db, profile)

    def _scope(self) -> tuple[str, tuple[str, ...]]:
        if self.profile is None:
            return "1=1", ()
        return "profile IN ('', ?)", (self.profile,)

    def add(
        self,
        paper_id: str,
        signal: Signal,
        note: str | None = None,
        source: str = "cli",
        created_at: str | None = None,
        title: str = "",
    ) -> bool:
        """Record one signal; False when it repeated the standing one and was folded."""
        scope, args = self._scope()
        stamp = created_at or now()
        with self._db.write() as db:
            latest = db.execute(
                f"SELECT * FROM feedback WHERE paper_id=? AND {scope}"
                " ORDER BY created_at DESC, id DESC LIMIT 1",
                (paper_id, *args),
            ).fetchone()
            if (
                latest is not None
                and latest["signal"] == Signal(signal).value
                and (not note or note == latest["note"])
            ):
                if stamp > latest["created_at"]:
                    db.execute("UPDATE feedback SET created_at=? WHERE id=?", (stamp, latest["id"]))
                return False
            db.execute(
                "INSERT INTO feedback (paper_id, signal, note, source, created_at, profile, title)"
                " VALUES (?,?,?,?,?,?,?)",
                (paper_id, Signal(signal).value, note, source, stamp, self.profile or "", title),
            )
        return True

    def events(self, before: str | None = None) -> list[FeedbackEvent]:
        """All feedback, oldest first; ``before`` (ISO timestamp) keeps only earlier events."""
        scope, args = self._scope()
        query = f"SELECT * FROM feedback WHERE {scope}"
        if before is not None:
            query, args = query + " AND created_at < ?", (*args, before)
        with self._db.read() as db:
            rows = db.execute(query + " ORDER BY created_at, id", args).fetchall()
        return [_event(row) for row in rows]

    def recent(self, limit: int = 50, sources: tuple[str, ...] = ()) -> list[FeedbackEvent]:
        """The newest events first (only those from ``sources`` when given)."""
        scope, args = self._scope()
        query = f"SELECT * FROM feedback WHERE {scope}"
        if sources:
            query += f" AND source IN ({','.join('?' * len(sources))})"
        with self._db.read() as db:
            rows = db.execute(
                query + " ORDER BY created_at DESC, id DESC LIMIT ?", (*args, *sources, limit)
            ).fetchall()
        return [_event(row) for row in rows]

    def remove(self, event_id: int) -> FeedbackEvent | None:
        """Delete one event (``feedback undo``); the removed event, or None if there was none."""
        scope, args = self._scope()
        with self._db.write() as db:
            row = db.execute(
                f"SELECT * FROM feedback WHERE id=? AND {scope}", (event_id, *args)
            ).fetchone()
            if row is not None:
                db.execute("DELETE FROM feedback WHERE id=?", (event_id,))
        return _event(row) if row is not None else None

    def for_paper(self, paper_id: str) -> list[FeedbackEvent]:
        scope, args = self._scope()
        with self._db.read() as db:
            rows = db.execute(
                f"SELECT * FROM feedback WHERE paper_id=? AND {scope} ORDER BY created_at, id",
                (paper_id, *args),
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
