"""The store: the only module that touches SQLite.

Schema changes are append-only numbered migrations applied on connect; never edit a
migration that has shipped, add the next one. Every write commits at once, so a crash half
way through a run loses nothing already done, and a rerun picks up what is stored.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

import numpy as np

from paperbrief.errors import StoreError
from paperbrief.models import Listing, Paper, ScoredPaper

MIGRATIONS: list[str] = [
    # 1: the whole first schema
    """
    CREATE TABLE papers (
        id TEXT PRIMARY KEY,            -- arXiv id without version
        version INTEGER,
        title TEXT NOT NULL,
        authors TEXT NOT NULL,          -- JSON list
        abstract TEXT NOT NULL,
        categories TEXT NOT NULL,       -- JSON list
        primary_category TEXT NOT NULL,
        comment TEXT,
        announced TEXT,
        first_seen TEXT NOT NULL,
        updated TEXT NOT NULL
    );
    CREATE TABLE listing_days (
        day TEXT PRIMARY KEY,
        source TEXT NOT NULL,
        paper_count INTEGER NOT NULL,
        notes TEXT NOT NULL DEFAULT '[]',
        fetched_at TEXT NOT NULL
    );
    CREATE TABLE listings (
        day TEXT NOT NULL,
        category TEXT NOT NULL,
        paper_id TEXT NOT NULL REFERENCES papers(id),
        kind TEXT NOT NULL CHECK (kind IN ('new', 'cross', 'replace')),
        PRIMARY KEY (day, category, paper_id)
    );
    CREATE INDEX listings_paper ON listings(paper_id);
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        command TEXT NOT NULL,
        listing_day TEXT,
        digest_date TEXT,
        profile_fingerprint TEXT,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        status TEXT NOT NULL DEFAULT 'running',
        detail TEXT
    );
    CREATE TABLE embeddings (
        model TEXT NOT NULL,
        text_hash TEXT NOT NULL,
        dim INTEGER NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (model, text_hash)
    );
    CREATE TABLE scores (
        day TEXT NOT NULL,
        profile_fingerprint TEXT NOT NULL,
        paper_id TEXT NOT NULL,
        rank INTEGER NOT NULL,
        score REAL NOT NULL,
        stars INTEGER NOT NULL,
        line TEXT,
        matched_terms TEXT NOT NULL,    -- JSON list
        components TEXT NOT NULL,       -- JSON object
        reason TEXT NOT NULL,
        PRIMARY KEY (day, profile_fingerprint, paper_id)
    );
    CREATE TABLE picks (
        digest_date TEXT NOT NULL,
        listing_day TEXT NOT NULL,
        paper_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        stars INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (digest_date, paper_id)
    );
    CREATE TABLE briefs (
        digest_date TEXT NOT NULL,
        paper_id TEXT NOT NULL,
        language TEXT NOT NULL,
        writer TEXT NOT NULL,
        body TEXT NOT NULL,             -- JSON of the PaperBrief
        created_at TEXT NOT NULL,
        PRIMARY KEY (digest_date, paper_id, language, writer)
    );
    CREATE TABLE digests (
        digest_date TEXT NOT NULL,
        language TEXT NOT NULL,
        listing_day TEXT NOT NULL,
        writer TEXT NOT NULL,
        title TEXT NOT NULL,
        markdown TEXT NOT NULL,
        html TEXT NOT NULL,
        body TEXT NOT NULL,             -- JSON of the Digest
        created_at TEXT NOT NULL,
        PRIMARY KEY (digest_date, language)
    );
    CREATE TABLE outputs (
        digest_date TEXT NOT NULL,
        kind TEXT NOT NULL,
        path TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        written_at TEXT NOT NULL,
        PRIMARY KEY (digest_date, kind, path)
    );
    CREATE TABLE documents (
        paper_id TEXT PRIMARY KEY,
        version INTEGER,
        source TEXT NOT NULL,
        body TEXT NOT NULL,             -- JSON of the Document
        attempts TEXT NOT NULL,         -- JSON list: which sources failed and why
        fetched_at TEXT NOT NULL
    );
    CREATE TABLE llm_calls (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id INTEGER,
        day TEXT,
        role TEXT NOT NULL,
        model TEXT NOT NULL,
        cache_key TEXT,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        cost REAL NOT NULL DEFAULT 0,
        latency_ms INTEGER NOT NULL DEFAULT 0,
        outcome TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE llm_cache (
        key TEXT PRIMARY KEY,
        model TEXT NOT NULL,
        response TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
    );
    CREATE TABLE feedback (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        paper_id TEXT NOT NULL,
        signal TEXT NOT NULL CHECK (signal IN
            ('picked', 'up', 'down', 'save', 'hide', 'read', 'shown')),
        note TEXT,
        source TEXT NOT NULL DEFAULT 'cli',
        created_at TEXT NOT NULL
    );
    CREATE INDEX feedback_paper ON feedback(paper_id);
    CREATE TABLE deliveries (
        digest_date TEXT NOT NULL,
        channel TEXT NOT NULL,
        status TEXT NOT NULL,           -- 'sent' | 'failed'
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        sent_at TEXT,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (digest_date, channel)
    );
    """,
]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class FeedbackEvent:
    paper_id: str
    signal: str
    note: str | None
    source: str
    created_at: str


@dataclass(frozen=True)
class LLMCall:
    role: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cost: float
    latency_ms: int
    outcome: str
    cache_key: str | None = None
    day: str | None = None
    run_id: int | None = None


class Store:
    """A connection to the paperbrief database. Create with :func:`open_store`."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._db = connection
        self.path = path
        # LLM deep reads finish on worker threads while the main thread stores briefs:
        # one connection, so write transactions must not interleave.
        self._write_lock = threading.RLock()

    # ----------------------------------------------------------------- plumbing
    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        try:
            with self._write_lock, self._db:
                yield self._db
        except sqlite3.OperationalError as error:
            raise StoreError(
                f"database {self.path} failed: {error}",
                "close other paperbrief processes using it, or point PAPERBRIEF_HOME elsewhere",
            ) from error

    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    # ------------------------------------------------------------------ papers
    def save_listing(self, listing: Listing) -> None:
        """Store the papers of a listing day and how each was listed (idempotent)."""
        now = _now()
        day = listing.day.isoformat()
        with self._tx() as db:
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
                        now,
                        now,
                    ),
                )
                for category, kind in paper.listings.items():
                    db.execute(
                        "INSERT OR REPLACE INTO listings (day, category, paper_id, kind)"
                        " VALUES (?,?,?,?)",
                        (day, category, paper.id, kind),
                    )
            db.execute(
                "INSERT OR REPLACE INTO listing_days (day, source, paper_count, notes, fetched_at)"
                " VALUES (?,?,?,?,?)",
                (day, listing.source, len(listing.papers), json.dumps(list(listing.notes)), now),
            )

    def _paper_from_row(self, row: sqlite3.Row, listings: dict[str, str]) -> Paper:
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
            listings=listings,  # type: ignore[arg-type]
        )

    def load_listing(self, day: date) -> Listing | None:
        """The stored listing of a day, or None if that day was never fetched."""
        key = day.isoformat()
        meta = self._db.execute("SELECT * FROM listing_days WHERE day=?", (key,)).fetchone()
        if meta is None:
            return None
        kinds: dict[str, dict[str, str]] = {}
        for row in self._db.execute(
            "SELECT paper_id, category, kind FROM listings WHERE day=? ORDER BY rowid", (key,)
        ):
            kinds.setdefault(row["paper_id"], {})[row["category"]] = row["kind"]
        papers = []
        for paper_id, listed in kinds.items():
            row = self._db.execute("SELECT * FROM papers WHERE id=?", (paper_id,)).fetchone()
            papers.append(self._paper_from_row(row, listed))
        return Listing(
            day=day,
            papers=tuple(papers),
            source=meta["source"],
            notes=tuple(json.loads(meta["notes"])),
        )

    def get_paper(self, paper_id: str) -> Paper | None:
        row = self._db.execute("SELECT * FROM papers WHERE id=?", (paper_id,)).fetchone()
        if row is None:
            return None
        listed = {
            r["category"]: r["kind"]
            for r in self._db.execute(
                "SELECT category, kind FROM listings WHERE paper_id=?", (paper_id,)
            )
        }
        return self._paper_from_row(row, listed)

    def get_papers(self, paper_ids: Iterable[str]) -> dict[str, Paper]:
        """Stored papers by id, in bulk (unknown ids are absent; ``listings`` left empty)."""
        ids = list(dict.fromkeys(paper_ids))
        found: dict[str, Paper] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self._db.execute(f"SELECT * FROM papers WHERE id IN ({marks})", chunk):
                found[row["id"]] = self._paper_from_row(row, {})
        return found

    def listing_days(self) -> list[date]:
        rows = self._db.execute("SELECT day FROM listing_days ORDER BY day").fetchall()
        return [date.fromisoformat(r["day"]) for r in rows]

    def search_papers(self, query: str, limit: int = 50) -> list[Paper]:
        """Case-insensitive substring search over title and abstract, newest first."""
        pattern = f"%{query}%"
        rows = self._db.execute(
            "SELECT * FROM papers WHERE title LIKE ? OR abstract LIKE ? OR id = ?"
            " ORDER BY announced DESC, id DESC LIMIT ?",
            (pattern, pattern, query, limit),
        ).fetchall()
        return [self._paper_from_row(row, {}) for row in rows]

    # -------------------------------------------------------------- embeddings
    def get_embeddings(self, model: str, text_hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """Cached embeddings for the given text hashes (missing ones are absent)."""
        hashes = list(text_hashes)
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(hashes), 500):
            chunk = hashes[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self._db.execute(
                f"SELECT text_hash, dim, vector FROM embeddings WHERE model=?"
                f" AND text_hash IN ({marks})",
                (model, *chunk),
            ):
                found[row["text_hash"]] = np.frombuffer(row["vector"], dtype=np.float32)
        return found

    def put_embeddings(self, model: str, vectors: dict[str, np.ndarray]) -> None:
        with self._tx() as db:
            db.executemany(
                "INSERT OR REPLACE INTO embeddings (model, text_hash, dim, vector)"
                " VALUES (?,?,?,?)",
                [
                    (model, key, int(vec.shape[0]), np.asarray(vec, np.float32).tobytes())
                    for key, vec in vectors.items()
                ],
            )

    # ------------------------------------------------------------------ scores
    def save_scores(self, day: date, fingerprint: str, ranking: Iterable[ScoredPaper]) -> None:
        with self._tx() as db:
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

    def load_scores(self, day: date, fingerprint: str | None = None) -> list[ScoredPaper]:
        """The stored ranking of a day (latest profile fingerprint when none is given)."""
        key = day.isoformat()
        if fingerprint is None:
            row = self._db.execute(
                "SELECT profile_fingerprint FROM scores WHERE day=? ORDER BY rowid DESC LIMIT 1",
                (key,),
            ).fetchone()
            if row is None:
                return []
            fingerprint = row[0]
        listing = self.load_listing(day)
        papers = {p.id: p for p in listing.papers} if listing else {}
        result = []
        for row in self._db.execute(
            "SELECT * FROM scores WHERE day=? AND profile_fingerprint=? ORDER BY rank",
            (key, fingerprint),
        ):
            paper = papers.get(row["paper_id"]) or self.get_paper(row["paper_id"])
            if paper is None:
                continue
            result.append(
                ScoredPaper(
                    paper=paper,
                    score=row["score"],
                    stars=row["stars"],
                    line=row["line"],
                    matched_terms=tuple(json.loads(row["matched_terms"])),
                    components=json.loads(row["components"]),
                    reason=row["reason"],
                    rank=row["rank"],
                )
            )
        return result

    # ------------------------------------------------------------------- picks
    def save_picks(self, digest_date: date, listing_day: date, picks: list[ScoredPaper]) -> None:
        now = _now()
        with self._tx() as db:
            db.execute("DELETE FROM picks WHERE digest_date=?", (digest_date.isoformat(),))
            db.executemany(
                "INSERT INTO picks (digest_date, listing_day, paper_id, position, stars,"
                " created_at) VALUES (?,?,?,?,?,?)",
                [
                    (digest_date.isoformat(), listing_day.isoformat(), p.paper.id, i, p.stars, now)
                    for i, p in enumerate(picks, start=1)
                ],
            )

    def load_pick_ids(self, digest_date: date) -> list[str]:
        rows = self._db.execute(
            "SELECT paper_id FROM picks WHERE digest_date=? ORDER BY position",
            (digest_date.isoformat(),),
        ).fetchall()
        return [r[0] for r in rows]

    # ------------------------------------------------------------------ briefs
    def save_brief(
        self, digest_date: date, paper_id: str, language: str, writer: str, body: str
    ) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO briefs (digest_date, paper_id, language, writer, body,"
                " created_at) VALUES (?,?,?,?,?,?)",
                (digest_date.isoformat(), paper_id, language, writer, body, _now()),
            )

    def load_brief(
        self, digest_date: date, paper_id: str, language: str, writer: str
    ) -> str | None:
        row = self._db.execute(
            "SELECT body FROM briefs WHERE digest_date=? AND paper_id=? AND language=?"
            " AND writer=?",
            (digest_date.isoformat(), paper_id, language, writer),
        ).fetchone()
        return row[0] if row else None

    def save_digest(
        self,
        digest_date: date,
        language: str,
        listing_day: date,
        writer: str,
        title: str,
        markdown: str,
        html: str,
        body: str,
    ) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO digests (digest_date, language, listing_day, writer,"
                " title, markdown, html, body, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    digest_date.isoformat(),
                    language,
                    listing_day.isoformat(),
                    writer,
                    title,
                    markdown,
                    html,
                    body,
                    _now(),
                ),
            )

    def load_digest(self, digest_date: date, language: str | None = None) -> sqlite3.Row | None:
        """The stored digest row (markdown, html, body JSON …) or None."""
        if language is None:
            return self._db.execute(
                "SELECT * FROM digests WHERE digest_date=? ORDER BY created_at DESC LIMIT 1",
                (digest_date.isoformat(),),
            ).fetchone()
        return self._db.execute(
            "SELECT * FROM digests WHERE digest_date=? AND language=?",
            (digest_date.isoformat(), language),
        ).fetchone()

    def digest_dates_for_listing(self, listing_day: date, language: str) -> list[date]:
        """Digest dates already published from ``listing_day`` in ``language``."""
        rows = self._db.execute(
            "SELECT digest_date FROM digests WHERE listing_day=? AND language=?"
            " ORDER BY digest_date",
            (listing_day.isoformat(), language),
        ).fetchall()
        return [date.fromisoformat(row[0]) for row in rows]

    def list_digests(self, limit: int = 365) -> list[sqlite3.Row]:
        return self._db.execute(
            "SELECT digest_date, language, listing_day, writer, title, created_at FROM digests"
            " ORDER BY digest_date DESC LIMIT ?",
            (limit,),
        ).fetchall()

    # ----------------------------------------------------------------- outputs
    def record_output(self, digest_date: date, kind: str, path: str, sha256: str) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO outputs (digest_date, kind, path, sha256, written_at)"
                " VALUES (?,?,?,?,?)",
                (digest_date.isoformat(), kind, path, sha256, _now()),
            )

    # -------------------------------------------------------------------- runs
    def start_run(
        self,
        command: str,
        listing_day: date | None = None,
        digest_date: date | None = None,
        fingerprint: str | None = None,
    ) -> int:
        with self._tx() as db:
            cursor = db.execute(
                "INSERT INTO runs (command, listing_day, digest_date, profile_fingerprint,"
                " started_at) VALUES (?,?,?,?,?)",
                (
                    command,
                    listing_day.isoformat() if listing_day else None,
                    digest_date.isoformat() if digest_date else None,
                    fingerprint,
                    _now(),
                ),
            )
            return int(cursor.lastrowid or 0)

    def finish_run(self, run_id: int, status: str, detail: str = "") -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE runs SET finished_at=?, status=?, detail=? WHERE id=?",
                (_now(), status, detail, run_id),
            )

    # --------------------------------------------------------------- documents
    def save_document(
        self, paper_id: str, version: int | None, source: str, body: str, attempts: list[object]
    ) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO documents (paper_id, version, source, body, attempts,"
                " fetched_at) VALUES (?,?,?,?,?,?)",
                (paper_id, version, source, body, json.dumps(attempts, ensure_ascii=False), _now()),
            )

    def load_document(self, paper_id: str) -> sqlite3.Row | None:
        return self._db.execute("SELECT * FROM documents WHERE paper_id=?", (paper_id,)).fetchone()

    # --------------------------------------------------------------------- LLM
    def record_llm_call(self, call: LLMCall) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO llm_calls (run_id, day, role, model, cache_key, prompt_tokens,"
                " completion_tokens, cost, latency_ms, outcome, created_at)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    call.run_id,
                    call.day,
                    call.role,
                    call.model,
                    call.cache_key,
                    call.prompt_tokens,
                    call.completion_tokens,
                    call.cost,
                    call.latency_ms,
                    call.outcome,
                    _now(),
                ),
            )

    def llm_calls(self, day: str | None = None) -> list[sqlite3.Row]:
        if day is None:
            return self._db.execute("SELECT * FROM llm_calls ORDER BY id").fetchall()
        return self._db.execute(
            "SELECT * FROM llm_calls WHERE day=? ORDER BY id", (day,)
        ).fetchall()

    def llm_cache_get(self, key: str) -> sqlite3.Row | None:
        return self._db.execute("SELECT * FROM llm_cache WHERE key=?", (key,)).fetchone()

    def llm_cache_put(
        self, key: str, model: str, response: str, prompt_tokens: int, completion_tokens: int
    ) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO llm_cache (key, model, response, prompt_tokens,"
                " completion_tokens, created_at) VALUES (?,?,?,?,?,?)",
                (key, model, response, prompt_tokens, completion_tokens, _now()),
            )

    # ---------------------------------------------------------------- feedback
    def add_feedback(
        self,
        paper_id: str,
        signal: str,
        note: str | None = None,
        source: str = "cli",
        created_at: str | None = None,
    ) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO feedback (paper_id, signal, note, source, created_at)"
                " VALUES (?,?,?,?,?)",
                (paper_id, signal, note, source, created_at or _now()),
            )

    def feedback_events(self, before: str | None = None) -> list[FeedbackEvent]:
        """All feedback, oldest first; ``before`` (ISO timestamp) keeps only earlier events."""
        if before is None:
            rows = self._db.execute("SELECT * FROM feedback ORDER BY created_at, id").fetchall()
        else:
            rows = self._db.execute(
                "SELECT * FROM feedback WHERE created_at < ? ORDER BY created_at, id", (before,)
            ).fetchall()
        return [
            FeedbackEvent(r["paper_id"], r["signal"], r["note"], r["source"], r["created_at"])
            for r in rows
        ]

    def feedback_for(self, paper_id: str) -> list[FeedbackEvent]:
        rows = self._db.execute(
            "SELECT * FROM feedback WHERE paper_id=? ORDER BY created_at, id", (paper_id,)
        ).fetchall()
        return [
            FeedbackEvent(r["paper_id"], r["signal"], r["note"], r["source"], r["created_at"])
            for r in rows
        ]

    # -------------------------------------------------------------- deliveries
    def delivery_status(self, digest_date: date, channel: str) -> sqlite3.Row | None:
        return self._db.execute(
            "SELECT * FROM deliveries WHERE digest_date=? AND channel=?",
            (digest_date.isoformat(), channel),
        ).fetchone()

    def record_delivery(
        self, digest_date: date, channel: str, ok: bool, error: str | None = None
    ) -> None:
        now = _now()
        with self._tx() as db:
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
                    now if ok else None,
                    now,
                ),
            )

    def deliveries(self, digest_date: date | None = None) -> list[sqlite3.Row]:
        if digest_date is None:
            return self._db.execute("SELECT * FROM deliveries ORDER BY digest_date").fetchall()
        return self._db.execute(
            "SELECT * FROM deliveries WHERE digest_date=?", (digest_date.isoformat(),)
        ).fetchall()


def _migrate(connection: sqlite3.Connection, path: Path) -> None:
    current = int(connection.execute("PRAGMA user_version").fetchone()[0])
    if current > len(MIGRATIONS):
        raise StoreError(
            f"database {path} has schema version {current}, newer than this paperbrief knows"
            f" ({len(MIGRATIONS)})",
            "upgrade paperbrief, or point PAPERBRIEF_HOME at a fresh folder",
        )
    for number in range(current, len(MIGRATIONS)):
        with connection:
            connection.executescript(
                "BEGIN;" + MIGRATIONS[number] + f";PRAGMA user_version={number + 1};COMMIT;"
            )


def open_store(path: Path) -> Store:
    """Open (creating if needed) the database at ``path`` and apply pending migrations."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        connection = sqlite3.connect(path, timeout=30, check_same_thread=False)
        connection.row_factory = sqlite3.Row
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA foreign_keys=ON")
        _migrate(connection, path)
    except sqlite3.DatabaseError as error:
        raise StoreError(
            f"cannot open database {path}: {error}",
            "check the file is a paperbrief database, or point PAPERBRIEF_HOME elsewhere",
        ) from error
    return Store(connection, path)
