"""The reader's Zotero library, read live through the Zotero Web API (v3).

zotero-arxiv-daily's users come for this: the library they keep is the profile. A source
is written ``zotero:users/<userID>`` (or ``zotero:groups/<groupID>``), optionally with the
collections to read and to leave out, by name or key::

    zotero:users/12345?collection=Program repair&collection=Agents&exclude=To read

A collection includes its subcollections; an item in an excluded one is left out. The key
comes from ``$ZOTERO_API_KEY`` (a read-only key, zotero.org/settings/keys; a public library
needs none). Importing the same library again adds only what is new, so running
``paperbrief feedback import zotero:…`` before each day's run keeps the ranking in sync
with the library.

The API as documented (https://www.zotero.org/support/dev/web_api/v3/basics): requests
carry ``Zotero-API-Version: 3`` and ``Zotero-API-Key``; lists come in pages of at most 100
(``limit``, ``start``) with a ``Link: <…>; rel="next"`` header and ``Total-Results``; a
``Backoff: <seconds>`` header on any answer asks the client to wait before its next
request, and 429 / 503 carry ``Retry-After``. Items are ``{"key", "data": {"itemType",
"title", "abstractNote", "creators", "date", "DOI", "url", "extra", "archiveID", "tags",
"collections"}}``; collections ``{"key", "data": {"name", "parentCollection"}}``.

:class:`ZoteroClient` takes its endpoint as a constructor argument (tests point it at a
loopback server speaking that API); each answer is capped, each request bounded as a
whole, transient failures retried by the one :class:`~paperbrief.retry.RetryPolicy`.
"""

from __future__ import annotations

import json
import re
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from paperbrief import __version__
from paperbrief.environment import ZOTERO_KEY_ENV
from paperbrief.library.formats import (
    MAX_ITEMS,
    LibraryError,
    LibraryPaper,
    Progress,
    Skipped,
    capped_field,
    ignore_progress,
    ignore_skipped,
    library_paper,
    quoted,
)
from paperbrief.retry import RetryPolicy, parse_retry_after
from paperbrief.transport import Deadline, bounded_client, describe, within

DEFAULT_API = "https://api.zotero.org"
PAGE = 100  # the API's largest page
MAX_PAGE_BYTES = 32 * 1024 * 1024
SOURCE = re.compile(r"^zotero:(users|groups)/(\d+)(?:\?(.*))?$")
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')
# What a Zotero item is when it is not a paper: attachments and notes are children of
# one, annotations of an attachment (``/items/top`` leaves them out already).
_NOT_PAPERS = {"attachment", "note", "annotation"}


class ZoteroError(LibraryError):
    """The Zotero library could not be read (bad key, unknown library, network)."""


@dataclass(frozen=True)
class ZoteroSource:
    """One Zotero library and which of its collections count."""

    kind: str  # users | groups
    library: str
    collections: tuple[str, ...] = ()  # names or keys; empty: the whole library
    exclude: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        return f"/{self.kind}/{self.library}"


def parse_source(text: str) -> ZoteroSource | None:
    """``zotero:users/123[?collection=…&exclude=…]`` as a source, or None when ``text``
    is not one (a ``zotero:`` text that is malformed is a ZoteroError)."""
    if not text.startswith("zotero:"):
        return None
    found = SOURCE.match(text.strip())
    query = urllib.parse.parse_qs(found.group(3) or "", keep_blank_values=False) if found else {}
    if found is None or set(query) - {"collection", "exclude"}:
        raise ZoteroError(
            f"{quoted(text)} is not a Zotero library",
            "write zotero:users/<your user id> (or zotero:groups/<id>), optionally"
            " ?collection=NAME&exclude=NAME",
        )
    return ZoteroSource(
        found.group(1),
        found.group(2),
        tuple(query.get("collection", [])),
        tuple(query.get("exclude", [])),
    )


class ZoteroClient:
    """Reads one library's collections and items (see the module docstring).

    ``base_url``: the API (tests: a loopback server); ``api_key``: sent as
    ``Zotero-API-Key`` (None for a public library); ``timeout``: seconds per request, as a
    whole; ``retry``: the policy for 429 / 5xx / timeouts; ``sleep``: how it waits (tests).
    """

    def __init__(
        self,
        api_key: str | None,
        base_url: str = DEFAULT_API,
        *,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.retry = retry or RetryPolicy(max_retries=4)
        self._sleep = sleep
        headers = {"Zotero-API-Version": "3", "User-Agent": f"paperbrief/{__version__}"}
        if api_key:
            headers["Zotero-API-Key"] = api_key
        self._http = bounded_client(timeout=timeout, max_connections=1, headers=headers)
        self._not_before = 0.0  # monotonic time the server's Backoff asks to wait for

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ZoteroClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------- requests
    def _get(self, url: str) -> tuple[Any, httpx.Headers]:
        """One page, JSON-decoded, retried as the policy says."""
        for attempt in range(self.retry.attempts):
            self._sleep(max(0.0, self._not_before - time.monotonic()))
            limit = Deadline.after(self.timeout, "a Zotero request")
            try:
                with within(limit), self._http.stream("GET", url) as response:
                    body = _read_capped(response)
            except httpx.HTTPError as error:
                failure = describe(error, timeout=self.timeout, deadline=limit)
                if failure.transient and attempt < self.retry.max_retries:
                    self._sleep(self.retry.wait(attempt))
                    continue
                raise ZoteroError(
                    f"cannot reach Zotero at {self.base_url}: {failure.description}",
                    "check the network; the import can be run again at any time",
                ) from error
            backoff = parse_retry_after(response.headers.get("backoff"))
            if backoff:
                self._not_before = time.monotonic() + min(backoff, self.retry.max_retry_after)
            status = response.status_code
            if self.retry.retryable(status) and attempt < self.retry.max_retries:
                wait = parse_retry_after(response.headers.get("retry-after"))
                self._sleep(self.retry.wait(attempt, wait))
                continue
            if status in (401, 403):
                raise ZoteroError(
                    f"Zotero refused the key for {url.split('?')[0]} (HTTP {status})",
                    f"set ${ZOTERO_KEY_ENV} to a key with read access to this library"
                    " (zotero.org/settings/keys), or make the library public",
                )
            if status == 404:
                raise ZoteroError(
                    f"Zotero knows no such library or collection ({url.split('?')[0]})",
                    "check the user or group id (zotero.org/settings/keys shows yours)",
                )
            if status >= 300:
                raise ZoteroError(
                    f"Zotero answered HTTP {status}: {quoted(body.decode('utf-8', 'replace'))}",
                    "try again later",
                )
            try:
                return json.loads(body), response.headers
            except ValueError as error:
                raise ZoteroError(
                    f"Zotero's answer is not JSON: {quoted(error)}", "try again later"
                ) from error
        raise ZoteroError("Zotero kept refusing (rate limit)", "try again later")

    def _pages(self, path: str, query: str = "") -> Iterator[tuple[list[Any], int]]:
        """Every page of a list (following ``Link: rel=next``), with Total-Results."""
        url: str | None = f"{self.base_url}{path}?format=json&limit={PAGE}{query}"
        seen = 0
        while url is not None and seen < MAX_ITEMS:
            page, headers = self._get(url)
            if not isinstance(page, list):
                raise ZoteroError("Zotero's answer is not a list", "try again later")
            seen += len(page)
            total = int(headers.get("total-results") or 0)
            yield page, total
            found = _NEXT.search(headers.get("link", ""))
            url = found.group(1) if found and page else None
            if url is not None and not url.startswith(self.base_url):
                url = None  # a next link elsewhere is not followed

    # ----------------------------------------------------------------- reading
    def collections(self, source: ZoteroSource) -> dict[str, tuple[str, str | None]]:
        """``{key: (name, parent key or None)}`` of every collection of the library."""
        found: dict[str, tuple[str, str | None]] = {}
        for page, _ in self._pages(f"{source.path}/collections"):
            for entry in page:
                data = entry.get("data", {}) if isinstance(entry, dict) else {}
                key = str(data.get("key") or entry.get("key", ""))
                parent = data.get("parentCollection") or None
                if key:
                    found[key] = (str(data.get("name", key)), str(parent) if parent else None)
        return found

    def papers(
        self,
        source: ZoteroSource,
        skipped: Skipped = ignore_skipped,
        progress: Progress = ignore_progress,
    ) -> list[LibraryPaper]:
        """The library's papers, its collections to include and exclude applied."""
        included, excluded = self._selected(source)
        papers: list[LibraryPaper] = []
        done = 0
        for page, total in self._pages(f"{source.path}/items/top"):
            for entry in page:
                done += 1
                data = entry.get("data", {}) if isinstance(entry, dict) else {}
                if not isinstance(data, dict) or data.get("itemType") in _NOT_PAPERS:
                    continue
                where = set(data.get("collections") or [])
                if (included is not None and not where & included) or where & excluded:
                    continue
                try:
                    papers.append(item_paper(data))
                except (TypeError, ValueError, AttributeError) as error:
                    skipped(f"Zotero item {quoted(data.get('key', done))}: {quoted(error)}")
            progress(done, max(total, done))
        return papers

    def _selected(self, source: ZoteroSource) -> tuple[set[str] | None, set[str]]:
        """The collection keys to include (None: all) and to exclude, subcollections too."""
        if not source.collections and not source.exclude:
            return None, set()
        known = self.collections(source)

        def keys(wanted: tuple[str, ...]) -> set[str]:
            chosen = set()
            for name in wanted:
                matches = {k for k, (n, _) in known.items() if name in (k, n)}
                if not matches:
                    names = ", ".join(sorted(n for n, _ in known.values())[:12])
                    raise ZoteroError(
                        f"the Zotero library has no collection {name!r}",
                        f"name one of its collections (by name or key): {names}",
                    )
                chosen |= matches
            grew = True
            while grew:  # and every collection inside one of them
                inner = {k for k, (_, parent) in known.items() if parent in chosen}
                grew = not inner <= chosen
                chosen |= inner
            return chosen

        return (keys(source.collections) if source.collections else None), keys(source.exclude)


def item_paper(data: dict[str, Any]) -> LibraryPaper:
    """One Zotero item's data as a library paper (arXiv's subject tags give categories)."""
    creators = data.get("creators") or []
    authors = [
        str(c.get("name") or ", ".join(p for p in (c.get("lastName"), c.get("firstName")) if p))
        for c in creators
        if isinstance(c, dict) and c.get("creatorType", "author") == "author"
    ]
    tags = [str(t.get("tag", "")) for t in data.get("tags") or [] if isinstance(t, dict)]
    hints = [
        capped_field(field, data.get(field, ""))
        for field in ("archiveID", "DOI", "url", "extra", "number", "reportNumber")
    ]
    return library_paper(
        capped_field("title", data.get("title", "")),
        capped_field("abstract", data.get("abstractNote", "")),
        authors,
        data.get("date", ""),
        hints,
        [capped_field("keywords", tag) for tag in tags],
    )


def _read_capped(response: httpx.Response) -> bytes:
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > MAX_PAGE_BYTES:
            raise ZoteroError(
                f"a Zotero answer is larger than {MAX_PAGE_BYTES // 2**20} MiB",
                "this is not Zotero's API; check the address",
            )
        chunks.append(chunk)
    return b"".join(chunks)
