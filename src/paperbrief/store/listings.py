"""Papers and the listing days they were announced on."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from datetime import date

from paperbrief.models import Listing, ListingKind, Paper
from paperbrief.store.database import Database, now
from paperbrief.store.search import index_paper, match_query

_CHUNK = 500  # ids per IN (...) query, well under SQLite's variable limit


def paper_from_row(row: sqlite3.Row, listings: dict[str, ListingKind] | None = None) -> Paper:
    return Paper(
        id=row["id"],
        version=row["version"],
        title=row["title"],
        authors=tuple(json.loads(row["authors"])),
        abstract=row["abstract"],
        categories=tuple(json.loads(row["categories"])),
        primary_category=row["primary_category"],
        comment=row["comment"],
        announced=row["announced"],
        listings=listings or {},
    )


class Listings:
    """``store.listings``: what arXiv announced, paper by paper and day by day."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def save(self, listing: Listing) -> None:
        """Store the papers of a listing day and how each was listed (idempotent)."""
        stamp = now()
        day = listing.day.isoformat()
        with self._db.write() as db:
            for paper in listing.papers:
                db.execute(
                    """INSERT INTO papers (id, version, title, authors, abstract, categories,
                        primary_category, comment, announced, first_seen, updated)
                       VALUES (?,?,?,?,?,?,?,?,?,?,?)
                       ON CONFLICT(id) DO UPDATE SET version=COALESCE(excluded.version, version),
                        title=excluded.title, authors=excluded.authors,
                        abstract=excluded.abstract, categories=excluded.categories,
                        primary_category=excluded.primary_category, comment=excluded.comment,
                        announced=COALESCE(announced, excluded.announced),
                        updated=excluded.updated""",
                    (
                        paper.id,
                        paper.version,
                        paper.title,
                        json.dumps(list(paper.authors), ensure_ascii=False),
                        paper.abstract,
                        json.dumps(list(paper.categories)),
                        paper.primary_category,
                        paper.comment,
                        paper.announced or day,
                        stamp,
                        stamp,
                    ),
                )
                index_paper(db, paper.id, paper.title, paper.abstract)
                db.executemany(
                    "INSERT OR REPLACE INTO listings (day, category, paper_id, kind)"
                    " VALUES (?,?,?,?)",
                    [(day, category, paper.id, kind) for category, kind in paper.listings.items()],
                )
            db.execute(
                "INSERT OR REPLACE INTO listing_days"
                " (day, source, paper_count, notes, fetched_at, categories) VALUES (?,?,?,?,?,?)",
                (
                    day,
                    listing.source,
                    len(listing.papers),
                    json.dumps(list(listing.notes)),
                    stamp,
                    json.dumps(list(listing.categories)) if listing.categories else None,
                ),
            )

    def load(self, day: date) -> Listing | None:
        """The stored listing of a day (papers in listing order), or None if never fetched."""
        key = day.isoformat()
        with self._db.read() as db:
            meta = db.execute("SELECT * FROM listing_days WHERE day=?", (key,)).fetchone()
            if meta is None:
                return None
            rows = db.execute(
                "SELECT p.*, l.category, l.kind FROM listings l JOIN papers p ON p.id = l.paper_id"
                " WHERE l.day=? ORDER BY l.rowid",
                (key,),
            ).fetchall()
        kinds: dict[str, dict[str, ListingKind]] = {}
        first: dict[str, sqlite3.Row] = {}
        for row in rows:
            first.setdefault(row["id"], row)
            kinds.setdefault(row["id"], {})[row["category"]] = row["kind"]
        return Listing(
            day=day,
            papers=tuple(paper_from_row(row, kinds[paper_id]) for paper_id, row in first.items()),
            source=meta["source"],
            notes=tuple(json.loads(meta["notes"])),
            categories=tuple(json.loads(meta["categories"])) if meta["categories"] else (),
        )

    def days(self) -> list[date]:
        """Every listing day stored, oldest first."""
        with self._db.read() as db:
            rows = db.execute("SELECT day FROM listing_days ORDER BY day").fetchall()
        return [date.fromisoformat(row["day"]) for row in rows]

    def paper(self, paper_id: str) -> Paper | None:
        """One stored paper with every listing it appeared in, or None."""
        with self._db.read() as db:
            row = db.execute("SELECT * FROM papers WHERE id=?", (paper_id,)).fetchone()
            if row is None:
                return None
            listed = db.execute(
                "SELECT category, kind FROM listings WHERE paper_id=?", (paper_id,)
            ).fetchall()
        return paper_from_row(row, {r["category"]: r["kind"] for r in listed})

    def papers(self, paper_ids: Iterable[str]) -> dict[str, Paper]:
        """Stored papers by id, in bulk (unknown ids are absent; ``listings`` left empty)."""
        ids = list(dict.fromkeys(paper_ids))
        found: dict[str, Paper] = {}
        with self._db.read() as db:
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                for row in db.execute(
                    f"SELECT * FROM papers WHERE id IN ({marks})", chunk
                ).fetchall():
                    found[row["id"]] = paper_from_row(row)
        return found

    def search(self, query: str, limit: int = 50) -> list[Paper]:
        """Papers matching ``query`` in title or abstract (FTS5, Chinese too; the grammar of
        ``store.search.match_query``), best match first; an exact arXiv id finds its paper."""
        expression = match_query(query)
        with self._db.read() as db:
            exact = db.execute("SELECT * FROM papers WHERE id = ?", (query.strip(),)).fetchall()
            rows = []
            if expression is not None:
                rows = db.execute(
                    "SELECT p.* FROM papers_fts f JOIN papers p ON p.id = f.paper_id"
                    " WHERE papers_fts MATCH ? ORDER BY bm25(papers_fts, 0, 3.0, 1.0),"
                    " p.announced DESC LIMIT ?",
                    (expression, limit),
                ).fetchall()
        seen = {row["id"] for row in exact}
        return [paper_from_row(r) for r in [*exact, *(r for r in rows if r["id"] not in seen)]]
