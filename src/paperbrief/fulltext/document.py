"""The structured full text of one paper, and its two views for writers and the verifier.

This module fixes the shape other stages rely on; parsing lives beside it (``latexml.py``
for arXiv/ar5iv LaTeXML pages, ``author_html.py``, ``pdf.py``), fetching and the store
cache in ``fetch.py``, the views (budgeted text, evidence index, figure and results-table
choice) in ``views.py``. ``document_to_json``/``document_from_json`` are the store format.

Flags a Document can carry: ``latexml-errors:N``, ``latexml-body-errors:N``,
``package-alerts:N``, ``no-title``, ``no-authors``, ``no-abstract``, ``missing-images:N``,
``svg-figures:N``, ``author-html``, ``pdf-no-tables``, ``pdf-no-figures``,
``pdf-no-sections``, ``metadata-from-listing``, ``degraded-fallback``, ``abstract-only``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

DOCUMENT_JSON_VERSION = 1


@dataclass(frozen=True)
class Section:
    heading: str
    level: int  # 1 = section, 2 = subsection, …
    paragraphs: tuple[str, ...] = ()  # math kept as its TeX alt-text
    number: str = ""  # e.g. "4.1" ("A" for an appendix, "" when unnumbered)

    @property
    def location(self) -> str:
        """Where a sentence of this section is, e.g. ``Section 4.1 Results``."""
        return " ".join(part for part in ("Section", self.number, self.heading) if part)


@dataclass(frozen=True)
class Table:
    caption: str
    label: str  # e.g. "Table 2"
    rows: tuple[tuple[str, ...], ...]  # cell grid after expanding colspan/rowspan
    header_rows: int = 1
    section: str = ""  # heading of the section the table sits in


@dataclass(frozen=True)
class FigureRef:
    caption: str
    url: str  # absolute, e.g. https://arxiv.org/html/2501.11120v1/x1.png
    label: str = ""  # e.g. "Figure 1"


@dataclass(frozen=True)
class Evidence:
    """A number-bearing sentence or table cell, and where it is."""

    text: str
    location: str  # e.g. "Table 2" or "Section 4.1 Results"
    numbers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Document:
    arxiv_id: str
    title: str
    authors: tuple[str, ...]
    abstract: str
    sections: tuple[Section, ...] = ()
    tables: tuple[Table, ...] = ()
    figures: tuple[FigureRef, ...] = ()
    references: tuple[str, ...] = ()
    source: str = "abstract"  # arxiv-html | ar5iv | pdf | abstract | local-html | local-pdf
    source_url: str = ""
    flags: tuple[str, ...] = ()  # quality flags, e.g. "latexml-errors:7", "no-abstract"
    attempts: tuple[str, ...] = field(default=())  # why earlier sources failed


def document_to_json(document: Document) -> str:
    """Serialise a Document (the store's ``documents.body``); inverse of ``document_from_json``."""
    data = asdict(document)
    data["json_version"] = DOCUMENT_JSON_VERSION
    return json.dumps(data, ensure_ascii=False)


def document_from_json(text: str) -> Document:
    """Rebuild a Document from ``document_to_json`` output (lists become tuples again)."""
    data: dict[str, Any] = json.loads(text)
    data.pop("json_version", None)
    return Document(
        arxiv_id=data["arxiv_id"],
        title=data["title"],
        authors=tuple(data["authors"]),
        abstract=data["abstract"],
        sections=tuple(
            Section(
                heading=s["heading"],
                level=s["level"],
                paragraphs=tuple(s["paragraphs"]),
                number=s.get("number", ""),
            )
            for s in data["sections"]
        ),
        tables=tuple(
            Table(
                caption=t["caption"],
                label=t["label"],
                rows=tuple(tuple(row) for row in t["rows"]),
                header_rows=t["header_rows"],
                section=t["section"],
            )
            for t in data["tables"]
        ),
        figures=tuple(FigureRef(**f) for f in data["figures"]),
        references=tuple(data["references"]),
        source=data["source"],
        source_url=data["source_url"],
        flags=tuple(data["flags"]),
        attempts=tuple(data["attempts"]),
    )
