"""A listing day from live arXiv: feed first, /list pages when the feed cannot serve it."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import cast

from paperbrief.errors import EmptyDay, FetchFailed, NoAnnouncement, SourceError
from paperbrief.http import HostUnreachable, PoliteClient
from paperbrief.models import Listing, ListingKind, Paper
from paperbrief.sources.arxiv_api import DEFAULT_API_BASE, fetch_papers
from paperbrief.sources.arxiv_feed import feed_url, parse_feed
from paperbrief.sources.days import is_listing_weekday
from paperbrief.sources.limits import bounded
from paperbrief.sources.listing_page import (
    ListingPage,
    PageEntry,
    listing_page_url,
    parse_listing_page,
    pastweek_page_url,
)

DEFAULT_RSS_BASE = "https://rss.arxiv.org/atom"
DEFAULT_LIST_BASE = "https://arxiv.org/list"
STALE_OVERLAP = 0.9  # share of the feed's ids already in the previous listing that is stale
PASTWEEK_SHOW = 2000  # entries per /pastweek page (a busy category has ~500 a day)


@dataclass(frozen=True)
class _Announced:
    """One id of the day and how it was announced, before the API fills metadata in."""

    paper: Paper  # whatever metadata the feed or page carried
    kind: str  # new | cross | replace


@dataclass
class _Attempt:
    """What one fetch_listing call has learned so far (local to the call)."""

    day: date
    notes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    pages_read: int = 0
    newest_seen: date | None = None  # newest listing day a source showed
    too_old: bool = False  # the day is older than the /pastweek pages reach

    def saw(self, day: date | None) -> None:
        if day is not None and (self.newest_seen is None or day > self.newest_seen):
            self.newest_seen = day

    @property
    def day_is_past(self) -> bool:
        return self.newest_seen is not None and self.newest_seen > self.day


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
    2. The feed cannot serve the day when it is unreadable, empty, announces an older day,
       or repeats the previous listing (>= 90 % of its ids in ``previous_ids``, which should
       be the ids of ``previous_listing_day(day)``): then each category's
       ``<list_base>/<cat>/new`` page is parsed instead.
    3. When the feed or a /new page already shows a newer day, ``day`` is in the past: each
       category's ``<list_base>/<cat>/pastweek`` page gives that day's new and cross-list
       entries (no replacements), for days up to a week back.
    4. The export API (``api_base``) fills in metadata in ``api_batch_size`` batches; if it
       fails, the feed's or page's own metadata is kept and a note says so.

    ``Listing.notes`` records every fallback; ``Listing.categories`` the categories asked
    for, so a category with no paper that day is known to have been fetched.
    ``Paper.listings`` maps each requested category the paper appeared in to
    new/cross/replace (new only in its primary category).
    Raises ``NoAnnouncement`` for a Saturday/Sunday, or a weekday arXiv announced nothing
    for (holiday, or before 20:00 US-Eastern); ``FetchFailed`` when no source could be
    read, or the day is older than the /pastweek pages reach.
    """
    if not categories:
        raise ValueError("fetch_listing needs at least one category")
    if not is_listing_weekday(day):
        raise NoAnnouncement(
            f"arXiv has no listing on {day:%A} {day.isoformat()}",
            "listings exist Monday to Friday; pick a weekday with --date",
        )
    attempt = _Attempt(day=day)
    announced, source = _from_feed(attempt, categories, client, rss_base, previous_ids)
    if announced is None and not attempt.day_is_past:
        announced, source = _from_new_pages(attempt, categories, client, list_base)
    if announced is None and attempt.day_is_past:
        announced, source = _from_pastweek_pages(attempt, categories, client, list_base)
    if announced is None:
        raise _empty_day(attempt)
    kinds = {"new", "cross", "replace"} if include_replacements else {"new", "cross"}
    kept = {paper_id: item for paper_id, item in announced.items() if item.kind in kinds}
    papers = _with_api_metadata(kept, client, api_base, api_batch_size, attempt.notes)
    listed = tuple(
        replace(
            bounded(paper), announced=day.isoformat(), listings=_listings(paper, kept, categories)
        )
        for paper in papers
    )
    return Listing(
        day=day,
        papers=listed,
        source=source,
        notes=tuple(attempt.notes),
        categories=tuple(categories),
    )


def _empty_day(attempt: _Attempt) -> EmptyDay:
    day = attempt.day.isoformat()
    if attempt.too_old:
        return FetchFailed(
            f"{day} is older than the past week that arXiv's /list pages show",
            "use --listing FILE with a saved snapshot of that day",
        )
    if attempt.pages_read == 0:
        return FetchFailed(
            f"could not fetch the arXiv listing for {day}: "
            + "; ".join(attempt.failures or attempt.notes),
            "check the network and rerun later, or use --listing FILE",
        )
    return NoAnnouncement(
        f"arXiv announced nothing for {day}: " + "; ".join(attempt.notes),
        "a holiday, or the listing is not out yet (20:00 US-Eastern); rerun later",
    )


def _from_feed(
    attempt: _Attempt,
    categories: list[str],
    client: PoliteClient,
    rss_base: str,
    previous_ids: Collection[str],
) -> tuple[dict[str, _Announced] | None, str]:
    url = feed_url(rss_base, categories)
    try:
        feed = parse_feed(client.get(url).content, f"feed {url}")
    except SourceError as error:
        attempt.failures.append(f"feed: {error.message}")
        attempt.notes.append(f"feed unusable ({error.message}); fell back to the /list pages")
        return None, ""
    attempt.saw(feed.day)
    ids = {entry.id for entry in feed.entries}
    seen = len(ids & set(previous_ids))
    if not ids:
        attempt.notes.append("feed was empty; fell back to the /list pages")
    elif feed.day is not None and feed.day != attempt.day:
        attempt.notes.append(
            f"feed announces {feed.day.isoformat()}, not {attempt.day.isoformat()}; "
            f"fell back to the /list/<cat>/{'pastweek' if attempt.day_is_past else 'new'} pages"
        )
    elif seen >= STALE_OVERLAP * len(ids):
        attempt.notes.append(
            f"feed was stale ({seen} of {len(ids)} ids already in the previous listing); "
            "fell back to the /list pages"
        )
    else:
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
            _merge(announced, paper, entry.kind)
        return announced, "arxiv-feed"
    return None, ""


def _read_pages(
    attempt: _Attempt,
    categories: list[str],
    client: PoliteClient,
    page_url: Callable[[str], str],
    which: str,
    params: Mapping[str, object] | None = None,
) -> Iterator[tuple[str, ListingPage]]:
    """Each category's ``/list/<cat>/<which>`` page that could be read and parsed; the
    failures land in ``attempt``, and an unreachable host stops the round."""
    for category in categories:
        url = page_url(category)
        try:
            page = parse_listing_page(client.get(url, params).content, f"page {url}")
        except SourceError as error:
            attempt.failures.append(f"{category} /{which} page: {error.message}")
            attempt.notes.append(f"{category}: /list/{category}/{which} unusable ({error.message})")
            if isinstance(error, HostUnreachable):
                break  # the other pages are on the same host
            continue
        attempt.pages_read += 1
        yield category, page


def _from_new_pages(
    attempt: _Attempt, categories: list[str], client: PoliteClient, list_base: str
) -> tuple[dict[str, _Announced] | None, str]:
    announced: dict[str, _Announced] = {}
    pages = _read_pages(
        attempt, categories, client, lambda category: listing_page_url(list_base, category), "new"
    )
    for category, page in pages:
        attempt.saw(page.day)
        if page.day is not None and page.day != attempt.day:
            attempt.notes.append(
                f"{category}: /list/{category}/new shows {page.day.isoformat()}, "
                f"not {attempt.day.isoformat()}"
            )
            continue
        for entry in page.entries:
            _merge(announced, _paper(entry), entry.kind)
    return (announced, "arxiv-list-page") if announced else (None, "")


def _from_pastweek_pages(
    attempt: _Attempt, categories: list[str], client: PoliteClient, list_base: str
) -> tuple[dict[str, _Announced] | None, str]:
    announced: dict[str, _Announced] = {}
    pages = _read_pages(
        attempt,
        categories,
        client,
        lambda category: pastweek_page_url(list_base, category),
        "pastweek",
        {"show": PASTWEEK_SHOW},
    )
    for category, page in pages:
        if attempt.day in page.incomplete_days:
            attempt.notes.append(f"{category}: /pastweek shows only part of {attempt.day}")
        if page.days and attempt.day < min(page.days):
            attempt.too_old = True
        for entry in page.entries:
            if entry.day == attempt.day:
                _merge(announced, _paper(entry), entry.kind)
    if announced:
        attempt.notes.append(f"{attempt.day.isoformat()} is past; read the /pastweek pages")
        attempt.too_old = False
        return announced, "arxiv-pastweek-page"
    return None, ""


def _paper(entry: PageEntry) -> Paper:
    return Paper(
        id=entry.id,
        title=entry.title,
        authors=entry.authors,
        abstract=entry.abstract,
        categories=entry.categories,
        primary_category=entry.primary_category,
        comment=entry.comment,
        version=entry.version,
    )


_KIND_STRENGTH = {"new": 0, "cross": 1, "replace": 2}


def _merge(announced: dict[str, _Announced], paper: Paper, kind: str) -> None:
    """Keep one record per id; new in any category beats cross beats replace."""
    current = announced.get(paper.id)
    if current is None or _KIND_STRENGTH[kind] < _KIND_STRENGTH[current.kind]:
        announced[paper.id] = _Announced(paper=paper, kind=kind)


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
            if fetched or not item.paper.title:
                missing.append(paper_id)
            if not item.paper.title:
                continue  # nothing to show for it
            paper = item.paper
        papers.append(paper)
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        notes.append(f"{len(missing)} ids had no API metadata ({shown})")
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
