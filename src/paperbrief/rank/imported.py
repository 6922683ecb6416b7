"""Reading history from another tool: the picks file (the format of ``picks-dev.json``).

A post is one digest the reader made: the listing day it covers, the papers picked (with
stars) and, optionally, ``shown``: every id the reader saw that day. ``record_posts`` turns
posts into feedback signals, picked papers as ``picked`` and the shown-but-not-picked as
``shown`` (negatives), so imported history teaches the learner the right negatives; papers
outside ``shown`` are not recorded at all. ``paperbrief feedback import`` and the
evaluation's walk-forward replay both go through it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from paperbrief.errors import PaperbriefError
from paperbrief.files import read_text_bounded
from paperbrief.models import Signal
from paperbrief.rank.feedback import FeedbackRecorder

UNRATED_STARS = 2  # an unrated pick counts as a 2-star gain
FEEDBACK_TIME = "T12:00:00+00:00"  # imported signals are dated at noon of the listing day
MAX_PICKS_BYTES = 50 * 2**20  # years of daily picks are a few MB

# A rated pick's feedback note: the reader's stars travel with the signal (``rating_of``).
RATING_NOTE = "rated ★{stars}"
_RATING = re.compile(r"^rated ★([1-5])$")


def rating_of(note: str | None) -> int | None:
    """The reader's stars in a note ``record_posts`` wrote (None for any other note)."""
    match = _RATING.match(note or "")
    return int(match.group(1)) if match else None


class PicksFileError(PaperbriefError):
    """A picks file is missing or malformed."""


@dataclass(frozen=True)
class RecordedPost:
    digest_date: date
    listing_day: date
    picks: tuple[tuple[str, int], ...]  # (arXiv id, stars; unrated counted as 2)
    shown: tuple[str, ...] | None = None  # every id the reader saw; None = not recorded
    ratings: tuple[int | None, ...] = ()  # the reader's own stars per pick (None = unrated)

    def rating(self, paper_id: str) -> int | None:
        """The reader's own stars for one of the post's picks (None: unrated or not a pick)."""
        for (pick, _), stars in zip(self.picks, self.ratings, strict=False):
            if pick == paper_id:
                return stars
        return None


PICKS_FORMAT = (
    '{"posts": [{"digest_date", "listing_day", "picks": [{"id", "stars"}],'
    ' "shown": ["<arXiv id>", ...] (optional)}]}'
)


def load_posts(path: Path) -> list[RecordedPost]:
    """Posts of a picks file, sorted by digest date."""
    try:
        data = json.loads(read_text_bounded(path, MAX_PICKS_BYTES, "picks file"))
        posts = [
            RecordedPost(
                date.fromisoformat(item["digest_date"]),
                date.fromisoformat(item["listing_day"]),
                tuple(
                    (str(p["id"]), int(p["stars"]) if p.get("stars") else UNRATED_STARS)
                    for p in item["picks"]
                ),
                tuple(str(i) for i in item["shown"]) if item.get("shown") is not None else None,
                tuple(int(p["stars"]) if p.get("stars") else None for p in item["picks"]),
            )
            for item in data["posts"]
        ]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise PicksFileError(
            f"cannot read picks file {path}: {error}", f"expected {PICKS_FORMAT}"
        ) from error
    return sorted(posts, key=lambda p: (p.digest_date, p.listing_day))


@dataclass(frozen=True)
class Recorded:
    """What ``record_posts`` added (picks, shown-not-picked) and found already recorded."""

    picked: int
    shown: int
    skipped: int


def record_posts(log: FeedbackRecorder, posts: Sequence[RecordedPost], source: str) -> Recorded:
    """Record posts as the reader's signals, dated at noon of each listing day.

    Picked papers become ``picked`` (a rated pick carries its stars as its note,
    ``RATING_NOTE``); papers in ``shown`` that no post of that listing day picked become
    ``shown``. A signal already recorded for the same paper and day is not added again, so
    importing a file twice adds nothing.
    """
    existing = {(e.paper_id, e.signal, e.created_at[:10]) for e in log.events()}
    handled: set[tuple[str, Signal, str]] = set()  # two posts of one day share a shown list
    picked_on: dict[date, set[str]] = {}
    for post in posts:
        picked_on.setdefault(post.listing_day, set()).update(pid for pid, _ in post.picks)
    counts = {Signal.PICKED: 0, Signal.SHOWN: 0}
    skipped = 0
    for post in posts:
        when = post.listing_day.isoformat() + FEEDBACK_TIME
        signals = [(pid, Signal.PICKED) for pid, _ in post.picks]
        passed = [pid for pid in post.shown or () if pid not in picked_on[post.listing_day]]
        signals += [(pid, Signal.SHOWN) for pid in dict.fromkeys(passed)]
        for paper_id, signal in signals:
            stars = post.rating(paper_id) if signal == Signal.PICKED else None
            key = (paper_id, signal, when[:10])
            if key in handled:
                continue
            handled.add(key)
            if key in existing:
                skipped += 1
                continue
            note = RATING_NOTE.format(stars=stars) if stars else None
            log.add(paper_id, signal, note=note, source=source, created_at=when)
            counts[signal] += 1
    return Recorded(counts[Signal.PICKED], counts[Signal.SHOWN], skipped)
