"""Several readers in one web UI (issue 22): each reader's token, and the owner's view.

`paperbrief serve --readers DIR` serves every reader of a lab's readers folder. The owner
holds the UI's token (``$PAPERBRIEF_WEB_TOKEN`` or the session's); each reader's token is
derived from it (``reader_token``: an HMAC of the reader's name, so nothing secret is stored
and the owner can print the links again). ``web.security.AccessMiddleware`` tells who a
request is from; a reader's pages are served through their ``Site``, whose store is that
reader's view (``Store.for_reader``: their digests, rankings, feedback, journal only) and
whose profile is their own file. The owner sees the whole home, and ``/owner``: every
reader's recent days (published, fell back, failed) and their LLM spend.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from paperbrief.records import Run, Spend
from paperbrief.store import Store

OWNER_DAYS = 14  # digest dates the owner's view shows


def reader_token(owner_token: str, reader: str) -> str:
    """The access token of ``reader`` (a readers-folder label), derived from the owner's."""
    digest = hmac.new(owner_token.encode(), f"paperbrief-reader:{reader}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(digest.digest()).decode().rstrip("=")[:32]


@dataclass(frozen=True)
class WebReader:
    """One reader the UI serves: their label, store key and profile file."""

    label: str
    key: str
    profile_path: Path


@dataclass(frozen=True)
class ReaderDay:
    """One reader's digest date as the owner sees it."""

    status: str  # published | fell-back | failed | empty | running | —
    detail: str = ""


@dataclass(frozen=True)
class OwnerView:
    readers: tuple[WebReader, ...]
    days: tuple[date, ...]  # newest first
    cells: dict[tuple[str, date], ReaderDay] = field(default_factory=dict)  # (key, day)
    spend: dict[tuple[str, date], Spend] = field(default_factory=dict)


def _status(run: Run) -> ReaderDay:
    if run.status in ("ok", "reused"):
        try:
            fallbacks = json.loads(run.detail or "{}").get("fallbacks", [])
        except ValueError:
            fallbacks = []
        if fallbacks:
            return ReaderDay("fell-back", "; ".join(str(f) for f in fallbacks)[:300])
        return ReaderDay("published", "already published" if run.status == "reused" else "")
    if run.status == "failed" and run.detail and "nothing" in run.detail.lower():
        return ReaderDay("empty", run.detail[:300])
    return ReaderDay(run.status, (run.detail or "")[:300])


def owner_view(store: Store, readers: Sequence[WebReader], days: int = OWNER_DAYS) -> OwnerView:
    """Every reader's recent digest dates (their latest run of each) and spend per day."""
    keys = {r.key for r in readers}
    runs = [r for r in store.runs.all() if r.command == "run" and r.profile in keys]
    dates = sorted({r.digest_date for r in runs if r.digest_date}, reverse=True)[:days]
    cells: dict[tuple[str, date], ReaderDay] = {}
    for run in runs:  # oldest first: the latest run of a day wins
        if run.digest_date in dates and run.profile is not None:
            cells[(run.profile, run.digest_date)] = _status(run)
    spend: dict[tuple[str, date], Spend] = {}
    for day in dates:
        for key, used in store.llm.spend_by_reader(day).items():
            if key in keys:
                spend[(key, day)] = used
    return OwnerView(tuple(readers), tuple(dates), cells, spend)


def reader_tokens(owner_token: str, labels: Iterable[str]) -> dict[str, str]:
    """token → reader label, for the access middleware."""
    return {reader_token(owner_token, label): label for label in labels}
