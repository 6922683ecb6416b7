"""The LLM judge's verdicts, kept per listing day and judge model (``store.verdicts``).

``paperbrief run`` records every verdict the judge gives, so a judged ranking can be
evaluated offline: ``paperbrief judge export`` writes them in the replay format that
``paperbrief eval ranking --judge-replay`` reads.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import date

from paperbrief.records import Verdict
from paperbrief.store.database import Database, now


def _verdict(row: sqlite3.Row) -> Verdict:
    return Verdict(
        stars=row["stars"],
        line=row["line"],
        reason=row["reason"],
        must_read=bool(row["must_read"]),
        instructions=bool(row["instructions"]),
    )


class Verdicts:
    """``store.verdicts``: what the judge said about each paper of a listing day."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def save(self, day: date, model: str, verdicts: Mapping[str, Verdict]) -> None:
        """Record a day's verdicts by ``model`` (a re-judged paper keeps the newest)."""
        stamp = now()
        with self._db.write() as db:
            db.executemany(
                "INSERT OR REPLACE INTO judge_verdicts (day, model, paper_id, stars, line,"
                " reason, must_read, instructions, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                [
                    (
                        day.isoformat(),
                        model,
                        paper_id,
                        v.stars,
                        v.line,
                        v.reason,
                        int(v.must_read),
                        int(v.instructions),
                        stamp,
                    )
                    for paper_id, v in verdicts.items()
                ],
            )

    def of_day(self, day: date, model: str | None = None) -> dict[str, Verdict]:
        """One day's verdicts by arXiv id (of ``model``, else the newest of any model)."""
        return self.by_day(day, day, model).get(day.isoformat(), {})

    def by_day(
        self, since: date | None = None, until: date | None = None, model: str | None = None
    ) -> dict[str, dict[str, Verdict]]:
        """Verdicts by listing day (ISO) then arXiv id, days in order; when several models
        judged a paper (and no ``model`` is given), the newest verdict wins."""
        query = "SELECT * FROM judge_verdicts WHERE 1=1"
        args: list[str] = []
        if since is not None:
            query, args = query + " AND day >= ?", [*args, since.isoformat()]
        if until is not None:
            query, args = query + " AND day <= ?", [*args, until.isoformat()]
        if model is not None:
            query, args = query + " AND model = ?", [*args, model]
        with self._db.read() as db:
            rows = db.execute(query + " ORDER BY day, created_at, rowid", args).fetchall()
        found: dict[str, dict[str, Verdict]] = {}
        for row in rows:
            found.setdefault(row["day"], {})[row["paper_id"]] = _verdict(row)
        return found

    def models(self) -> list[str]:
        """Judge models with recorded verdicts."""
        with self._db.read() as db:
            rows = db.execute("SELECT DISTINCT model FROM judge_verdicts ORDER BY model")
            return [row[0] for row in rows.fetchall()]
