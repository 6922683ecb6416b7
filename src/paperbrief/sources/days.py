"""Which listing day is which.

arXiv announces at 20:00 US-Eastern from Sunday to Thursday; each announcement is labelled
with the next day's date, so listing days run Monday to Friday and there are none on Saturday
or Sunday. A *listing day* in paperbrief is that label date (what the snapshot files, the
feed's ``published`` field and the /list pages carry). The digest about listing day L is
dated the day after (``digest_date_for``); ``listing_day_for`` maps a digest date back to the
latest weekday before it, so Saturday's, Sunday's and Monday's digests all cover Friday's.
Holidays are not known in advance: a weekday without an announcement shows up as an
``EmptyDay`` when fetching.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

ARXIV_TIMEZONE = ZoneInfo("America/New_York")
ANNOUNCEMENT_HOUR = 20  # local time in ARXIV_TIMEZONE


def is_listing_weekday(day: date) -> bool:
    """True for Monday to Friday (the only days arXiv can have a listing)."""
    return day.weekday() < 5


def previous_listing_day(day: date) -> date:
    """The latest weekday strictly before ``day`` (Mon -> Fri, Tue -> Mon)."""
    earlier = day - timedelta(days=1)
    while not is_listing_weekday(earlier):
        earlier -= timedelta(days=1)
    return earlier


def listing_day_for(digest_date: date) -> date:
    """The listing day a digest dated ``digest_date`` covers: the latest weekday before it.

    Tue -> Mon, ..., Sat -> Fri, Sun -> Fri, Mon -> Fri.
    """
    return previous_listing_day(digest_date)


def digest_date_for(listing_day: date) -> date:
    """The date of the digest about ``listing_day``: the next day (Fri -> Sat).

    ``listing_day_for(digest_date_for(d)) == d`` for every weekday ``d``.
    """
    return listing_day + timedelta(days=1)


def latest_listing_day(now: datetime) -> date:
    """The newest listing day arXiv has announced at ``now`` (an aware datetime)."""
    local = now.astimezone(ARXIV_TIMEZONE)
    day = local.date() + timedelta(days=1) if local.hour >= ANNOUNCEMENT_HOUR else local.date()
    while not is_listing_weekday(day):
        day -= timedelta(days=1)
    return day
