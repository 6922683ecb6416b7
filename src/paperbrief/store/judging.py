"""The LLM judge's verdicts, kept per listing day and judge model (``store.verdicts``).

``paperbrief run`` records every verdict the judge gives, so a judged ranking can be
evaluated offline: ``paperbrief judge export`` writes them in the replay format that
``paperbrief eval ranking --judge-replay`` reads.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import date

from paperbrief.records import BAND_MIDDLE, PaperJudgement, Verdict
from paperbrief.store.database import Database, now


def _verdict(row: sqlite3.Row) -> Verdict:
    return Verdict(
        stars=row["stars"],
        line=row["line"],
        reason=row["reason"],
        must_read=bool(row["must_read"]),
        instructions=bool(row["instructions"]),
        relevance=row["relevance"],
    )


def _in_range(
    db: Database, table: str, since: date | None, until: date | None, model: str | None
) -> list[sqlite3.Row]:
    """Rows of ``table`` (judge_verdicts or judge_screens) between two listing days (and of
    one model), oldest first."""
    query = f"SELECT * FROM {table} WHERE 1=1"
    args: list[str] = []
    for clause, value in (("day >= ?", since), ("day <= ?", until)):
        if value is not None:
            query, args = f"{query} AND {clause}", [*args, value.isoformat()]
    if model is not None:
        query, args = query + " AND model = ?", [*args, model]
    with db.read() as connection:
        return list(connection.execute(query + " ORDER BY day, created_at, rowid", args))


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
                " reason, must_read, instructions, relevance, created_at)"
                " VALUES (?,?,?,?,?,?,?,?,?,?)",
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
                        v.relevance,
                        stamp,
                    )
                    for paper_id, v in verdicts.items()
                ],
            )

    def save_screens(self, day: date, model: str, screens: Mapping[str, int]) -> None:
        """Record a day's first-screen relevance by ``model`` (the newest screen wins)."""
        stamp = now()
        with self._db.write() as db:
            db.executemany(
                "INSERT OR REPLACE INTO judge_screens (day, model, paper_id, relevance,"
                " created_at) VALUES (?,?,?,?,?)",
                [(day.isoformat(), model, pid, int(r), stamp) for pid, r in screens.items()],
            )

    def screens_by_day(
        self, since: date | None = None, until: date | None = None, model: str | None = None
    ) -> dict[str, dict[str, int]]:
        """First-screen relevance by listing day (ISO) then arXiv id (the newest wins)."""
        rows = _in_range(self._db, "judge_screens", since, until, model)
        found: dict[str, dict[str, int]] = {}
        for row in rows:
            found.setdefault(row["day"], {})[row["paper_id"]] = row["relevance"]
        return found

    def of_papers(self, paper_ids: Iterable[str]) -> dict[str, PaperJudgement]:
        """What the judge last said about each paper (any day, any model): its verdict's
        relevance and its first screen, by arXiv id (papers never judged are absent)."""
        ids = list(dict.fromkeys(paper_ids))
        found: dict[str, PaperJudgement] = {}
        with self._db.read() as db:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for table, field_name in (("judge_verdicts", "judge"), ("judge_screens", "screen")):
                    column = "relevance, stars" if field_name == "judge" else "relevance"
                    rows = db.execute(
                        f"SELECT paper_id, day, {column} FROM {table}"
                        f" WHERE paper_id IN ({marks}) ORDER BY created_at, rowid",
                        chunk,
                    ).fetchall()
                    for row in rows:
                        value = row["relevance"]
                        if field_name == "judge" and value is None:
                            value = BAND_MIDDLE[row["stars"]]
                        old = found.get(row["paper_id"], PaperJudgement(row["day"]))
                        found[row["paper_id"]] = replace(old, day=row["day"], **{field_name: value})
        return found

    def of_day(self, day: date, model: str | None = None) -> dict[str, Verdict]:
        """One day's verdicts by arXiv id (of ``model``, else the newest of any model)."""
        return self.by_day(day, day, model).get(day.isoformat(), {})

    def by_day(
        self, since: date | None = None, until: date | None = None, model: str | None = None
    ) -> dict[str, dict[str, Verdict]]:
        """Verdicts by listing day (ISO) then arXiv id, days in order; when several models
        judged a paper (and no ``model`` is given), the newest verdict wins."""
        rows = _in_range(self._db, "judge_verdicts", since, until, model)
        found: dict[str, dict[str, Verdict]] = {}
        for row in rows:
            found.setdefault(row["day"], {})[row["paper_id"]] = _verdict(row)
        return found

    def models(self) -> list[str]:
        """Judge models with recorded verdicts."""
        with self._db.read() as db:
            rows = db.execute("SELECT DISTINCT model FROM judge_verdicts ORDER BY model")
            return [row[0] for row in rows.fetchall()]
