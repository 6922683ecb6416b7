"""arXiv's daily listing feeds: ``rss.arxiv.org/atom/<cats>`` (Atom) and ``/rss/<cats>``.

Both formats carry, per entry, the id with version, an ``arxiv:announce_type`` (new, cross,
replace, replace-cross), the categories (primary first), the title, the authors in one
``dc:creator`` string and a description of the form
``arXiv:2508.13167v1 Announce Type: new \\nAbstract: ...``.
On days without an announcement the feed is valid but has no entries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from email.utils import parsedate_to_datetime

from lxml import etree

from paperbrief.errors import FeedParseError
from paperbrief.sources.xml import parse_untrusted_xml
from paperbrief.text.arxiv import split_arxiv_id

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
DC = "{http://purl.org/dc/elements/1.1/}"

ANNOUNCE_TYPES = frozenset({"new", "cross", "replace", "replace-cross"})
_ABSTRACT_PREFIX = re.compile(
    r"^\s*arXiv:\S+\s+Announce Type:\s*(?P<type>[\w-]+)\s*Abstract:\s*", re.IGNORECASE
)


@dataclass(frozen=True)
class FeedEntry:
    """One announced paper as the feed describes it."""

    id: str  # without version
    version: int | None
    announce_type: str  # new | cross | replace | replace-cross
    categories: tuple[str, ...]  # primary first, as arXiv lists them
    title: str
    abstract: str
    authors: tuple[str, ...]
    day: date | None  # the listing day the entry was published for

    @property
    def kind(self) -> str:
        """The listing kind: ``new``, ``cross`` or ``replace`` (both replace types)."""
        return "replace" if self.announce_type.startswith("replace") else self.announce_type


@dataclass(frozen=True)
class Feed:
    """A parsed listing feed; ``day`` is the listing day it announces, if stated."""

    entries: tuple[FeedEntry, ...]
    day: date | None
    title: str = ""


def feed_url(base: str, categories: list[str]) -> str:
    """``https://rss.arxiv.org/atom`` + ``["cs.SE", "cs.AI"]`` -> ``.../atom/cs.SE+cs.AI``."""
    if not categories:
        raise ValueError("at least one category is needed for a feed URL")
    return f"{base.rstrip('/')}/{'+'.join(categories)}"


def parse_feed(content: bytes, source: str = "arXiv feed") -> Feed:
    """Parse an arXiv Atom or RSS 2.0 listing feed.

    Raises ``FeedParseError`` for malformed XML (e.g. truncated mid-entry), for a document
    that is neither Atom nor RSS, or for an entry without a usable id.
    """
    root = parse_untrusted_xml(content, source)
    if root.tag == f"{ATOM}feed":
        entries = [_atom_entry(element, source) for element in root.iter(f"{ATOM}entry")]
        title = _text(root.find(f"{ATOM}title"))
        feed_day = None
    elif root.tag == "rss":
        channel = root.find("channel")
        if channel is None:
            raise FeedParseError(f"{source} is RSS without a <channel>", hint=_HINT_FORMAT)
        entries = [_rss_item(element, source) for element in channel.iter("item")]
        title = _text(channel.find("title"))
        feed_day = _rfc822_day(_text(channel.find("pubDate")))
    else:
        raise FeedParseError(
            f"{source} is neither an Atom nor an RSS feed (root element {root.tag!r})",
            hint=_HINT_FORMAT,
        )
    days = [entry.day for entry in entries if entry.day]
    if days:
        feed_day = max(set(days), key=days.count)
    return Feed(entries=tuple(entries), day=feed_day, title=title)


_HINT_FORMAT = "point the feed base URL at rss.arxiv.org/atom or rss.arxiv.org/rss"


def _atom_entry(element: etree._Element, source: str) -> FeedEntry:
    raw_id = _text(element.find(f"{ATOM}id"))
    categories = tuple(
        term for c in element.findall(f"{ATOM}category") if (term := (c.get("term") or ""))
    )
    published = _text(element.find(f"{ATOM}published"))
    return _entry(
        raw_id=raw_id,
        declared_type=_text(element.find(f"{ARXIV}announce_type")),
        categories=categories,
        title=_text(element.find(f"{ATOM}title")),
        description=_text(element.find(f"{ATOM}summary")),
        creators=_text(element.find(f"{DC}creator")),
        day=_iso_day(published),
        source=source,
    )


def _rss_item(element: etree._Element, source: str) -> FeedEntry:
    raw_id = _text(element.find("guid")) or _text(element.find("link"))
    categories = tuple(text for c in element.findall("category") if (text := _text(c)))
    return _entry(
        raw_id=raw_id,
        declared_type=_text(element.find(f"{ARXIV}announce_type")),
        categories=categories,
        title=_text(element.find("title")),
        description=_text(element.find("description")),
        creators=_text(element.find(f"{DC}creator")),
        day=_rfc822_day(_text(element.find("pubDate"))),
        source=source,
    )


def _entry(
    *,
    raw_id: str,
    declared_type: str,
    categories: tuple[str, ...],
    title: str,
    description: str,
    creators: str,
    day: date | None,
    source: str,
) -> FeedEntry:
    paper_id, version = split_arxiv_id(raw_id.removeprefix("oai:arXiv.org:"))
    if not paper_id:
        raise FeedParseError(f"{source} has an entry without an id", hint=_HINT_FORMAT)
    match = _ABSTRACT_PREFIX.match(description)
    announce_type = (declared_type or (match.group("type") if match else "new")).lower()
    if announce_type not in ANNOUNCE_TYPES:
        raise FeedParseError(
            f"{source}: entry {paper_id} has unknown announce type {announce_type!r}",
            hint="arXiv changed its feed format; please report this",
        )
    abstract = description[match.end() :] if match else description
    return FeedEntry(
        id=paper_id,
        version=version,
        announce_type=announce_type,
        categories=categories,
        title=" ".join(title.split()),
        abstract=" ".join(abstract.split()),
        authors=split_authors(creators),
        day=day,
    )


def split_authors(creators: str) -> tuple[str, ...]:
    """``"A, B and C"`` / ``"A, B, C"`` -> ``("A", "B", "C")``."""
    text = " ".join(creators.split())
    if not text:
        return ()
    parts = re.split(r",\s*(?:and\s+)?|\s+and\s+", text)
    return tuple(part.strip() for part in parts if part.strip())


def _text(element: etree._Element | None) -> str:
    if element is None:
        return ""
    return "".join(element.itertext()).strip()


def _iso_day(text: str) -> date | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text).date()
    except ValueError:
        return None


def _rfc822_day(text: str) -> date | None:
    if not text:
        return None
    try:
        return parsedate_to_datetime(text).date()
    except (TypeError, ValueError):
        return None
