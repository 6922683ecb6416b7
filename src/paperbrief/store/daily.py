"""The daily record: each day's ranking, picks, briefs, digest, output files and runs."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from datetime import date

from paperbrief.models import Digest, Paper, PaperBrief, ScoredPaper, Trace
from paperbrief.records import DigestEntry, DigestHit, PickedPaper, Run, StoredDigest
from paperbrief.store import codec
from paperbrief.store.database import Database, now
from paperbrief.store.listings import Listings
from paperbrief.store.search import (
    index_digest,
    match_query,
    passage,
    query_terms,
    readable_text,
)


class Rankings:
    """``store.rankings``: a day's full ranking, kept per ranking fingerprint.

    A reader's view keeps its rankings under its own key (the fingerprint + ``:<reader>``):
    two readers whose profiles rank alike still learn from different feedback, and a view
    never loads another reader's ranking.
    """

    def __init__(self, db: Database, listings: Listings, reader: str | None = None) -> None:
        self._db = db
        self._listings = listings
        self._suffix = f":{reader}" if reader is not None else ""

    def _mine(self, fingerprint: str) -> bool:
        return fingerprint.endswith(self._suffix)

    def save(self, day: date, fingerprint: str, ranking: Iterable[ScoredPaper]) -> None:
        fingerprint += self._suffix
        with self._db.write() as db:
            db.execute(
                "DELETE FROM scores WHERE day=? AND profile_fingerprint=?",
                (day.isoformat(), fingerprint),
            )
            db.executemany(
                "INSERT INTO scores (day, profile_fingerprint, paper_id, rank, score, stars,"
                " line, matched_terms, components, reason) VALUES (?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        day.isoformat(),
                        fingerprint,
                        item.paper.id,
                        item.rank,
                        item.score,
                        item.stars,
                        item.line,
                        json.dumps(list(item.matched_terms), ensure_ascii=False),
                        json.dumps(item.components),
                        item.reason,
                    )
                    for item in ranking
                ],
            )

    def load(self, day: date, fingerprint: str | None = None) -> list[ScoredPaper]:
        """The stored ranking of a day, best first (the latest fingerprint when none given)."""
        key = day.isoformat()
        with self._db.read() as db:
            if fingerprint is None:
                rows = db.execute(
                    "SELECT profile_fingerprint FROM scores WHERE day=? ORDER BY rowid DESC",
                    (key,),
                ).fetchall()
                mine = [row[0] for row in rows if self._mine(row[0])]
                if not mine:
                    return []
                fingerprint = mine[0]
            else:
                fingerprint += self._suffix
            rows = db.execute(
                "SELECT * FROM scores WHERE day=? AND profile_fingerprint=? ORDER BY rank",
                (key, fingerprint),
            ).fetchall()
        listing = self._listings.load(day)
        papers: dict[str, Paper] = {p.id: p for p in listing.papers} if listing else {}
        missing = [row["paper_id"] for row in rows if row["paper_id"] not in papers]
        papers.update(self._listings.papers(missing))
        return [_scored(row, papers[row["paper_id"]]) for row in rows if row["paper_id"] in papers]

    def components_of(self, paper_ids: Iterable[str]) -> dict[str, tuple[str, dict[str, float]]]:
        """Each paper's listing day and score components in the latest ranking that holds it
        (papers never ranked are absent); a reader's view, in that reader's rankings only."""
        ids = list(dict.fromkeys(paper_ids))
        found: dict[str, tuple[str, dict[str, float]]] = {}
        with self._db.read() as db:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = db.execute(
                    "SELECT paper_id, day, components, profile_fingerprint FROM scores"
                    f" WHERE paper_id IN ({marks}) ORDER BY rowid",
                    chunk,
                ).fetchall()
                for row in rows:
                    if self._mine(row["profile_fingerprint"]):
                        found[row["paper_id"]] = (row["day"], json.loads(row["components"]))
        return found

    def days(self) -> list[date]:
        """Listing days that have a stored ranking, newest first."""
        with self._db.read() as db:
            rows = db.execute(
                "SELECT DISTINCT day, profile_fingerprint FROM scores ORDER BY day DESC"
            ).fetchall()
        days = (row[0] for row in rows if self._mine(row[1]))
        return [date.fromisoformat(day) for day in dict.fromkeys(days)]


def _scored(row: sqlite3.Row, paper: Paper) -> ScoredPaper:
    return ScoredPaper(
        paper=paper,
        score=row["score"],
        stars=row["stars"],
        line=row["line"],
        matched_terms=tuple(json.loads(row["matched_terms"])),
        components=json.loads(row["components"]),
        reason=row["reason"],
        rank=row["rank"],
    )


def _pinned(reader: str | None, profile: str | None) -> str | None:
    """The profile a read is about: a reader's view only ever reads its reader's rows."""
    return reader if reader is not None else profile


def _of_profile(profile: str | None, column: str = "profile") -> tuple[str, tuple[str, ...]]:
    """A WHERE fragment (and its argument) for one profile's rows; None: every profile."""
    return ("", ()) if profile is None else (f" AND {column}=?", (profile,))


class Picks:
    """``store.picks``: which papers each digest deep-reads, in digest order, per profile.
    A reader's view (``reader``) reads only that reader's history (``ids_before``)."""

    def __init__(self, db: Database, reader: str | None = None) -> None:
        self._db = db
        self._reader = reader

    def save(
        self,
        digest_date: date,
        listing_day: date,
        picks: Sequence[ScoredPaper],
        profile: str = "",
    ) -> None:
        stamp = now()
        with self._db.write() as db:
            db.execute(
                "DELETE FROM picks WHERE digest_date=? AND profile=?",
                (digest_date.isoformat(), profile),
            )
            db.executemany(
                "INSERT INTO picks (profile, digest_date, listing_day, paper_id, position,"
                " stars, created_at) VALUES (?,?,?,?,?,?,?)",
                [
                    (
                        profile,
                        digest_date.isoformat(),
                        listing_day.isoformat(),
                        p.paper.id,
                        i,
                        p.stars,
                        stamp,
                    )
                    for i, p in enumerate(picks, start=1)
                ],
            )

    def ids(self, digest_date: date, profile: str | None = None) -> list[str]:
        """The picks of a digest date, in digest order (of one profile when given)."""
        where, args = _of_profile(_pinned(self._reader, profile))
        with self._db.read() as db:
            rows = db.execute(
                "SELECT paper_id FROM picks WHERE digest_date=?"
                + where
                + " ORDER BY profile, position",
                (digest_date.isoformat(), *args),
            ).fetchall()
        return list(dict.fromkeys(row[0] for row in rows))

    def ids_before(self, listing_day: date) -> set[str]:
        """Papers picked by digests of listing days before ``listing_day`` (history)."""
        scope, parameters = "", tuple[str, ...]()
        if self._reader is not None:  # a reader's view: their own history only
            scope, parameters = " AND profile IN (?, '')", (self._reader,)
        with self._db.read() as db:
            rows = db.execute(
                "SELECT DISTINCT paper_id FROM picks WHERE listing_day < ?" + scope,
                (listing_day.isoformat(), *parameters),
            ).fetchall()
        return {row[0] for row in rows}

    def ids_of_other_days(self, listing_day: date, profile: str) -> set[str]:
        """Papers ``profile``'s digests picked for any other listing day, later ones too (a
        run for another day going on at the same time, or already done)."""
        with self._db.read() as db:
            rows = db.execute(
                "SELECT DISTINCT paper_id FROM picks WHERE listing_day != ? AND profile=?",
                (listing_day.isoformat(), profile),
            ).fetchall()
        return {row[0] for row in rows}

    def dates_of(self, paper_id: str) -> list[date]:
        """Digest dates that picked ``paper_id``, newest first."""
        where, args = _of_profile(self._reader)
        with self._db.read() as db:
            rows = db.execute(
                "SELECT DISTINCT digest_date FROM picks WHERE paper_id=?"
                + where
                + " ORDER BY digest_date DESC",
                (paper_id, *args),
            ).fetchall()
        return [date.fromisoformat(row[0]) for row in rows]


class Briefs:
    """``store.briefs``: each pick's brief, kept as soon as it is written (resume point)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def save(
        self, digest_date: date, language: str, writer: str, brief: PaperBrief, profile: str = ""
    ) -> None:
        with self._db.write() as db:
            db.execute(
                "INSERT OR REPLACE INTO briefs (profile, digest_date, paper_id, language, writer,"
                " body, created_at) VALUES (?,?,?,?,?,?,?)",
                (
                    profile,
                    digest_date.isoformat(),
                    brief.paper.id,
                    language,
                    writer,
                    codec.encode(brief),
                    now(),
                ),
            )

    def load(
        self, digest_date: date, paper_id: str, language: str, writer: str, profile: str = ""
    ) -> PaperBrief | None:
        with self._db.read() as db:
            row = db.execute(
                "SELECT body FROM briefs WHERE digest_date=? AND paper_id=? AND language=?"
                " AND writer=? AND profile=?",
                (digest_date.isoformat(), paper_id, language, writer, profile),
            ).fetchone()
        return codec.decode(PaperBrief, row[0]) if row else None


class Digests:
    """``store.digests``: published digests, as values and as rendered, per profile.

    Reads take ``profile``: a profile's key for its own digests, None for every profile's
    (the web UI's archive). A reader's view (``Store.for_reader``) reads its reader's
    digests whatever ``profile`` says.
    """

    def __init__(self, db: Database, picks: Picks, reader: str | None = None) -> None:
        self._db = db
        self._picks = picks
        self._reader = reader  # a reader's view reads that reader's digests only

    def save(
        self, digest: Digest, writer: str, markdown: str, html: str, profile: str = ""
    ) -> StoredDigest:
        stamp = now()
        with self._db.write() as db:
            db.execute(
                "INSERT OR REPLACE INTO digests (profile, digest_date, language, listing_day,"
                " writer, title, markdown, html, body, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    profile,
                    digest.digest_date.isoformat(),
                    digest.language,
                    digest.listing_day.isoformat(),
                    writer,
                    digest.title,
                    markdown,
                    html,
                    codec.encode(digest),
                    stamp,
                ),
            )
            index_digest(
                db,
                profile,
                digest.digest_date.isoformat(),
                digest.language,
                digest.title,
                markdown,
            )
        return StoredDigest(digest, markdown, html, writer, stamp, profile)

    def load(
        self, digest_date: date, language: str | None = None, profile: str | None = None
    ) -> StoredDigest | None:
        """The digest of a date (in ``language``, else the newest of any language)."""
        where, args = _of_profile(_pinned(self._reader, profile))
        if language is not None:
            where, args = where + " AND language=?", (*args, language)
        with self._db.read() as db:
            row = db.execute(
                "SELECT * FROM digests WHERE digest_date=?"
                + where
                + " ORDER BY created_at DESC LIMIT 1",
                (digest_date.isoformat(), *args),
            ).fetchone()
        return _stored(row) if row is not None else None

    def latest(self, profile: str | None = None) -> StoredDigest | None:
        where, args = _of_profile(_pinned(self._reader, profile))
        with self._db.read() as db:
            row = db.execute(
                "SELECT * FROM digests WHERE 1"
                + where
                + " ORDER BY digest_date DESC, created_at DESC LIMIT 1",
                args,
            ).fetchone()
        return _stored(row) if row is not None else None

    def recent(self, limit: int, profile: str | None = None) -> list[StoredDigest]:
        """The newest ``limit`` digests (every language), newest first."""
        where, args = _of_profile(_pinned(self._reader, profile))
        with self._db.read() as db:
            rows = db.execute(
                "SELECT * FROM digests WHERE 1"
                + where
                + " ORDER BY digest_date DESC, language LIMIT ?",
                (*args, limit),
            ).fetchall()
        return [_stored(row) for row in rows]

    def entries(self, limit: int = 365) -> list[DigestEntry]:
        """The archive, newest first: each digest with its picks, without bodies."""
        where, args = _of_profile(self._reader)
        mine, picks_args = _of_profile(self._reader, "k.profile")
        with self._db.read() as db:
            rows = db.execute(
                "SELECT profile, digest_date, language, listing_day, writer, title, created_at"
                " FROM digests WHERE 1" + where + " ORDER BY digest_date DESC, profile LIMIT ?",
                (*args, limit),
            ).fetchall()
            picked = db.execute(
                "SELECT k.profile, k.digest_date, k.paper_id, k.stars,"
                " COALESCE(p.title, '') AS title"
                " FROM picks k LEFT JOIN papers p ON p.id = k.paper_id WHERE 1"
                + mine
                + " ORDER BY k.digest_date, k.position",
                picks_args,
            ).fetchall()
        by_date: dict[tuple[str, str], list[PickedPaper]] = {}
        for row in picked:
            by_date.setdefault((row["profile"], row["digest_date"]), []).append(
                PickedPaper(row["paper_id"], row["title"], row["stars"])
            )
        return [
            DigestEntry(
                digest_date=date.fromisoformat(row["digest_date"]),
                language=row["language"],
                listing_day=date.fromisoformat(row["listing_day"]),
                writer=row["writer"],
                title=row["title"],
                created_at=row["created_at"],
                picks=tuple(by_date.get((row["profile"], row["digest_date"]), ())),
                profile=row["profile"],
            )
            for row in rows
        ]

    def dates_for_listing(
        self, listing_day: date, language: str | None = None, profile: str | None = None
    ) -> list[date]:
        """Digest dates already published from ``listing_day`` (in ``language`` if given)."""
        where, args = _of_profile(_pinned(self._reader, profile))
        query = "SELECT DISTINCT digest_date FROM digests WHERE listing_day=?" + where
        args = (listing_day.isoformat(), *args)
        if language is not None:
            query, args = query + " AND language=?", (*args, language)
        with self._db.read() as db:
            rows = db.execute(query + " ORDER BY digest_date", args).fetchall()
        return [date.fromisoformat(row[0]) for row in rows]

    def briefs_of(self, paper_id: str) -> list[tuple[date, PaperBrief, Trace | None]]:
        """Every published brief about a paper, newest digest first, with what its digest's
        verifier traced (the places its citations link to)."""
        found: list[tuple[date, PaperBrief, Trace | None]] = []
        for digest_date in self._picks.dates_of(paper_id):
            where, args = _of_profile(self._reader)
            with self._db.read() as db:
                rows = db.execute(
                    "SELECT body FROM digests WHERE digest_date=?" + where,
                    (digest_date.isoformat(), *args),
                ).fetchall()
            for row in rows:
                digest = codec.decode(Digest, row[0])
                trace = digest.provenance.trace if digest.provenance else None
                found.extend(
                    (digest_date, b, trace) for b in digest.briefs if b.paper.id == paper_id
                )
        return found

    def search(self, query: str, limit: int = 30, profile: str | None = None) -> list[DigestHit]:
        """Digests whose title or Markdown match ``query`` (FTS5, Chinese too; the grammar
        of ``store.search.match_query``), best match first, each with a passage; only
        ``profile``'s digests when given."""
        expression = match_query(query)
        if expression is None:
            return []
        where, args = _of_profile(_pinned(self._reader, profile), "d.profile")
        with self._db.read() as db:
            rows = db.execute(
                "SELECT d.digest_date, d.language, d.title, d.markdown FROM digests_fts f"
                " JOIN digests d ON d.profile = f.profile AND d.digest_date = f.digest_date"
                " AND d.language = f.language"
                " WHERE digests_fts MATCH ?"
                + where
                + " ORDER BY bm25(digests_fts), d.digest_date DESC LIMIT ?",
                (expression, *args, limit),
            ).fetchall()
        terms = query_terms(query)
        return [
            DigestHit(
                date.fromisoformat(row["digest_date"]),
                row["language"],
                row["title"],
                _snippet(row["markdown"], terms),
            )
            for row in rows
        ]


def _snippet(markdown: str, terms: list[str]) -> str:
    """The passage of the digest's readable text (``readable_text``: no front matter, no
    Markdown) around the first query term found (``store.search.passage``)."""
    return passage(readable_text(markdown), terms)


def _stored(row: sqlite3.Row) -> StoredDigest:
    return StoredDigest(
        digest=codec.decode(Digest, row["body"]),
        markdown=row["markdown"],
        html=row["html"],
        writer=row["writer"],
        created_at=row["created_at"],
        profile=row["profile"],
    )


class Outputs:
    """``store.outputs``: which files a digest was written to, with their hashes."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def record(
        self, digest_date: date, kind: str, path: str, sha256: str, profile: str = ""
    ) -> None:
        with self._db.write() as db:
            db.execute(
                "INSERT OR REPLACE INTO outputs (digest_date, kind, path, sha256, written_at,"
                " profile) VALUES (?,?,?,?,?,?)",
                (digest_date.isoformat(), kind, path, sha256, now(), profile),
            )


class Runs:
    """``store.runs``: every invocation of the daily job and how it ended."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def start(
        self,
        command: str,
        listing_day: date | None = None,
        digest_date: date | None = None,
        fingerprint: str | None = None,
        profile: str | None = None,
    ) -> int:
        """A ``running`` record of this process (its pid and host say whose it is)."""
        with self._db.write() as db:
            cursor = db.execute(
                "INSERT INTO runs (command, listing_day, digest_date, profile_fingerprint,"
                " started_at, profile, pid, host) VALUES (?,?,?,?,?,?,?,?)",
                (
                    command,
                    listing_day.isoformat() if listing_day else None,
                    digest_date.isoformat() if digest_date else None,
                    fingerprint,
                    now(),
                    profile,
                    os.getpid(),
                    socket.gethostname(),
                ),
            )
            return int(cursor.lastrowid or 0)

    def finish(self, run_id: int, status: str, detail: str = "") -> None:
        with self._db.write() as db:
            db.execute(
                "UPDATE runs SET finished_at=?, status=?, detail=? WHERE id=?",
                (now(), status, detail, run_id),
            )

    def settle_dead(self, alive: Callable[[Run], bool]) -> list[Run]:
        """Mark every ``running`` record that ``alive`` says has no live process ``dead``
        (with when that was noticed); returns those records as they were."""
        dead = [run for run in self.all(status="running") if not alive(run)]
        with self._db.write() as db:
            for run in dead:
                db.execute(
                    "UPDATE runs SET status='dead', finished_at=?, detail=? WHERE id=?",
                    (now(), DEAD_DETAIL.format(pid=run.pid, host=run.host), run.id),
                )
        return dead

    def all(self, status: str | None = None) -> list[Run]:
        """Every recorded run (of one ``status`` when given), oldest first."""
        query = "SELECT * FROM runs" + (" WHERE status=?" if status is not None else "")
        args = (status,) if status is not None else ()
        with self._db.read() as db:
            rows = db.execute(query + " ORDER BY id", args).fetchall()
        return [
            Run(
                id=row["id"],
                command=row["command"],
                listing_day=date.fromisoformat(row["listing_day"]) if row["listing_day"] else None,
                digest_date=date.fromisoformat(row["digest_date"]) if row["digest_date"] else None,
                fingerprint=row["profile_fingerprint"],
                started_at=row["started_at"],
                finished_at=row["finished_at"],
                status=row["status"],
                detail=row["detail"],
                profile=row["profile"],
                pid=row["pid"],
                host=row["host"],
            )
            for row in rows
        ]


DEAD_DETAIL = (
    "its process (pid {pid} on {host}) ended without recording how: killed (kill -9), out of"
    " memory, or the machine stopped"
)
