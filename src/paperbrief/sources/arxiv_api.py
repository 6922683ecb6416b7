"""arXiv's export API (``export.arxiv.org/api/query``): full metadata for known ids.

The listing feed or page gives the day's ids; this module fetches their metadata in
``id_list`` batches (primary category, comment, full author list, current version). A
malformed query is answered with HTTP 400 and an Atom feed holding one ``Error`` entry; that
message is surfaced, not retried. An answer with no entries for a non-empty id list is
treated as arXiv's known transient "empty page" and retried by the client.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lxml import etree

from paperbrief.errors import FeedParseError, SourceError
from paperbrief.http import HttpResponse, HttpStatusError, PoliteClient
from paperbrief.models import Paper
from paperbrief.sources.xml import parse_untrusted_xml
from paperbrief.text.arxiv import split_arxiv_id

DEFAULT_API_BASE = "https://export.arxiv.org/api/query"
ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"


@dataclass(frozen=True)
class ApiPage:
    """One parsed API answer."""

    papers: tuple[Paper, ...]
    total_results: int | None


def parse_api_feed(content: bytes, source: str = "arXiv API answer") -> ApiPage:
    """Parse an export-API Atom feed into Papers (listings empty, ``announced`` unset).

    Raises ``SourceError`` carrying arXiv's message when the feed is an error feed, and
    ``FeedParseError`` when it is not well-formed Atom.
    """
    root = parse_untrusted_xml(content, source)
    if root.tag != f"{ATOM}feed":
        raise FeedParseError(
            f"{source} is not an Atom feed (root element {root.tag!r})",
            hint="point the API base URL at export.arxiv.org/api/query",
        )
    error = _error_message(root)
    if error is not None:
        raise SourceError(
            f"arXiv API refused the query: {error}",
            hint="an id in the request is malformed; check the listing's ids",
        )
    total_text = _text(root.find(f"{OPENSEARCH}totalResults"))
    total = int(total_text) if total_text.isdigit() else None
    papers = tuple(_paper(entry) for entry in root.iter(f"{ATOM}entry"))
    return ApiPage(papers=papers, total_results=total)


def fetch_papers(
    ids: Iterable[str],
    client: PoliteClient,
    *,
    api_base: str = DEFAULT_API_BASE,
    batch_size: int = 100,
) -> dict[str, Paper]:
    """Metadata for ``ids`` (with or without version), keyed by id without version.

    Ids arXiv does not know are simply absent from the result. One request per batch of
    ``batch_size`` ids, through the polite client (so 3 s apart). Raises ``SourceError`` if
    a batch cannot be fetched or arXiv refuses it.
    """
    unique = list(dict.fromkeys(split_arxiv_id(raw)[0] for raw in ids if raw.strip()))
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    found: dict[str, Paper] = {}
    for start in range(0, len(unique), batch_size):
        batch = unique[start : start + batch_size]
        params = {"id_list": ",".join(batch), "start": 0, "max_results": len(batch)}
        try:
            response = client.get(api_base, params, retry_if=_is_empty_page)
        except HttpStatusError as error:
            raise _refusal(error) from error
        page = parse_api_feed(response.content, f"arXiv API answer for {len(batch)} ids")
        for paper in page.papers:
            found[paper.id] = paper
    return found


def _is_empty_page(response: HttpResponse) -> bool:
    """arXiv's API sometimes answers a valid id_list with zero entries; retry those."""
    return b"<entry" not in response.content


def _refusal(error: HttpStatusError) -> SourceError:
    try:
        root = parse_untrusted_xml(error.response.content, "arXiv API error body")
        message = _error_message(root)
    except FeedParseError:
        message = None
    if message is None:
        return error
    return SourceError(
        f"arXiv API refused the query (HTTP {error.status}): {message}",
        hint="an id in the request is malformed; check the listing's ids (not retried)",
    )


def _error_message(root: etree._Element) -> str | None:
    for entry in root.iter(f"{ATOM}entry"):
        entry_id = _text(entry.find(f"{ATOM}id"))
        if "/api/errors" in entry_id:
            return _text(entry.find(f"{ATOM}summary")) or entry_id
    return None


def _paper(entry: etree._Element) -> Paper:
    raw_id = _text(entry.find(f"{ATOM}id"))
    paper_id, version = split_arxiv_id(raw_id)
    if not paper_id:
        raise FeedParseError("arXiv API answer has an entry without an id", hint="")
    categories = tuple(
        term for c in entry.findall(f"{ATOM}category") if (term := (c.get("term") or ""))
    )
    primary_element = entry.find(f"{ARXIV}primary_category")
    primary = primary_element.get("term", "") if primary_element is not None else ""
    primary = primary or (categories[0] if categories else "")
    if primary and primary not in categories:
        categories = (primary, *categories)
    authors = tuple(
        name
        for author in entry.findall(f"{ATOM}author")
        if (name := " ".join(_text(author.find(f"{ATOM}name")).split()))
    )
    comment = " ".join(_text(entry.find(f"{ARXIV}comment")).split()) or None
    return Paper(
        id=paper_id,
        title=" ".join(_text(entry.find(f"{ATOM}title")).split()),
        authors=authors,
        abstract=" ".join(_text(entry.find(f"{ATOM}summary")).split()),
        categories=categories,
        primary_category=primary,
        comment=comment,
        version=version,
    )


def _text(element: etree._Element | None) -> str:
    if element is None:
        return ""
    return "".join(element.itertext()).strip()
