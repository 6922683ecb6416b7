"""The LLM judge's verdicts and first screens, kept per reader, listing day and judge model
(``store.verdicts``).

``paperbrief run`` records every verdict the judge gives, so a judged ranking can be
evaluated offline: ``paperbrief judge export`` writes them in the replay format that
``paperbrief eval ranking --judge-replay`` reads.

The judge reads the reader's profile, so a verdict is the reader's: two readers of one home
get their own on the same paper, and the relevance a reader learns from (``of_papers``, read
by ``rank.gather_evidence``) is their own. ``store.verdicts`` is the home's (it reads every
reader's rows; ``of(key)`` gives one reader's); a reader's view (``Store.for_reader``) reads
and writes its reader's rows only. The reader key is ``Profile.key``, as for feedback; ''
marks rows judged for no named reader (schema m011), which a reader reads as their own only
while no other reader has been judged in the home (``_scope``).
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


def _scope(reader: str | None) -> tuple[str, list[str]]:
    """The rows that are ``reader``'s (None: every reader's): their own, and the rows judged
    for no named reader ('') while no other reader has verdicts or screens in the home — a
    one-reader home upgraded from before readers were recorded keeps its history; once a
    second reader is judged, '' rows may be theirs and are nobody's (schema m011)."""
    if reader is None:
        return "1=1", []
    alone = " AND ".join(
        f"NOT EXISTS (SELECT 1 FROM {table} o WHERE o.reader NOT IN ('', ?))"
        for table in ("judge_verdicts", "judge_screens")
    )
    return f"(reader = ? OR (reader = '' AND {alone}))", [reader, reader, reader]


def _in_range(
    db: Database,
    table: str,
    reader: str | None,
    since: date | None,
    until: date | None,
    model: str | None,
) -> list[sqlite3.Row]:
    """Rows of ``table`` (judge_verdicts or judge_screens) of ``reader`` (None: every
    reader's) between two listing days (and of one model), oldest first."""
    query, args = _scope(reader)
    query = f"SELECT * FROM {table} WHERE {query}"
    for clause, value in (("day >= ?", since), ("day <= ?", until)):
        if value is not None:
            query, args = f"{query} AND {clause}", [*args, value.isoformat()]
    if model is not None:
        query, args = query + " AND model = ?", [*args, model]
    with db.read() as connection:
        return list(connection.execute(query + " ORDER BY day, created_at, rowid", args))


class Verdicts:
    """``store.verdicts``: what the judge said about each paper of a listing day, for
    ``reader`` (None: the home's, every reader's; module docstring)."""

    def __init__(self, db: Database, reader: str | None = None) -> None:
        self._db = db
        self.reader = reader

    def of(self, reader: str) -> Verdicts:
        """One reader's verdicts (a reader's view stays its own reader's, whoever is named)."""
        return self if self.reader is not None else Verdicts(self._db, reader)

    def readers(self) -> list[str]:
        """The readers with recorded verdicts or screens ('' = judged for no named one)."""
        with self._db.read() as db:
            rows = db.execute(
                "SELECT reader FROM judge_verdicts UNION SELECT reader FROM judge_screens"
                " ORDER BY reader"
            ).fetchall()
        return [row[0] for row in rows if self.reader is None or row[0] == self.reader]

    def save(self, day: date, model: str, verdicts: Mapping[str, Verdict]) -> None:
        """Record a day's verdicts by ``model`` for this reader ('' for the home's store):
        a re-judged paper keeps the newest."""
        stamp = now()
        with self._db.write() as db:
            db.executemany(
                "INSERT OR REPLACE INTO judge_verdicts (reader, day, model, paper_id, stars,"
                " line, reason, must_read, instructions, relevance, created_at)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        self.reader or "",
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
        """Record a day's first-screen relevance by ``model`` for this reader ('' for the
        home's store): the newest screen wins."""
        stamp, reader = now(), self.reader or ""
        with self._db.write() as db:
            db.executemany(
                "INSERT OR REPLACE INTO judge_screens (reader, day, model, paper_id, relevance,"
                " created_at) VALUES (?,?,?,?,?,?)",
                [
                    (reader, day.isoformat(), model, pid, int(r), stamp)
                    for pid, r in screens.items()
                ],
            )

    def screens_by_day(
        self, since: date | None = None, until: date | None = None, model: str | None = None
    ) -> dict[str, dict[str, int]]:
        """First-screen relevance by listing day (ISO) then arXiv id (the newest wins)."""
        rows = _in_range(self._db, "judge_screens", self.reader, since, until, model)
        found: dict[str, dict[str, int]] = {}
        for row in rows:
            found.setdefault(row["day"], {})[row["paper_id"]] = row["relevance"]
        return found

    def of_papers(self, paper_ids: Iterable[str]) -> dict[str, PaperJudgement]:
        """What the judge last said about each paper for this reader (any day, any model):
        its verdict's relevance and its first screen, by arXiv id (papers never judged are
        absent)."""
        ids = list(dict.fromkeys(paper_ids))
        found: dict[str, PaperJudgement] = {}
        with self._db.read() as db:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for table, field_name in (("judge_verdicts", "judge"), ("judge_screens", "screen")):
                    scope, scope_args = _scope(self.reader)
                    column = "relevance, stars" if field_name == "judge" else "relevance"
                    rows = db.execute(
                        f"SELECT paper_id, day, {column} FROM {table}"
                        f" WHERE paper_id IN ({marks}) AND {scope} ORDER BY created_at, rowid",
                        [*chunk, *scope_args],
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
        rows = _in_range(self._db, "judge_verdicts", self.reader, since, until, model)
        found: dict[str, dict[str, Verdict]] = {}
        for row in rows:
            found.setdefault(row["day"], {})[row["paper_id"]] = _verdict(row)
        return found

    def models(self) -> list[str]:
        """Judge models with recorded verdicts (of this reader)."""
        scope, args = _scope(self.reader)
        with self._db.read() as db:
            rows = db.execute(
                f"SELECT DISTINCT model FROM judge_verdicts WHERE {scope} ORDER BY model", args
            )
            return [row[0] for row in rows.fetchall()]
