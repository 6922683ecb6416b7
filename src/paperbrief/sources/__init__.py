"""Sources: where a day's listing comes from.

* ``load_snapshot(path, day=None)`` — a local JSONL(.gz) file (see ``snapshot.py``);
* ``fetch_listing(day, categories, client, ...)`` — live arXiv: the listing feed gives the
  day's ids and how each was announced, the export API fills in metadata, and the
  ``/list/<cat>/new`` page stands in when the feed is stale or empty on a weekday.

Dates: arXiv announces at 20:00 US-Eastern from Sunday to Thursday; each announcement is
labelled with the next day's date, so listing days run Monday to Friday and there are none on
Saturday or Sunday. A *listing day* in paperbrief is that label date (what the snapshot files
and the feed's ``published`` field carry). The digest about listing day L is dated the day
after (``digest_date_for``); ``listing_day_for`` maps a digest date back to the latest
weekday before it, so Saturday's, Sunday's and Monday's digests all cover Friday's listing.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import cast
from zoneinfo import ZoneInfo

from paperbrief.errors import EXIT_FETCH_FAILED, EXIT_NO_ANNOUNCEMENT, EmptyDay, SourceError
from paperbrief.http import PoliteClient
from paperbrief.models import EmptyReason, Listing, ListingKind, Paper
from paperbrief.sources.arxiv_api import DEFAULT_API_BASE, fetch_papers
from paperbrief.sources.arxiv_feed import feed_url, parse_feed
from paperbrief.sources.listing_page import listing_page_url, parse_listing_page
from paperbrief.sources.snapshot import load_snapshot

__all__ = [
    "DEFAULT_API_BASE",
    "DEFAULT_LIST_BASE",
    "DEFAULT_RSS_BASE",
    "digest_date_for",
    "fetch_listing",
    "latest_listing_day",
    "listing_day_for",
    "load_snapshot",
]

DEFAULT_RSS_BASE = "https://rss.arxiv.org/atom"
DEFAULT_LIST_BASE = "https://arxiv.org/list"
STALE_OVERLAP = 0.9  # share of the feed's ids already seen yesterday that makes it stale
_EASTERN = ZoneInfo("America/New_York")


def listing_day_for(digest_date: date) -> date:
    """The listing day a digest dated ``digest_date`` covers: the latest weekday before it.

    Tue -> Mon, ..., Sat -> Fri, Sun -> Fri, Mon -> Fri.
    """
    day = digest_date - timedelta(days=1)
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day


def digest_date_for(listing_day: date) -> date:
    """The date of the digest about ``listing_day``: the next day (Fri -> Sat).

    ``listing_day_for(digest_date_for(d)) == d`` for every weekday ``d``.
    """
    return listing_day + timedelta(days=1)


def latest_listing_day(now: datetime) -> date:
    """The newest listing day arXiv has announced at ``now`` (an aware datetime).

    Announcements happen Sunday–Thursday at 20:00 US-Eastern and carry the next date.
    """
    eastern = now.astimezone(_EASTERN)
    day = eastern.date() + timedelta(days=1) if eastern.hour >= 20 else eastern.date()
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day


@dataclass(frozen=True)
class _Announced:
    """One id of the day and how it was announced, before the API fills metadata in."""

    paper: Paper  # whatever metadata the feed or page carried
    kind: str  # new | cross | replace


def fetch_listing(
    day: date,
    categories: list[str],
    client: PoliteClient,
    *,
    rss_base: str = DEFAULT_RSS_BASE,
    api_base: str = DEFAULT_API_BASE,
    list_base: str = DEFAULT_LIST_BASE,
    previous_ids: Collection[str] = frozenset(),
    include_replacements: bool = False,
    api_batch_size: int = 100,
) -> Listing:
    """Fetch listing day ``day`` for ``categories`` from live arXiv.

    1. One combined feed (``<rss_base>/cs.SE+cs.AI``) gives ids and announce types; new and
       cross-list entries are kept, replacements only with ``include_replacements``.
    2. The feed is *stale* when it is empty, announces another day, or at least 90 % of its
       ids are in ``previous_ids`` (the previous listing, as stored); then each category's
       ``<list_base>/<cat>/new`` page is parsed instead. ``Listing.notes`` says so.
    3. The export API (``api_base``) fills in metadata in ``api_batch_size`` batches; if it
       fails, the feed's own metadata is kept and a note says so.

    ``Paper.listings`` maps each requested category the paper appeared in to new/cross/
    replace. Raises ``EmptyDay`` with reason ``no_announcement`` (exit code
    ``EXIT_NO_ANNOUNCEMENT``) for a Saturday/Sunday or when arXiv has nothing for the
    day (holiday, or run before the 20:00 US-Eastern announcement), and with reason
    ``fetch_failed`` (``EXIT_FETCH_FAILED``) when neither the feed nor the pages could be read.
    """
    if not categories:
        raise ValueError("fetch_listing needs at least one category")
    if day.weekday() >= 5:
        raise EmptyDay(
            reason=EmptyReason.NO_ANNOUNCEMENT.value,
            message=f"arXiv has no listing on {day:%A} {day.isoformat()}",
            hint="listings exist Monday to Friday; pick a weekday with --date",
            exit_code=EXIT_NO_ANNOUNCEMENT,
        )
    kinds = {"new", "cross", "replace"} if include_replacements else {"new", "cross"}
    notes: list[str] = []
    failures: list[str] = []
    announced, source = _from_feed(day, categories, client, rss_base, previous_ids, notes, failures)
    if announced is None:
        announced, source = _from_pages(day, categories, client, list_base, notes, failures)
    if announced is None:
        if sum(failure.startswith(tuple(categories)) for failure in failures) == len(
            categories
        ):  # no /list page could be read, so arXiv's silence is unconfirmed
            raise EmptyDay(
                reason=EmptyReason.FETCH_FAILED.value,
                message=f"could not fetch the arXiv listing for {day.isoformat()}: "
                + "; ".join(failures),
                hint="check the network and rerun later, or use --listing FILE",
                exit_code=EXIT_FETCH_FAILED,
            )
        raise EmptyDay(
            reason=EmptyReason.NO_ANNOUNCEMENT.value,
            message=f"arXiv announced nothing new for {day.isoformat()}: " + "; ".join(notes),
            hint="a holiday, or the listing is not out yet (20:00 US-Eastern); rerun later",
            exit_code=EXIT_NO_ANNOUNCEMENT,
        )
    kept = {paper_id: item for paper_id, item in announced.items() if item.kind in kinds}
    papers = _with_api_metadata(kept, client, api_base, api_batch_size, notes)
    listed = tuple(
        replace(paper, announced=day.isoformat(), listings=_listings(paper, kept, categories))
        for paper in papers
    )
    return Listing(day=day, papers=listed, source=source, notes=tuple(notes))


def _from_feed(
    day: date,
    categories: list[str],
    client: PoliteClient,
    rss_base: str,
    previous_ids: Collection[str],
    notes: list[str],
    failures: list[str],
) -> tuple[dict[str, _Announced] | None, str]:
    url = feed_url(rss_base, categories)
    try:
        feed = parse_feed(client.get(url).content, f"feed {url}")
    except SourceError as error:
        failures.append(f"feed: {error.message}")
        notes.append(f"feed unusable ({error.message}); fell back to the /list pages")
        return None, ""
    ids = {entry.id for entry in feed.entries}
    seen = len(ids & set(previous_ids))
    if not ids:
        notes.append("feed was empty; fell back to the /list pages")
        return None, ""
    if feed.day is not None and feed.day > day:
        raise _past_day(day, feed.day)
    if feed.day is not None and feed.day != day:
        notes.append(
            f"feed announces {feed.day.isoformat()}, not {day.isoformat()}; "
            "fell back to the /list pages"
        )
        return None, ""
    if seen >= STALE_OVERLAP * len(ids):
        notes.append(
            f"feed was stale ({seen} of {len(ids)} ids already in the previous listing); "
            "fell back to the /list pages"
        )
        return None, ""
    announced: dict[str, _Announced] = {}
    for entry in feed.entries:
        paper = Paper(
            id=entry.id,
            title=entry.title,
            authors=entry.authors,
            abstract=entry.abstract,
            categories=entry.categories,
            primary_category=entry.categories[0] if entry.categories else "",
            version=entry.version,
        )
        announced.setdefault(entry.id, _Announced(paper=paper, kind=entry.kind))
    return announced, "arxiv-feed"


def _from_pages(
    day: date,
    categories: list[str],
    client: PoliteClient,
    list_base: str,
    notes: list[str],
    failures: list[str],
) -> tuple[dict[str, _Announced] | None, str]:
    announced: dict[str, _Announced] = {}
    for category in categories:
        url = listing_page_url(list_base, category)
        try:
            page = parse_listing_page(client.get(url).content, f"page {url}")
        except SourceError as error:
            failures.append(f"{category} page: {error.message}")
            notes.append(f"{category}: /list page unusable ({error.message})")
            continue
        if page.day is not None and page.day > day:
            raise _past_day(day, page.day)
        if page.day is not None and page.day != day:
            notes.append(f"{category}: /list page shows {page.day.isoformat()}, not {day}")
            continue
        for entry in page.entries:
            paper = Paper(
                id=entry.id,
                title=entry.title,
                authors=entry.authors,
                abstract=entry.abstract,
                categories=entry.categories,
                primary_category=entry.primary_category,
                comment=entry.comment,
                version=entry.version,
            )
            current = announced.get(entry.id)
            # the strongest kind wins: new in any category beats cross beats replace
            if current is None or _rank(entry.kind) < _rank(current.kind):
                announced[entry.id] = _Announced(paper=paper, kind=entry.kind)
    if not announced:
        return None, ""
    return announced, "arxiv-list-page"


def _past_day(day: date, newest: date) -> EmptyDay:
    return EmptyDay(
        reason=EmptyReason.FETCH_FAILED.value,
        message=f"live arXiv serves only its newest listing ({newest.isoformat()}); "
        f"{day.isoformat()} is in the past",
        hint="use --listing FILE with a saved snapshot for past days, or omit --date",
        exit_code=EXIT_FETCH_FAILED,
    )


def _rank(kind: str) -> int:
    return {"new": 0, "cross": 1}.get(kind, 2)


def _with_api_metadata(
    announced: dict[str, _Announced],
    client: PoliteClient,
    api_base: str,
    batch_size: int,
    notes: list[str],
) -> list[Paper]:
    if not announced:
        return []
    try:
        fetched = fetch_papers(list(announced), client, api_base=api_base, batch_size=batch_size)
    except SourceError as error:
        fetched = {}
        notes.append(f"export API unavailable ({error.message}); kept the listing's metadata")
    papers: list[Paper] = []
    missing: list[str] = []
    for paper_id, item in announced.items():
        paper = fetched.get(paper_id)
        if paper is None:
            if not item.paper.title:
                missing.append(paper_id)
                continue
            paper = item.paper
            if fetched:
                missing.append(paper_id)
        papers.append(paper)
    if missing:
        notes.append(
            f"{len(missing)} ids had no API metadata ({', '.join(missing[:5])}"
            + (", ..." if len(missing) > 5 else "")
            + ")"
        )
    return papers


def _listings(
    paper: Paper, announced: dict[str, _Announced], categories: Sequence[str]
) -> dict[str, ListingKind]:
    """How ``paper`` appeared in each requested category: new only in its primary one."""
    kind = announced[paper.id].kind
    own = [category for category in categories if category in paper.categories]
    if not own:  # e.g. an archive-wide request ("astro-ph"): attribute to the first category
        own = [categories[0]]
    listings: dict[str, ListingKind] = {}
    for category in own:
        if kind == "new" and category != paper.primary_category and paper.primary_category in own:
            listings[category] = "cross"
        else:
            listings[category] = cast(ListingKind, kind)
    return listings
