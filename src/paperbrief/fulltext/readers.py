"""Who reads a pick's full text: arXiv (online), or the store alone (offline).

``Services`` picks one when it is built (``services.fulltext``); the pipeline asks it for
each pick's Document. Each reader knows its failures:

* ``ArxivFullText`` reads through ``load_or_read_paper`` (the store first, then arXiv HTML
  → ar5iv → PDF). A fetch that fails in any way gives an abstract-only Document flagged
  ``fetch-failed`` (``failed_document``), so the pick is written from its abstract and
  ``fetch_fallback`` says so; only a broken store or output folder (``errors.FATAL``) stops
  the day;
* ``StoredFullText`` gives what is stored, or None: an offline run never fetches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from paperbrief.errors import FATAL
from paperbrief.fulltext.fetch import DocumentCache, load_or_read_paper
from paperbrief.http import PoliteClient
from paperbrief.models import Document, Fallback, Paper
from paperbrief.text import shorten
from paperbrief.text.arxiv import AR5IV_BASE, HTML_BASE, PDF_BASE


class FullTextReader(Protocol):
    """How the pipeline gets a pick's Document (None: only the listing's abstract)."""

    def read(self, cache: DocumentCache, paper: Paper) -> Document | None: ...


@dataclass(frozen=True)
class ArxivFullText:
    """The full text from the store, else from arXiv (then stored); never raises for a
    paper it cannot read."""

    client: PoliteClient
    html_base: str = HTML_BASE
    ar5iv_base: str = AR5IV_BASE
    pdf_base: str = PDF_BASE

    def read(self, cache: DocumentCache, paper: Paper) -> Document:
        try:
            # The cache also checks the stored version against the paper's.
            return load_or_read_paper(
                cache,
                paper,
                self.client,
                html_base=self.html_base,
                ar5iv_base=self.ar5iv_base,
                pdf_base=self.pdf_base,
            )
        except FATAL:
            raise
        except Exception as error:  # a parser bug on one paper must not cost the day
            return failed_document(paper, error)


class StoredFullText:
    """Offline: only what the store holds."""

    def read(self, cache: DocumentCache, paper: Paper) -> Document | None:
        return cache.load(paper.id)


def failed_document(paper: Paper, error: BaseException) -> Document:
    """An abstract-only Document for a pick whose full-text stage raised."""
    return Document(
        arxiv_id=paper.id,
        title=paper.title,
        authors=paper.authors,
        abstract=paper.abstract,
        source="abstract",
        source_url=paper.abs_url,
        flags=("abstract-only", "fetch-failed"),
        attempts=(f"fulltext: fetch failed: {type(error).__name__}: {error}",),
    )


def fetch_fallback(document: Document | None) -> Fallback | None:
    """The fallback a Document records, if its full text could not be fetched."""
    if document is None or "fetch-failed" not in document.flags:
        return None
    detail = shorten("; ".join(document.attempts), 300)
    return Fallback("fulltext", "fetch", detail, document.arxiv_id)
