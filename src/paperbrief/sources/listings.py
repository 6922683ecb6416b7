"""Who fetches a listing day the store does not hold: live arXiv, or nobody (offline).

``Services`` picks one when it is built (``services.listings``); the pipeline asks it only
for a day that is neither stored nor given as a snapshot file.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import date
from typing import Protocol

from paperbrief.errors import FetchFailed
from paperbrief.http import PoliteClient
from paperbrief.models import Listing
from paperbrief.sources.arxiv_api import DEFAULT_API_BASE
from paperbrief.sources.live import DEFAULT_LIST_BASE, DEFAULT_RSS_BASE, fetch_listing


class ListingSource(Protocol):
    """Where a listing day comes from when the store does not have it."""

    def fetch(
        self,
        day: date,
        categories: list[str],
        *,
        previous_ids: Collection[str],
        include_replacements: bool,
    ) -> Listing: ...


@dataclass(frozen=True)
class ArxivListings:
    """Live arXiv: the feed, the /list pages and the export API (``fetch_listing``)."""

    client: PoliteClient
    rss_base: str = DEFAULT_RSS_BASE
    api_base: str = DEFAULT_API_BASE
    list_base: str = DEFAULT_LIST_BASE

    def fetch(
        self,
        day: date,
        categories: list[str],
        *,
        previous_ids: Collection[str],
        include_replacements: bool,
    ) -> Listing:
        return fetch_listing(
            day,
            categories,
            self.client,
            rss_base=self.rss_base,
            api_base=self.api_base,
            list_base=self.list_base,
            previous_ids=previous_ids,
            include_replacements=include_replacements,
        )


class OfflineListings:
    """Offline: a day that is not stored cannot be had."""

    def fetch(
        self,
        day: date,
        categories: list[str],
        *,
        previous_ids: Collection[str],
        include_replacements: bool,
    ) -> Listing:
        raise FetchFailed(
            f"no stored listing for {day} and running offline",
            "drop --offline, or pass --listing FILE with a snapshot of that day",
        )
