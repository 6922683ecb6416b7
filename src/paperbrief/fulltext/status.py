"""What full text a brief was written from, and why not more: read from ``Document.attempts``.

The fetch stage records why each source it tried was not used (``"arxiv-html: …"``). A
digest must tell "arXiv has no HTML for this paper" apart from "the HTML could not be
fetched" (a timeout, DNS failure, a 5xx): the first is a fact about the paper, the second
about today's network. ``fulltext_status`` sorts a Document into one of these cases; the
writers turn it into a note in the digest's language.
"""

from __future__ import annotations

import re
from enum import StrEnum

from paperbrief.models import Document

# Reasons (substrings of fetch's attempt messages) that say a source does not exist or
# cannot be converted, as opposed to failing to arrive.
_ABSENT = ("has no html", "not available for the source", "redirected to the abstract")
_NOT_FOUND = re.compile(r"(?<![\w.:/])404(?![\w.])")  # the status, not a port or a path in a URL
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+")
_UNUSABLE = (
    "conversion failed",
    "conversion degraded",
    "no readable text",
    "not a pdf",
    "no extractable text",
    "could not be opened",
)
_HTML_SOURCES = ("arxiv-html", "ar5iv", "local-html")


class FullTextStatus(StrEnum):
    HTML = "html"  # arXiv HTML / ar5iv / a local page: text, tables and figures
    HTML_DEGRADED = "html-degraded"  # a LaTeXML page with many conversion errors
    PDF = "pdf"  # read from a PDF; no HTML was tried (a local file)
    PDF_NO_HTML = "pdf-no-html"  # arXiv has no HTML for the paper; read from the PDF
    PDF_HTML_FAILED = "pdf-html-failed"  # the HTML could not be fetched; read from the PDF
    PDF_HTML_UNUSABLE = "pdf-html-unusable"  # the HTML exists but its conversion failed
    ABSTRACT_FETCH_FAILED = "abstract-fetch-failed"  # every source failed to arrive
    ABSTRACT_NO_FULLTEXT = "abstract-no-fulltext"  # a source exists but has no usable text
    ABSTRACT_ABSENT = "abstract-absent"  # arXiv has neither HTML nor a PDF (404s)
    ABSTRACT = "abstract"  # only the abstract is known; no reason recorded
    NOT_FETCHED = "not-fetched"  # offline: the full text was not tried


def _reason_kind(attempt: str) -> str:
    reason = _URL.sub("", attempt.split(":", 1)[-1].lower())
    if any(word in reason for word in _ABSENT) or _NOT_FOUND.search(reason):
        return "absent"
    if any(word in reason for word in _UNUSABLE):
        return "unusable"
    return "unreachable"


def fulltext_status(doc: Document | None) -> FullTextStatus:
    """The case ``doc`` is in (``NOT_FETCHED`` for None: nothing was tried)."""
    if doc is None:
        return FullTextStatus.NOT_FETCHED
    if doc.source in _HTML_SOURCES:
        if "degraded-fallback" in doc.flags:
            return FullTextStatus.HTML_DEGRADED
        return FullTextStatus.HTML
    html_attempts = [a for a in doc.attempts if a.split(":", 1)[0] in ("arxiv-html", "ar5iv")]
    kinds = {_reason_kind(attempt) for attempt in doc.attempts}
    if doc.source in ("pdf", "local-pdf"):
        html_kinds = {_reason_kind(attempt) for attempt in html_attempts}
        if "unreachable" in html_kinds:
            return FullTextStatus.PDF_HTML_FAILED
        if "unusable" in html_kinds:
            return FullTextStatus.PDF_HTML_UNUSABLE
        return FullTextStatus.PDF_NO_HTML if html_attempts else FullTextStatus.PDF
    if "fetch-failed" in doc.flags or "unreachable" in kinds:
        return FullTextStatus.ABSTRACT_FETCH_FAILED
    if doc.attempts and kinds == {"absent"}:
        return FullTextStatus.ABSTRACT_ABSENT  # no HTML and no PDF at all (e.g. a 404)
    if doc.attempts:
        return FullTextStatus.ABSTRACT_NO_FULLTEXT
    return FullTextStatus.ABSTRACT
