"""The schema: named migrations, applied in order on connect, one transaction each.

Never edit a migration that has shipped; add the next one at the end of ``MIGRATIONS``.
``PRAGMA user_version`` counts the migrations applied, so a database made by a newer
paperbrief (a higher count than this one knows) is refused instead of misread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from paperbrief.errors import StoreError
from paperbrief.store.search import create_indexes, reindex_papers

Migration = Callable[[sqlite3.Connection], None]


def run_script(db: sqlite3.Connection, script: str) -> None:
    """Execute several statements inside the caller's transaction.

    (``executescript`` would commit first, so a failed migration could leave half a schema.)
    """
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            db.execute(statement)
            statement = ""
    if statement.strip():
        db.execute(statement)


def m001_initial_schema(db: sqlite3.Connection) -> None:
    """Papers, listings, the daily record (scores, picks, briefs, digests, outputs, runs),
    caches (embeddings, documents, LLM calls and answers), feedback and deliveries."""
    run_script(
        db,
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
    )


def m002_picks_by_paper(db: sqlite3.Connection) -> None:
    """Find the digests a paper was picked in without scanning every digest."""
    db.execute("CREATE INDEX picks_paper ON picks(paper_id)")


def m003_judge_verdicts(db: sqlite3.Connection) -> None:
    """Every LLM judge verdict, per listing day and judge model (replayed by the eval)."""
    run_script(
        db,
        """
        CREATE TABLE judge_verdicts (
            day TEXT NOT NULL,              -- listing day
            model TEXT NOT NULL,
            paper_id TEXT NOT NULL,
            stars INTEGER NOT NULL,
            line TEXT,                      -- '' = no research line; NULL = none valid named
            reason TEXT NOT NULL,
            must_read INTEGER NOT NULL DEFAULT 0,
            instructions INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            PRIMARY KEY (day, model, paper_id)
        );
        CREATE INDEX picks_listing_day ON picks(listing_day);
        """,
    )


def m004_records_keyed_by_profile(db: sqlite3.Connection) -> None:
    """Picks, briefs, digests and output records carry the profile they were made for, so
    several profiles (readers) share one data home without taking each other's digests.

    Rows made before this migration get profile '' and are adopted by the first profile
    that runs afterwards (``Store.adopt_unnamed``): an older home had one reader.
    """
    run_script(
        db,
        """
        CREATE TABLE picks_by_profile (
            profile TEXT NOT NULL DEFAULT '',
            digest_date TEXT NOT NULL,
            listing_day TEXT NOT NULL,
            paper_id TEXT NOT NULL,
            position INTEGER NOT NULL,
            stars INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (profile, digest_date, paper_id)
        );
        INSERT INTO picks_by_profile (digest_date, listing_day, paper_id, position, stars,
            created_at)
            SELECT digest_date, listing_day, paper_id, position, stars, created_at FROM picks;
        DROP TABLE picks;
        ALTER TABLE picks_by_profile RENAME TO picks;
        CREATE INDEX picks_paper ON picks(paper_id);
        CREATE INDEX picks_listing_day ON picks(listing_day);
        CREATE TABLE briefs_by_profile (
            profile TEXT NOT NULL DEFAULT '',
            digest_date TEXT NOT NULL,
            paper_id TEXT NOT NULL,
            language TEXT NOT NULL,
            writer TEXT NOT NULL,
            body TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (profile, digest_date, paper_id, language, writer)
        );
        INSERT INTO briefs_by_profile (digest_date, paper_id, language, writer, body,
            created_at)
            SELECT digest_date, paper_id, language, writer, body, created_at FROM briefs;
        DROP TABLE briefs;
        ALTER TABLE briefs_by_profile RENAME TO briefs;
        CREATE TABLE digests_by_profile (
            profile TEXT NOT NULL DEFAULT '',
            digest_date TEXT NOT NULL,
            language TEXT NOT NULL,
            listing_day TEXT NOT NULL,
            writer TEXT NOT NULL,
            title TEXT NOT NULL,
            markdown TEXT NOT NULL,
            html TEXT NOT NULL,
            body TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (profile, digest_date, language)
        );
        INSERT INTO digests_by_profile (digest_date, language, listing_day, writer, title,
            markdown, html, body, created_at)
            SELECT digest_date, language, listing_day, writer, title, markdown, html, body,
            created_at FROM digests;
        DROP TABLE digests;
        ALTER TABLE digests_by_profile RENAME TO digests;
        ALTER TABLE outputs ADD COLUMN profile TEXT NOT NULL DEFAULT '';
        ALTER TABLE runs ADD COLUMN profile TEXT;
        """,
    )


def m005_delivery_journal(db: sqlite3.Connection) -> None:
    """Deliveries become a journal written before sending: a row per channel (and per
    e-mail recipient) goes to 'intent' before the send and to sent / failed / unknown
    after it, with the idempotency key (Message-ID, Idempotency-Key) every attempt reuses.
    An 'intent' found by a later run means the sender died mid-send."""
    run_script(
        db,
        """
        CREATE TABLE delivery_journal (
            profile TEXT NOT NULL DEFAULT '',
            digest_date TEXT NOT NULL,
            channel TEXT NOT NULL,
            target TEXT NOT NULL DEFAULT '',  -- an e-mail recipient; '' for the channel
            status TEXT NOT NULL CHECK (status IN ('intent', 'sent', 'failed', 'unknown')),
            attempts INTEGER NOT NULL DEFAULT 0,
            key TEXT NOT NULL DEFAULT '',     -- sent with every attempt, for deduplication
            last_error TEXT,
            detail TEXT NOT NULL DEFAULT '',
            sent_at TEXT,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (profile, digest_date, channel, target)
        );
        INSERT INTO delivery_journal (digest_date, channel, status, attempts, last_error,
            sent_at, updated_at)
            SELECT digest_date, channel, status, attempts, last_error, sent_at, updated_at
            FROM deliveries;
        DROP TABLE deliveries;
        ALTER TABLE delivery_journal RENAME TO deliveries;
        """,
    )


def m006_full_text_search(db: sqlite3.Connection) -> None:
    """FTS5 indexes over papers (title, abstract) and digests (title, Markdown, per
    profile), Chinese too; filled from the rows already stored (see ``store/search.py``)."""
    create_indexes(db)


def m007_runs_know_their_process(db: sqlite3.Connection) -> None:
    """Each run records its process (pid, host), so a ``running`` record whose process died
    without finishing (kill -9, out of memory, power loss) is recognised as dead; feedback
    records the profile it was given for ('' = every profile of the home, as before) and the
    title its source knew (a library import names papers the store has not seen).
    A store of issue 22's branch before its merge has feedback.profile already (m009)."""
    profile = ""
    if "profile" not in _columns(db, "feedback"):
        profile = """
        ALTER TABLE feedback ADD COLUMN profile TEXT NOT NULL DEFAULT '';
        CREATE INDEX feedback_profile ON feedback(profile);"""
    run_script(
        db,
        f"""
        ALTER TABLE runs ADD COLUMN pid INTEGER;
        ALTER TABLE runs ADD COLUMN host TEXT;
        ALTER TABLE feedback ADD COLUMN title TEXT NOT NULL DEFAULT '';{profile}
        """,
    )


def m008_judge_relevance_and_screens(db: sqlite3.Connection) -> None:
    """The judge's fine relevance (0-100) beside its stars, and its first-screen answers.

    Before it merged with main, issue 19's branch numbered this migration 7: a store it
    made is at version 7 with these tables but without main's m007. Such a store gets main's
    m007 here instead, so it ends with both."""
    if _columns(db, "judge_verdicts") >= {"relevance"}:
        if not _columns(db, "runs") >= {"pid"}:
            m007_runs_know_their_process(db)
        return
    run_script(
        db,
        """
        ALTER TABLE judge_verdicts ADD COLUMN relevance INTEGER;  -- NULL: recorded without one
        CREATE TABLE judge_screens (
            day TEXT NOT NULL,              -- listing day
            model TEXT NOT NULL,
            paper_id TEXT NOT NULL,
            relevance INTEGER NOT NULL,     -- 0-100, from title and gist
            created_at TEXT NOT NULL,
            PRIMARY KEY (day, model, paper_id)
        );
        CREATE INDEX judge_verdicts_paper ON judge_verdicts(paper_id);
        CREATE INDEX judge_screens_paper ON judge_screens(paper_id);
        CREATE INDEX scores_paper ON scores(paper_id);
        """,
    )


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _table_exists(db: sqlite3.Connection, table: str) -> bool:
    query = "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?"
    return db.execute(query, (table,)).fetchone() is not None


def m009_readers_and_paper_readings(db: sqlite3.Connection) -> None:
    """Several readers in one home (issue 22): LLM calls carry the reader they were made for
    ('' = made without naming one; feedback's reader is m007's ``feedback.profile``), and the
    reader-independent reading of a paper is kept once per paper version, writer model and
    language, whoever's digest it was first written for.

    Before it merged with main, issue 22's branch numbered this migration 7 and m010 8: a
    store it made is at version 8 with these tables but without main's m007 and m008. Such
    a store gets those here instead, so it ends with all four."""
    if _table_exists(db, "paper_readings"):
        if not _columns(db, "runs") >= {"pid"}:
            m007_runs_know_their_process(db)
        if not _columns(db, "judge_verdicts") >= {"relevance"}:
            m008_judge_relevance_and_screens(db)
        return
    run_script(
        db,
        """
        ALTER TABLE llm_calls ADD COLUMN profile TEXT NOT NULL DEFAULT '';
        CREATE INDEX llm_calls_day_profile ON llm_calls(day, profile);
        CREATE INDEX picks_profile ON picks(profile, listing_day);
        CREATE TABLE paper_readings (
            paper_id TEXT NOT NULL,
            version INTEGER NOT NULL DEFAULT 0,  -- 0 = the version was not known
            model TEXT NOT NULL,
            language TEXT NOT NULL,
            basis TEXT NOT NULL,     -- hash of what the reading was written from
            body TEXT NOT NULL,
            reader TEXT NOT NULL DEFAULT '',   -- whose run paid for it
            created_at TEXT NOT NULL,
            PRIMARY KEY (paper_id, version, model, language)
        );
        """,
    )


def m010_paper_index_by_rowid(db: sqlite3.Connection) -> None:
    """The papers' full-text rows keyed by each paper's rowid, so saving a paper replaces
    its row without scanning the index (``store.search.index_paper``)."""
    reindex_papers(db)


def _home_readers(db: sqlite3.Connection) -> set[str]:
    """The readers a store's records name (runs, picks, digests, feedback, LLM calls)."""
    found: set[str] = set()
    for table in ("runs", "picks", "digests", "feedback", "llm_calls"):
        if "profile" in _columns(db, table):
            rows = db.execute(f"SELECT DISTINCT profile FROM {table} WHERE profile != ''")
            found.update(row[0] for row in rows if row[0])
    return found


# The reader of a verdict or screen recorded before m011: the one reader whose run of that
# listing day was under way when the row was written; '' when no run or several readers' runs
# were (a lab's readers run one after another, so only a shared boundary second is unclear).
_READER_OF_ROW = """
    COALESCE((SELECT CASE WHEN COUNT(DISTINCT r.profile) = 1 THEN MAX(r.profile) END
              FROM runs r
              WHERE r.listing_day = {table}.day AND r.profile IS NOT NULL AND r.profile != ''
                AND r.started_at <= {table}.created_at
                AND (r.finished_at IS NULL OR r.finished_at >= {table}.created_at)), '')
"""


def m011_judge_records_per_reader(db: sqlite3.Connection) -> None:
    """Judge verdicts and screens keyed by the reader they were judged for (issue 22): the
    judge reads each reader's profile, so two readers' verdicts on one paper differ, and
    each reader learns from their own (``store.verdicts``). The reader key is feedback's
    (``Profile.key``); '' = judged for no reader the store can name.

    Rows already kept go to their reader: in a home whose records name one reader, to that
    reader; in a lab's home, to the reader whose run of that listing day was under way when
    the row was written (``_READER_OF_ROW``), else ''. Rows of '' are a reader's only while
    no other reader has rows (``store.judging._scope``: a one-reader home from before readers
    were recorded), since otherwise they may be another reader's."""
    readers = _home_readers(db)
    columns = {
        "judge_verdicts": "day, model, paper_id, stars, line, reason, must_read, instructions,"
        " relevance, created_at",
        "judge_screens": "day, model, paper_id, relevance, created_at",
    }
    run_script(
        db,
        """
        CREATE TABLE judge_verdicts_by_reader (
            reader TEXT NOT NULL DEFAULT '',  -- Profile.key; '' = no reader named
            day TEXT NOT NULL,                -- listing day
            model TEXT NOT NULL,
            paper_id TEXT NOT NULL,
            stars INTEGER NOT NULL,
            line TEXT,                        -- '' = no research line; NULL = none valid named
            reason TEXT NOT NULL,
            must_read INTEGER NOT NULL DEFAULT 0,
            instructions INTEGER NOT NULL DEFAULT 0,
            relevance INTEGER,                -- NULL: recorded without one
            created_at TEXT NOT NULL,
            PRIMARY KEY (reader, day, model, paper_id)
        );
        CREATE TABLE judge_screens_by_reader (
            reader TEXT NOT NULL DEFAULT '',
            day TEXT NOT NULL,
            model TEXT NOT NULL,
            paper_id TEXT NOT NULL,
            relevance INTEGER NOT NULL,       -- 0-100, from title and gist
            created_at TEXT NOT NULL,
            PRIMARY KEY (reader, day, model, paper_id)
        );
        """,
    )
    for table, names in columns.items():
        reader = "?" if len(readers) == 1 else _READER_OF_ROW.format(table=table)
        db.execute(
            f"INSERT INTO {table}_by_reader (reader, {names})"
            f" SELECT {reader}, {names} FROM {table}",
            tuple(readers) if len(readers) == 1 else (),
        )
        db.execute(f"DROP TABLE {table}")
        db.execute(f"ALTER TABLE {table}_by_reader RENAME TO {table}")
        db.execute(f"CREATE INDEX {table}_paper ON {table}(paper_id, reader)")


def m012_listing_days_know_their_categories(db: sqlite3.Connection) -> None:
    """The categories a listing day was fetched for (JSON list; NULL: unknown, a day stored
    before), so a category with no paper that day does not make every rerun fetch again."""
    db.execute("ALTER TABLE listing_days ADD COLUMN categories TEXT")


MIGRATIONS: tuple[Migration, ...] = (
    m001_initial_schema,
    m002_picks_by_paper,
    m003_judge_verdicts,
    m004_records_keyed_by_profile,
    m005_delivery_journal,
    m006_full_text_search,
    m007_runs_know_their_process,
    m008_judge_relevance_and_screens,
    m009_readers_and_paper_readings,
    m010_paper_index_by_rowid,
    m011_judge_records_per_reader,
    m012_listing_days_know_their_categories,
)


def migrate(connection: sqlite3.Connection, path: Path) -> None:
    """Apply the migrations this database lacks (each in its own transaction)."""
    current = int(connection.execute("PRAGMA user_version").fetchone()[0])
    if current > len(MIGRATIONS):
        raise StoreError(
            f"database {path} has schema version {current}, newer than this paperbrief knows"
            f" ({len(MIGRATIONS)})",
            "upgrade paperbrief, or point PAPERBRIEF_HOME at a fresh folder",
        )
    for number in range(current, len(MIGRATIONS)):
        connection.execute("BEGIN")
        try:
            MIGRATIONS[number](connection)
            connection.execute(f"PRAGMA user_version={number + 1}")
        except BaseException:
            connection.rollback()
            raise
        connection.commit()
