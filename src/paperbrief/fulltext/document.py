"""The structured full text of one paper, and its two views for writers and the verifier.

This module fixes the shape other stages rely on; parsing lives beside it (``latexml.py``
for arXiv/ar5iv LaTeXML pages, ``author_html.py``, ``pdf.py``), fetching and the store
cache in ``fetch.py``, the views (budgeted text, evidence index, figure and results-table
choice) in ``views.py``. The store keeps Documents through its codec.

Flags a Document can carry: ``latexml-errors:N``, ``latexml-body-errors:N``,
``package-alerts:N``, ``no-title``, ``no-authors``, ``no-abstract``, ``missing-images:N``,
``svg-figures:N``, ``author-html``, ``pdf-no-tables``, ``pdf-no-figures``,
``pdf-no-sections``, ``metadata-from-listing``, ``degraded-fallback``, ``abstract-only``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from paperbrief.text import NumberMention

# A paragraph that quotes an example (a prompt, a dialogue, a code listing) starts with this
# mark: the writer sees it as a quotation, and its numbers are never evidence.
EXAMPLE_MARK = "> "


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
    # (row, column) slots that repeat a spanning cell (colspan/rowspan copies), so a
    # renderer can show a merged cell once while every column keeps its header text
    merged: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class FigureRef:
    caption: str
    url: str  # absolute, e.g. https://arxiv.org/html/2501.11120v1/x1.png
    label: str = ""  # e.g. "Figure 1"


@dataclass(frozen=True)
class Evidence:
    """A number-bearing sentence or table cell, and where it is.

    ``numbers`` are the evidence numbers as written; ``mentions`` the same numbers as the
    number grammar read them (a table cell's bare number carries its column's unit).
    """

    text: str
    location: str  # e.g. "Table 2" or "Section 4.1 Results"
    numbers: tuple[str, ...] = ()
    mentions: tuple[NumberMention, ...] = field(default=(), compare=False)
    cell: bool = False  # a table cell (its bare numbers may be in its column's unit)


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
