"""The ``arxiv.org/list/<cat>/new`` HTML page: the fallback when the feed is stale.

The page is a ``<dl id="articles">`` per section, headed by ``<h3>New submissions (showing
N of N entries)</h3>``, ``Cross submissions`` (older pages: ``Cross-lists``) and
``Replacement submissions``; each paper is a ``<dt>`` (the ``/abs/`` link, plus
"(cross-list from X)" or "(replaced)") followed by a ``<dd>`` with ``list-title``,
``list-authors``, ``list-comments``, ``list-subjects`` and, on ``/new``, the abstract.
A ``list-dateline`` says "Showing new listings for Friday, 22 May 2026". The same entry
markup is used by the ``/pastweek`` pages, whose day headings carry no kind; there an entry
is "new" unless its ``<dt>`` says it is a cross-list or a replacement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, datetime

from lxml import etree, html

from paperbrief.errors import FeedParseError
from paperbrief.text.arxiv import split_arxiv_id

_CATEGORY = re.compile(r"\(([a-z\-]+(?:\.[A-Za-z\-]+)?)\)\s*$")
_DATELINE = re.compile(r"(\d{1,2}\s+[A-Z][a-z]+\s+\d{4})")
_DAY_HEADING = re.compile(r"^[A-Z][a-z]{2},\s+(\d{1,2}\s+[A-Z][a-z]+\s+\d{4})")
_SHOWING = re.compile(r"showing (?:first )?(\d+) of (\d+) entr", re.IGNORECASE)


@dataclass(frozen=True)
class PageEntry:
    """One paper on a listing page; metadata fields are empty when the page lacks them."""

    id: str
    version: int | None
    kind: str  # new | cross | replace
    title: str = ""
    authors: tuple[str, ...] = ()
    abstract: str = ""
    comment: str | None = None
    categories: tuple[str, ...] = ()  # primary first
    primary_category: str = ""
    day: date | None = None  # the listing day it belongs to, when the page says


@dataclass(frozen=True)
class ListingPage:
    entries: tuple[PageEntry, ...]
    day: date | None  # from "Showing new listings for ...", when the page says so
    incomplete_days: tuple[date, ...] = ()  # /pastweek days shown only in part

    @property
    def days(self) -> tuple[date, ...]:
        """The listing days the entries belong to, newest first."""
        return tuple(sorted({e.day for e in self.entries if e.day}, reverse=True))


def listing_page_url(base: str, category: str) -> str:
    """``https://arxiv.org/list`` + ``cs.SE`` -> ``https://arxiv.org/list/cs.SE/new``."""
    return f"{base.rstrip('/')}/{category}/new"


def pastweek_page_url(base: str, category: str) -> str:
    """``https://arxiv.org/list`` + ``cs.SE`` -> ``.../list/cs.SE/pastweek``."""
    return f"{base.rstrip('/')}/{category}/pastweek"


def parse_listing_page(content: bytes, source: str = "arXiv listing page") -> ListingPage:
    """Parse a ``/list/<cat>/new`` (or ``/pastweek``) page into its entries, in page order.

    Raises ``FeedParseError`` when the page has no listing markup at all (an error page or a
    redesign); a page with the markup but no entries yields an empty ``ListingPage``.
    """
    if not content.strip():
        raise FeedParseError(f"{source} is empty", hint="rerun later")
    try:
        document = html.document_fromstring(content)
    except (etree.ParserError, ValueError) as error:
        raise FeedParseError(
            f"{source} is not parseable HTML: {error}", hint="rerun later"
        ) from error
    _normalise_math(document)
    if not document.xpath("//dl | //*[contains(@class, 'list-dateline')]"):
        raise FeedParseError(
            f"{source} has no listing (no <dl> of articles)",
            hint="arXiv sent an error page or changed its markup; use --listing FILE",
        )
    page_day = _dateline_day(document)
    section_kind: str | None = None
    section_day = page_day
    incomplete: list[date] = []
    entries: list[PageEntry] = []
    pending: tuple[str, int | None, str] | None = None
    for element in document.xpath("//h3 | //dt | //dd"):
        if element.tag == "h3":
            heading = _clean(element.text_content())
            section_kind = _section_kind(heading)
            section_day = _heading_day(heading) or page_day
            showing = _SHOWING.search(heading)
            if section_day and showing and int(showing.group(1)) < int(showing.group(2)):
                incomplete.append(section_day)
        elif element.tag == "dt":
            pending = _identify(element, section_kind)
        elif element.tag == "dd" and pending is not None:
            entries.append(replace(_entry(pending, element), day=section_day))
            pending = None
    if pending is not None:
        entries.append(
            PageEntry(id=pending[0], version=pending[1], kind=pending[2], day=section_day)
        )
    return ListingPage(entries=tuple(entries), day=page_day, incomplete_days=tuple(incomplete))


def _heading_day(heading: str) -> date | None:
    """``Fri, 22 Nov 2024 (showing 75 of 75 entries )`` -> 2024-11-22."""
    match = _DAY_HEADING.match(heading)
    if not match:
        return None
    for pattern in ("%d %b %Y", "%d %B %Y"):
        try:
            return datetime.strptime(match.group(1), pattern).date()
        except ValueError:
            continue
    return None


def _section_kind(heading: str) -> str | None:
    lowered = heading.lower()
    if lowered.startswith("new submission"):
        return "new"
    if lowered.startswith("cross"):
        return "cross"
    if lowered.startswith("replacement"):
        return "replace"
    return None  # a day heading of a /pastweek page


def _identify(dt: html.HtmlElement, section_kind: str | None) -> tuple[str, int | None, str]:
    links = dt.xpath(".//a[@title='Abstract']") or dt.xpath(".//a[contains(@href, '/abs/')]")
    if not links:
        raise FeedParseError(
            "a listing entry has no /abs/ link", hint="arXiv changed its listing markup"
        )
    href = links[0].get("href", "")
    raw = href.split("/abs/", 1)[-1] if "/abs/" in href else links[0].text_content()
    paper_id, version = split_arxiv_id(raw)
    text = dt.text_content().lower()
    if section_kind is not None:
        kind = section_kind
    elif "(replaced" in text:
        kind = "replace"
    elif "cross-list" in text:
        kind = "cross"
    else:
        kind = "new"
    return paper_id, version, kind


def _entry(identity: tuple[str, int | None, str], dd: html.HtmlElement) -> PageEntry:
    paper_id, version, kind = identity
    title = _field(dd, "list-title")
    authors_div = dd.xpath(".//*[contains(@class, 'list-authors')]")
    authors: tuple[str, ...] = ()
    if authors_div:
        authors = tuple(
            name for a in authors_div[0].xpath(".//a") if (name := _clean(a.text_content()))
        )
    categories, primary = _subjects(dd)
    abstract_nodes = dd.xpath(".//p[contains(@class, 'mathjax')]")
    abstract = _clean(abstract_nodes[0].text_content()) if abstract_nodes else ""
    return PageEntry(
        id=paper_id,
        version=version,
        kind=kind,
        title=title,
        authors=authors,
        abstract=abstract,
        comment=_field(dd, "list-comments") or None,
        categories=categories,
        primary_category=primary,
    )


def _field(dd: html.HtmlElement, css_class: str) -> str:
    nodes = dd.xpath(f".//*[contains(concat(' ', @class, ' '), ' {css_class} ')]")
    if not nodes:
        return ""
    node = nodes[0]
    for descriptor in node.xpath(".//span[@class='descriptor']"):
        descriptor.drop_tree()
    return _clean(node.text_content())


def _subjects(dd: html.HtmlElement) -> tuple[tuple[str, ...], str]:
    nodes = dd.xpath(".//*[contains(@class, 'list-subjects')]")
    if not nodes:
        return (), ""
    primary_nodes = nodes[0].xpath(".//span[contains(@class, 'primary-subject')]")
    primary_match = (
        _CATEGORY.search(_clean(primary_nodes[0].text_content())) if primary_nodes else None
    )
    primary = primary_match.group(1) if primary_match else ""
    text = _clean(nodes[0].text_content()).removeprefix("Subjects:")
    categories: list[str] = []
    for part in text.split(";"):
        match = _CATEGORY.search(part.strip())
        if match and match.group(1) not in categories:
            categories.append(match.group(1))
    if primary and primary in categories:
        categories.remove(primary)
        categories.insert(0, primary)
    return tuple(categories), primary or (categories[0] if categories else "")


def _dateline_day(document: html.HtmlElement) -> date | None:
    for node in document.xpath("//*[contains(@class, 'list-dateline')]"):
        match = _DATELINE.search(_clean(node.text_content()))
        if match:
            try:
                return datetime.strptime(match.group(1), "%d %B %Y").date()
            except ValueError:
                return None
    return None


def _normalise_math(document: html.HtmlElement) -> None:
    """Undo MathJax rendering in browser-saved pages: keep the TeX source as ``$...$``."""
    for script in document.xpath("//script[starts-with(@type, 'math/tex')]"):
        script.tag = "span"
        script.text = f"${script.text or ''}$"
        script.attrib.clear()
    for node in document.xpath(
        "//*[contains(@class, 'MathJax_Preview') or @class='MathJax' "
        "or contains(@class, 'MathJax_Display')]"
    ):
        node.drop_tree()


def _clean(text: str) -> str:
    return " ".join(text.split())
