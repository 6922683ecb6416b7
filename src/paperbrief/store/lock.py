"""The run lock: one run (or send) per data home, profile and digest day at a time.

Two runs of the same day once both delivered and both paid every LLM call. The lock is an
``flock`` on a file in the data home's ``locks/`` folder: the kernel drops it when the
holder exits, however it exits (kill -9 included), so a lock is never left stale. The file
says who holds it (pid, command, since when), for the message the second run prints.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

from paperbrief.errors import RunInProgress, StoreError
from paperbrief.files import private_folder
from paperbrief.store.database import now


def _tag(profile: str) -> str:
    return hashlib.sha256(profile.encode("utf-8")).hexdigest()[:12]  # any text: hashed


def lock_path(home: Path, day: date, profile: str) -> Path:
    """The lock file of one profile's digest day."""
    return home / "locks" / f"run-{day.isoformat()}-{_tag(profile)}.lock"


def _open_lock(path: Path) -> int:
    """The lock file's descriptor (created, private, with its folder, when missing)."""
    try:
        private_folder(path.parent)
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as error:
        raise StoreError(
            f"cannot create the lock {path}: {error.strerror or error}",
            "point PAPERBRIEF_HOME at a folder you can write to",
        ) from error


@contextmanager
def profile_lock(home: Path, profile: str, what: str) -> Iterator[None]:
    """Hold ``what``'s lock of ``profile`` in the block, waiting for it (its holders keep it
    for a moment: choosing and saving a day's picks)."""
    handle = _open_lock(home / "locks" / f"{what}-{_tag(profile)}.lock")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # closing releases the lock


def lock_held(home: Path, day: date, profile: str) -> bool:
    """Whether some process holds the lock of ``day`` for ``profile`` right now."""
    path = lock_path(home, day, profile)
    try:
        handle = os.open(path, os.O_RDONLY)
    except OSError:
        return False  # never made: nobody holds it
    try:
        fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(handle)  # closing drops a lock this check took
    return False


@contextmanager
def run_lock(home: Path, day: date, profile: str, command: str) -> Iterator[None]:
    """Hold the lock of ``day`` for ``profile`` in the block, or raise ``RunInProgress``."""
    handle = _open_lock(lock_path(home, day, profile))
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(handle, 400, 0).decode("utf-8", "replace").strip() or "unknown"
            raise RunInProgress(
                f"another paperbrief {command} for {day.isoformat()} ({profile}) is in progress"
                f" ({holder}); this one did nothing",
                "wait for it to finish; a rerun afterwards reuses what it did and sends"
                " nothing twice",
            ) from None
        os.ftruncate(handle, 0)
        os.pwrite(handle, f"pid {os.getpid()}, {command}, since {now()}".encode(), 0)
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                os.ftruncate(handle, 0)
            fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        os.close(handle)
