"""The delivery journal: per profile, digest and channel (and e-mail recipient), what was
sent, written before sending (``deliver.DeliveryJournal``)."""

from __future__ import annotations

import sqlite3
from datetime import date

from paperbrief.records import DeliveryStatus
from paperbrief.store.database import Database, now

STATUSES = ("intent", "sent", "failed", "unknown")
# How a channel's rows add up to one status: any unknown or unfinished send first, then
# any failure; "sent" only when every row is.
_WORST_FIRST = ("unknown", "intent", "failed", "sent")


def _delivery(row: sqlite3.Row) -> DeliveryStatus:
    return DeliveryStatus(
        digest_date=date.fromisoformat(row["digest_date"]),
        channel=row["channel"],
        status=row["status"],
        attempts=row["attempts"],
        last_error=row["last_error"],
        sent_at=row["sent_at"],
        updated_at=row["updated_at"],
        target=row["target"],
        key=row["key"],
        detail=row["detail"],
        profile=row["profile"],
    )


class Deliveries:
    """``store.deliveries``: the journal ``deliver`` writes before and after each send."""

    def __init__(self, db: Database, reader: str | None = None) -> None:
        self._db = db
        self._reader = reader  # a reader's view: ``of`` reads that reader's journal only

    def _row(
        self, db: sqlite3.Connection, digest_date: date, channel: str, profile: str, target: str
    ) -> DeliveryStatus:
        row = db.execute(
            "SELECT * FROM deliveries WHERE profile=? AND digest_date=? AND channel=? AND target=?",
            (profile, digest_date.isoformat(), channel, target),
        ).fetchone()
        return _delivery(row)

    def status(
        self, digest_date: date, channel: str, profile: str | None = None, target: str = ""
    ) -> DeliveryStatus | None:
        """One row (of any profile when none is given)."""
        query = "SELECT * FROM deliveries WHERE digest_date=? AND channel=? AND target=?"
        args: tuple[str, ...] = (digest_date.isoformat(), channel, target)
        if profile is not None:
            query, args = query + " AND profile=?", (*args, profile)
        with self._db.read() as db:
            row = db.execute(query + " ORDER BY updated_at DESC LIMIT 1", args).fetchone()
        return _delivery(row) if row is not None else None

    def targets(self, digest_date: date, channel: str, profile: str) -> list[DeliveryStatus]:
        """Every row of one channel: the channel's own ('' target) and each recipient's."""
        with self._db.read() as db:
            rows = db.execute(
                "SELECT * FROM deliveries WHERE profile=? AND digest_date=? AND channel=?"
                " ORDER BY target",
                (profile, digest_date.isoformat(), channel),
            ).fetchall()
        return [_delivery(row) for row in rows]

    def intend(
        self, digest_date: date, channel: str, *, key: str, profile: str = "", target: str = ""
    ) -> DeliveryStatus:
        """Write the intent to send (one more attempt), committed before the send starts.

        The key of the first attempt is kept, so every retry carries the same one.
        """
        stamp = now()
        with self._db.write() as db:
            db.execute(
                "INSERT INTO deliveries (profile, digest_date, channel, target, status,"
                " attempts, key, updated_at) VALUES (?,?,?,?,'intent',1,?,?)"
                " ON CONFLICT(profile, digest_date, channel, target) DO UPDATE SET"
                " status='intent', attempts=attempts+1,"
                " key=CASE WHEN key='' THEN excluded.key ELSE key END,"
                " updated_at=excluded.updated_at",
                (profile, digest_date.isoformat(), channel, target, key, stamp),
            )
            return self._row(db, digest_date, channel, profile, target)

    def settle(
        self,
        digest_date: date,
        channel: str,
        status: str,
        *,
        profile: str = "",
        target: str = "",
        error: str | None = None,
        detail: str = "",
    ) -> DeliveryStatus:
        """Record how a send ended: ``sent``, ``failed`` or ``unknown``."""
        if status not in STATUSES:
            raise ValueError(f"unknown delivery status {status!r}")
        stamp = now()
        sent_at = stamp if status == "sent" else None
        with self._db.write() as db:
            db.execute(
                "INSERT INTO deliveries (profile, digest_date, channel, target, status,"
                " attempts, last_error, detail, sent_at, updated_at)"
                " VALUES (?,?,?,?,?,0,?,?,?,?)"
                " ON CONFLICT(profile, digest_date, channel, target) DO UPDATE SET"
                " status=excluded.status, last_error=excluded.last_error,"
                " detail=excluded.detail, sent_at=COALESCE(excluded.sent_at, sent_at),"
                " updated_at=excluded.updated_at",
                (
                    profile,
                    digest_date.isoformat(),
                    channel,
                    target,
                    status,
                    error,
                    detail,
                    sent_at,
                    stamp,
                ),
            )
            return self._row(db, digest_date, channel, profile, target)

    def record(
        self,
        digest_date: date,
        channel: str,
        ok: bool,
        error: str | None = None,
        *,
        profile: str = "",
        target: str = "",
    ) -> DeliveryStatus:
        """One finished attempt in a single step (intent and outcome together)."""
        self.intend(digest_date, channel, key="", profile=profile, target=target)
        return self.settle(
            digest_date,
            channel,
            "sent" if ok else "failed",
            profile=profile,
            target=target,
            error=error,
        )

    def of(
        self, digest_date: date | None = None, profile: str | None = None
    ) -> list[DeliveryStatus]:
        """One state per channel (its recipients' rows added up), of one date when given."""
        query, args = "SELECT * FROM deliveries WHERE 1", tuple[str, ...]()
        if digest_date is not None:
            query, args = query + " AND digest_date=?", (digest_date.isoformat(),)
        if self._reader is not None:
            profile = self._reader
        if profile is not None:
            query, args = query + " AND profile=?", (*args, profile)
        with self._db.read() as db:
            rows = [_delivery(row) for row in db.execute(query + " ORDER BY rowid", args)]
        grouped: dict[tuple[str, date, str], list[DeliveryStatus]] = {}
        for row in rows:
            grouped.setdefault((row.profile, row.digest_date, row.channel), []).append(row)
        return [_combined(items) for items in grouped.values()]

    def unsettled(self, profile: str, since: date, before: date) -> list[DeliveryStatus]:
        """Rows not sent (failed, unknown, or an intent never finished) of the digest dates
        in [since, before), oldest first: what a later run retries or reports."""
        with self._db.read() as db:
            rows = db.execute(
                "SELECT * FROM deliveries WHERE profile=? AND digest_date>=? AND digest_date<?"
                " AND status!='sent' ORDER BY digest_date, channel, target",
                (profile, since.isoformat(), before.isoformat()),
            ).fetchall()
        return [_delivery(row) for row in rows]


def _combined(rows: list[DeliveryStatus]) -> DeliveryStatus:
    if len(rows) == 1:
        return rows[0]
    status = next(s for s in _WORST_FIRST if any(row.status == s for row in rows))
    errors = [f"{row.target or row.channel}: {row.last_error}" for row in rows if row.last_error]
    first = rows[0]
    return DeliveryStatus(
        digest_date=first.digest_date,
        channel=first.channel,
        status=status,
        attempts=max(row.attempts for row in rows),
        last_error="; ".join(errors) or None,
        sent_at=max((row.sent_at for row in rows if row.sent_at), default=None),
        updated_at=max(row.updated_at for row in rows),
        key=first.key,
        profile=first.profile,
    )
