"""Sources: where a day's listing comes from.

* ``load_snapshot(path, day=None) -> Listing`` — a local JSONL(.gz) file, and
  ``snapshot_day(path)``, the day it holds (``snapshot.py``);
* ``fetch_listing(day, categories, client, *, rss_base, api_base, list_base, previous_ids,
  include_replacements) -> Listing`` — live arXiv (``live.py``): the listing feed gives the
  day's ids and how each was announced, the export API fills in metadata, the
  ``/list/<cat>/new`` page stands in for a stale or empty feed and ``/list/<cat>/pastweek``
  for a day that is no longer the newest;
* ``ArxivListings`` / ``OfflineListings`` — the ``ListingSource`` a run's services fetch
  an unstored day with (``listings.py``);
* ``listing_day_for``, ``digest_date_for``, ``previous_listing_day``, ``latest_listing_day``
  — which listing day is which (``days.py``).

Parsers for each arXiv format live in ``arxiv_feed.py``, ``arxiv_api.py`` and
``listing_page.py``; all network access goes through ``paperbrief.http.PoliteClient``.
"""

from __future__ import annotations

from paperbrief.sources.arxiv_api import DEFAULT_API_BASE, fetch_papers
from paperbrief.sources.days import (
    digest_date_for,
    is_listing_weekday,
    latest_listing_day,
    listing_day_for,
    previous_listing_day,
)
from paperbrief.sources.listings import ArxivListings, ListingSource, OfflineListings
from paperbrief.sources.live import DEFAULT_LIST_BASE, DEFAULT_RSS_BASE, fetch_listing
from paperbrief.sources.snapshot import load_snapshot, snapshot_day

__all__ = [
    "ArxivListings",
    "DEFAULT_API_BASE",
    "DEFAULT_LIST_BASE",
    "DEFAULT_RSS_BASE",
    "digest_date_for",
    "fetch_listing",
    "fetch_papers",
    "ListingSource",
    "OfflineListings",
    "is_listing_weekday",
    "latest_listing_day",
    "listing_day_for",
    "load_snapshot",
    "previous_listing_day",
    "snapshot_day",
]
