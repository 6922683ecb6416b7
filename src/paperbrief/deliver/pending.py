"""Earlier digests' channels that are not sent yet: a day's run retries the failed ones.

A channel that failed used to be retried only by a rerun of that same day; now every run
(after delivering its own digest) looks back ``RETRY_DAYS``: failed channels are sent
again under that day's run lock (skipped while that day's own run or send holds it), and
unknown ones are only reported again, never re-sent unasked (``dispatch``). What is older
than that is no longer retried, but never dropped without a word: every run reports it,
one line per channel (``given_up``), until it is sent with `paperbrief send`.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import date, timedelta
from typing import Protocol

from paperbrief.deliver.dispatch import (
    DeliveryJournal,
    DeliveryResult,
    DigestArchive,
    configured_channels,
    deliver_digest,
)
from paperbrief.errors import RunInProgress
from paperbrief.profile import Profile
from paperbrief.records import DeliveryStatus, StoredDigest

RETRY_DAYS = 7


class PendingJournal(DeliveryJournal, Protocol):
    def unsettled(self, profile: str, since: date, before: date) -> list[DeliveryStatus]: ...


class StoredDigests(DigestArchive, Protocol):
    def load(
        self, digest_date: date, language: str | None = None, profile: str | None = None
    ) -> StoredDigest | None: ...


def given_up(
    profile: Profile, journal: PendingJournal, today: date, days: int = RETRY_DAYS
) -> list[DeliveryResult]:
    """One ``given-up`` result per configured channel that has digests older than the retry
    window never delivered (failed, unknown or cut short), saying which and the fix."""
    configured = configured_channels(profile.delivery)
    by_channel: dict[str, set[date]] = {}
    for row in journal.unsettled(profile.key, date.min, today - timedelta(days=days)):
        if row.channel in configured:
            by_channel.setdefault(row.channel, set()).add(row.digest_date)
    results = []
    for channel, dates in by_channel.items():
        ordered = sorted(dates)
        span = str(ordered[0]) if len(ordered) == 1 else f"{ordered[0]} … {ordered[-1]}"
        results.append(
            DeliveryResult(
                channel,
                "given-up",
                f"{len(ordered)} digest(s) older than {days} days never delivered ({span});"
                f" no longer retried: `paperbrief send --date {ordered[-1]} --channel"
                f" {channel}` sends one",
                digest_date=ordered[-1],
            )
        )
    return results


def retry_earlier_days(
    profile: Profile,
    journal: PendingJournal,
    archive: StoredDigests,
    today: date,
    lock: Callable[[date], AbstractContextManager[None]],
    days: int = RETRY_DAYS,
) -> list[DeliveryResult]:
    """Deliver again what the digests of the ``days`` before ``today`` did not get sent,
    each under ``lock(that day)``; channels no longer configured are left alone."""
    configured = configured_channels(profile.delivery)
    by_day: dict[date, set[str]] = {}
    for row in journal.unsettled(profile.key, today - timedelta(days=days), today):
        if row.channel in configured:
            by_day.setdefault(row.digest_date, set()).add(row.channel)
    results: list[DeliveryResult] = []
    for day, channels in sorted(by_day.items()):
        earlier = archive.load(day, profile.language, profile.key)
        if earlier is None:
            continue
        try:
            with lock(day):
                wanted = [name for name in configured if name in channels]
                results += deliver_digest(earlier, profile, journal, archive, channels=wanted)
        except RunInProgress:
            continue  # that day's own run or send is at it right now
    return results
