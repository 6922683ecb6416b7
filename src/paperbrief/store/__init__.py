"""The store: the only package that touches SQLite.

``open_store(path)`` returns a :class:`Store`, a façade over one connection whose parts are
named by what they keep::

    store.listings     papers and listing days          (listings.py)
    store.rankings     each day's ranking               (daily.py)
    store.picks        each digest's picks              (daily.py)
    store.briefs       each pick's written brief        (daily.py)
    store.digests      published digests                (daily.py)
    store.outputs      files written                    (daily.py)
    store.runs         runs of the daily job            (daily.py)
    store.embeddings   embedding vectors                (caches.py)
    store.documents    parsed full texts                (caches.py)
    store.readings     papers' shared readings          (caches.py)
    store.llm          LLM calls, spend, answer cache   (caches.py)
    store.feedback     the reader's signals             (feedback.py)
    store.deliveries   the delivery journal             (deliveries.py)
    store.verdicts     the judge's verdicts, per reader (judging.py)

Reads return typed values (``models``, ``records``, ``Document``); writes take values;
serialisation happens inside through one codec (``codec.py``). The schema is a list of
named migrations applied on connect (``schema.py``). Every write commits at once, so a crash
loses nothing already done. The façade alone owns thread safety: every part runs its SQL
through the one ``Database`` (``database.py``) and its lock.

Several readers share one home (issue 22). The home's store sees everything;
``store.for_reader(key)`` is one reader's view over the same connection: its feedback, pick
history, rankings, judge verdicts and screens, and LLM calls (and so the daily budget) are
that reader's own (signals given without naming a reader count for every reader), and its
reads of digests, picks, briefs of a paper and the delivery journal return that reader's
rows only, whatever profile a caller names (the web UI serves each reader through their
view). Listings, embeddings, documents, papers' readings and the LLM answer cache are
shared, which is what makes a second reader cheap.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from paperbrief.errors import StoreError
from paperbrief.files import PRIVATE_FILE, make_private, private_folder, process_alive
from paperbrief.records import Run
from paperbrief.store.caches import Documents, Embeddings, LLMRecords, Readings
from paperbrief.store.daily import Briefs, Digests, Outputs, Picks, Rankings, Runs
from paperbrief.store.database import Database, now_minus, read_only, read_only_hint, store_error
from paperbrief.store.deliveries import Deliveries
from paperbrief.store.feedback import Feedback
from paperbrief.store.judging import Verdicts
from paperbrief.store.listings import Listings
from paperbrief.store.lock import lock_held, profile_lock, run_lock
from paperbrief.store.schema import MIGRATIONS, migrate
from paperbrief.store.search import adopt_unnamed_digests


@dataclass(frozen=True)
class ReaderHistory:
    """One reader's history in a home (``Store.history_of``)."""

    listings: Listings
    rankings: Rankings
    feedback: Feedback
    verdicts: Verdicts


class Store:
    """A connection to the paperbrief database. Create with :func:`open_store`."""

    def __init__(self, db: Database, path: Path, reader: str | None = None) -> None:
        self.path = path
        self.reader = reader  # None: the whole home; else one reader's view (for_reader)
        self._db = db
        self.listings = Listings(self._db)
        self.rankings = Rankings(self._db, self.listings, reader)
        self.picks = Picks(self._db, reader)
        self.briefs = Briefs(self._db)
        self.digests = Digests(self._db, self.picks, reader)
        self.outputs = Outputs(self._db)
        self.runs = Runs(self._db)
        self.embeddings = Embeddings(self._db)
        self.documents = Documents(self._db)
        self.readings = Readings(self._db, reader)
        self.llm = LLMRecords(self._db, reader)
        self.feedback = Feedback(self._db, reader)
        self.deliveries = Deliveries(self._db, reader)
        self.verdicts = Verdicts(self._db, reader)

    def history_of(self, key: str) -> ReaderHistory:
        """What ranking learns from for one reader (``rank.ReaderArchive``): the home's
        listings and rankings (a single run keeps its rankings under the home's
        fingerprints), with that reader's own feedback and the judge's verdicts and screens
        of that reader only. The judge read their profile, so what it said about a paper for
        a housemate sharing the home is no evidence about them. On a reader's view, its own."""
        key = self.reader if self.reader is not None else key
        return ReaderHistory(self.listings, self.rankings, self.feedback.of(key),
                             self.verdicts.of(key))  # fmt: skip

    def for_reader(self, key: str) -> Store:
        """One reader's view of this home over the same connection (module docstring).
        Close the home's store, not the view."""
        return Store(self._db, self.path, key)

    def close(self) -> None:
        if self.reader is None:
            self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def home(self) -> Path:
        """The data home: the folder holding the database (and the run locks)."""
        return self.path.parent

    def run_lock(
        self, day: date, profile: str, command: str = "run"
    ) -> AbstractContextManager[None]:
        """The lock of one profile's digest day (``store/lock.py``); raises RunInProgress."""
        return run_lock(self.home, day, profile, command)

    def picks_lock(self, profile: str) -> AbstractContextManager[None]:
        """Held while a run chooses and saves its picks: runs of two days at once then see
        each other's picks, so no paper is picked on both days (``store/lock.py``)."""
        return profile_lock(self.home, profile, "picks")

    def settle_dead_runs(self, grace_seconds: float = 60.0) -> list[Run]:
        """``running`` records of runs that are dead, marked ``dead`` and returned.

        A run of this machine is dead when its process is gone, or when its day's run lock
        is free although it started more than ``grace_seconds`` ago (its pid was reused by
        another program); a run recorded by another machine is left alone.
        """
        host, started_before = socket.gethostname(), now_minus(grace_seconds)

        def alive(run: Run) -> bool:
            if run.pid is None or run.host != host:
                return run.pid is not None  # a record from before pids, or another machine
            if not process_alive(run.pid):
                return False
            if run.digest_date is None or run.started_at > started_before:
                return True
            return lock_held(self.home, run.digest_date, run.profile or "")

        return self.runs.settle_dead(alive)

    def adopt_unnamed(self, profile: str) -> None:
        """Give rows made before profiles were kept (profile '') to ``profile``.

        A home of an older paperbrief had one reader; its first run afterwards takes them,
        so an already published day is not published again under the new key.
        """
        with self._db.write() as db:
            adopt_unnamed_digests(db, profile)
            for table in ("digests", "picks", "briefs", "outputs", "deliveries"):
                db.execute(f"UPDATE OR IGNORE {table} SET profile=? WHERE profile=''", (profile,))

    def schema_version(self) -> int:
        with self._db.read() as db:
            return int(db.execute("PRAGMA user_version").fetchone()[0])


def open_store(path: Path, *, reading: bool = False) -> Store:
    """Open (creating if needed) the database at ``path`` and apply pending migrations.

    With ``reading`` (a command that only reads: `search`, `feedback list`), a home that is
    read-only (a read-only mount, a backup) is opened read-only instead of failing: as an
    immutable file, since SQLite can keep no journal there, and without migrations.
    """
    if reading and path.is_file() and read_only(path):
        return _open_read_only(path)
    if path.parent.exists() and not path.parent.is_dir():
        raise StoreError(
            f"cannot create the database in {path.parent}: it is a file, not a folder",
            "point PAPERBRIEF_HOME at a folder (it is created when missing)",
        )
    try:
        # The store holds LLM answers, feedback and recipients: 0600 in a 0700 home when
        # paperbrief makes it (SQLite gives its -wal and -shm files the database's mode).
        private_folder(path.parent)
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE))
        for part in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            make_private(part)
    except OSError as error:
        raise StoreError(
            f"cannot create the data folder {path.parent}: {error.strerror or error}",
            read_only_hint(path)
            if read_only(path)
            else "point PAPERBRIEF_HOME at a writable folder",
        ) from error
    try:
        connection = sqlite3.connect(path, timeout=30, check_same_thread=False)
        connection.row_factory = sqlite3.Row
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA foreign_keys=ON")
        migrate(connection, path)
    except sqlite3.Error as error:
        raise store_error(error, path) from error
    return Store(Database(connection, path), path)


def _open_read_only(path: Path) -> Store:
    try:
        uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
        connection = sqlite3.connect(uri, uri=True, timeout=30, check_same_thread=False)
        connection.row_factory = sqlite3.Row
        version = int(connection.execute("PRAGMA user_version").fetchone()[0])
    except sqlite3.Error as error:
        raise store_error(error, path) from error
    if version != len(MIGRATIONS):
        connection.close()
        raise StoreError(
            f"database {path} is read-only and of schema {version}, not {len(MIGRATIONS)}",
            "open it once where it is writable (any paperbrief command upgrades it), or"
            " point PAPERBRIEF_HOME at a writable copy",
        )
    return Store(Database(connection, path), path)


@contextmanager
def temporary_store() -> Iterator[Store]:
    """A store in a fresh temporary folder, removed afterwards (e.g. for evaluation replays)."""
    with tempfile.TemporaryDirectory(prefix="paperbrief-") as folder:
        store = open_store(Path(folder) / "paperbrief.db")
        try:
            yield store
        finally:
            store.close()


__all__ = ["Store", "open_store", "temporary_store"]
