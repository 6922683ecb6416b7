"""The one SQLite connection of a store and the lock that makes it safe across threads.

LLM deep reads finish on worker threads while the main thread stores briefs, and the web
UI may read while a run writes: every read and every write transaction goes through
``Database.read`` / ``Database.write``, which hold one re-entrant lock, so statements of
different threads never interleave on the shared connection. SQLite errors leave here as
``StoreError`` with a hint.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from paperbrief.errors import StoreError


def now() -> str:
    """The store's timestamps: ISO 8601 in UTC, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def now_minus(seconds: float) -> str:
    """``now()`` of ``seconds`` ago (the same format, so the two compare as text)."""
    return (datetime.now(UTC) - timedelta(seconds=seconds)).isoformat(timespec="seconds")


def read_only(path: Path) -> bool:
    """Whether the folder of ``path`` (or the file itself) cannot be written (a read-only
    mount or permissions), so SQLite can neither write nor keep its journal there."""
    folder = path.parent
    return not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK))


def read_only_hint(path: Path) -> str:
    """The fix for a command that must write to a read-only data home."""
    return (
        f"{path.parent} is read-only and this command writes there: point PAPERBRIEF_HOME"
        " at a writable folder (`search` and `feedback list` can read a read-only home)"
    )


def store_error(error: sqlite3.Error, path: Path) -> StoreError:
    """A one-line StoreError for a SQLite failure, with the fix for its kind."""
    text = str(error)
    if read_only(path) or "readonly" in text:
        hint = read_only_hint(path)
    elif isinstance(error, sqlite3.OperationalError) and "locked" in text:
        hint = "close other paperbrief processes using it, or point PAPERBRIEF_HOME elsewhere"
    elif "malformed" in text or "not a database" in text or "corrupt" in text:
        hint = (
            "the database file is damaged: restore it from a backup, or move it away and"
            " rerun (listings and full texts are fetched again)"
        )
    elif isinstance(error, sqlite3.OperationalError) and ("disk" in text or "full" in text):
        hint = "free some disk space and rerun (nothing stored so far is lost)"
    else:
        hint = "check the file is a paperbrief database, or point PAPERBRIEF_HOME elsewhere"
    return StoreError(f"database {path} failed: {text}", hint)


class Database:
    """A connection plus its lock; the only object that runs SQL."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self.path = path
        self._connection = connection
        self._lock = threading.RLock()

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """The connection for queries; fetch everything before the block ends."""
        with self._lock:
            try:
                yield self._connection
            except sqlite3.Error as error:
                raise store_error(error, self.path) from error

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One transaction: committed when the block ends, rolled back if it raises."""
        with self._lock:
            try:
                with self._connection:
                    yield self._connection
            except sqlite3.Error as error:
                raise store_error(error, self.path) from error
