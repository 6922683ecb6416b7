"""A listing day from a local snapshot file (JSONL or JSONL.gz).

One JSON object per line, as in the bundled ``examples/listings/*.jsonl.gz``::

    {"id": "2605.20348", "title": "...", "authors": ["..."], "abstract": "...",
     "categories": ["q-fin.CP", "cs.AI"], "primary_category": "q-fin.CP",
     "comment": null, "announced": "2026-05-22", "listings": {"cs.AI": "cross"}, ...}

Extra keys (``abs_url``, ``source``, ``published`` ...) are ignored. A malformed line is an
error, not a skipped line: a digest silently built from part of a day would mislead its
reader, so ``load_snapshot`` raises ``FeedParseError`` naming the file and line number.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections import Counter
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any, cast

from paperbrief.errors import FeedParseError, InputFileError, SourceError
from paperbrief.files import open_regular
from paperbrief.models import Listing, ListingKind, Paper
from paperbrief.sources.limits import (
    MAX_ABSTRACT_CHARS,
    MAX_AUTHOR_CHARS,
    MAX_AUTHORS,
    MAX_ID_CHARS,
    MAX_SNAPSHOT_BYTES,
    MAX_TITLE_CHARS,
    bounded,
)
from paperbrief.text.arxiv import split_arxiv_id

_DATE_IN_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})")
_KINDS: frozenset[str] = frozenset({"new", "cross", "replace"})


def load_snapshot(path: Path, day: date | None = None) -> Listing:
    """Read a snapshot file into a ``Listing``.

    ``day`` defaults to the ``YYYY-MM-DD`` in the file name, else to the most common
    ``announced`` value in the file. Papers are keyed by id without version (a ``v2`` suffix
    becomes ``Paper.version``); a paper listed on several lines is merged (its ``listings``
    united). Raises ``SourceError`` if the file cannot be read and ``FeedParseError`` (with
    file and line number) for a malformed line or a file with no papers.
    """
    path = Path(path)
    papers: dict[str, Paper] = {}
    announced_days: Counter[str] = Counter()
    for line_number, record in _read_records(path):
        try:
            paper = bounded(_paper_from_record(record))
        except (KeyError, TypeError, ValueError) as error:
            raise FeedParseError(
                f"{path}:{line_number}: not a valid paper record ({error})",
                hint="each line must be a JSON object with id, title, authors, abstract "
                "and categories; fix or remove that line",
            ) from error
        if paper.announced:
            announced_days[paper.announced] += 1
        previous = papers.get(paper.id)
        if previous is not None:
            merged = {**paper.listings, **previous.listings}
            paper = replace(previous, listings=merged)
        papers[paper.id] = paper
    if not papers:
        raise FeedParseError(
            f"{path} holds no papers",
            hint="point --listing at a non-empty JSONL(.gz) listing file",
        )
    listing_day = day or _day_from_name(path) or _most_common_day(announced_days, path)
    return Listing(
        day=listing_day,
        papers=tuple(papers.values()),
        source=f"snapshot:{path}",
    )


def snapshot_day(path: Path) -> date:
    """The listing day a snapshot file holds, as ``load_snapshot`` decides it: the date in
    the file name, else the most common ``announced`` value in the file."""
    return _day_from_name(Path(path)) or load_snapshot(path).day


def _read_capped(path: Path) -> bytes:
    """The file's bytes, gunzipped when it is gzip; never more than MAX_SNAPSHOT_BYTES."""
    with open_regular(path, "listing file") as stream:
        magic = stream.read(2)
        stream.seek(0)
        source = gzip.GzipFile(fileobj=stream) if magic == b"\x1f\x8b" else stream
        data = source.read(MAX_SNAPSHOT_BYTES + 1)
    if len(data) > MAX_SNAPSHOT_BYTES:
        raise FeedParseError(
            f"listing file {path} is larger than {MAX_SNAPSHOT_BYTES // 2**20} MiB"
            + (" once decompressed" if magic == b"\x1f\x8b" else ""),
            hint="a day's listing is a few MB; check that --listing names a listing file",
        )
    return data


def _read_records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    if path.is_dir():
        raise SourceError(
            f"listing file {path} is a folder", hint="pass a .jsonl or .jsonl.gz file to --listing"
        )
    try:
        text = _read_capped(path).decode("utf-8")
    except InputFileError as error:
        raise SourceError(error.message, hint="check the path given to --listing") from None
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as error:
        raise FeedParseError(
            f"cannot read listing file {path}: {error}",
            hint="the file must be UTF-8 JSONL, optionally gzip-compressed; re-download it",
        ) from error
    records: list[tuple[int, dict[str, Any]]] = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except RecursionError:
            raise FeedParseError(
                f"{path}:{line_number}: nested too deeply to be a paper record",
                hint="the file is corrupt or not a listing; fix or remove that line",
            ) from None
        except json.JSONDecodeError as error:
            raise FeedParseError(
                f"{path}:{line_number}: invalid JSON ({error.msg} at column {error.colno})",
                hint="the file is truncated or corrupt; fix or remove that line",
            ) from error
        if not isinstance(record, dict):
            raise FeedParseError(
                f"{path}:{line_number}: expected a JSON object, got {type(record).__name__}",
                hint="each line must be one JSON object describing one paper",
            )
        records.append((line_number, record))
    return records


def _paper_from_record(record: dict[str, Any]) -> Paper:
    paper_id, version = split_arxiv_id(_text(record["id"], "id"))
    if not paper_id or len(paper_id) > MAX_ID_CHARS:
        raise ValueError("empty id" if not paper_id else "an id longer than arXiv ids are")
    if record.get("version") is not None:
        version = int(record["version"])
    categories = _strings(record.get("categories") or [], "categories")
    primary = record.get("primary_category") or (categories[0] if categories else "")
    listings_raw = record.get("listings") or {}
    if not isinstance(listings_raw, dict):
        raise TypeError("listings must be an object of category -> new|cross|replace")
    listings: dict[str, ListingKind] = {}
    for category, kind in listings_raw.items():
        if kind not in _KINDS:
            raise ValueError(f"listing kind {kind!r} for {category} is not new/cross/replace")
        listings[str(category)] = cast(ListingKind, kind)
    comment = record.get("comment")
    announced = record.get("announced")
    return Paper(
        id=paper_id,
        title=_flat(_text(record["title"], "title"), MAX_TITLE_CHARS),
        authors=_strings(record.get("authors") or [], "authors"),
        abstract=_flat(_text(record.get("abstract") or "", "abstract"), MAX_ABSTRACT_CHARS),
        categories=categories,
        primary_category=_text(primary, "primary_category"),
        comment=_text(comment, "comment") if comment else None,
        announced=_text(announced, "announced") if announced else None,
        listings=listings,
        version=version,
    )


def _flat(text: str, limit: int) -> str:
    """Whitespace collapsed, on a bounded prefix: splitting a 50 MB abstract into words
    first would cost gigabytes (``limits.bounded`` then cuts it exactly)."""
    return " ".join(text[: 2 * limit].split())


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__}")
    return value


def _strings(value: object, name: str) -> tuple[str, ...]:
    if isinstance(value, str):  # tolerate "A, B, C" author strings
        value = value[: 2 * MAX_AUTHORS * MAX_AUTHOR_CHARS].split(",")
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TypeError(f"{name} must be a list of strings")
    return tuple(item.strip() for item in value[: 2 * MAX_AUTHORS] if item.strip())


def _day_from_name(path: Path) -> date | None:
    match = _DATE_IN_NAME.search(path.name)
    if not match:
        return None
    try:
        return date.fromisoformat(match.group(1))
    except ValueError:
        return None


def _most_common_day(days: Counter[str], path: Path) -> date:
    for text, _count in days.most_common():
        try:
            return date.fromisoformat(text[:10])
        except ValueError:
            continue
    raise FeedParseError(
        f"cannot tell which listing day {path} holds",
        hint="name the file YYYY-MM-DD.jsonl(.gz), add an 'announced' field, or pass --date",
    )
