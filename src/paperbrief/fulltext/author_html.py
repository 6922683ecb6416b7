"""Author-submitted HTML (HTML-source papers served under arxiv.org/html) → Document.

Such pages have no LaTeXML structure, so this reads what any HTML offers: the first ``<h1>``
(or ``<title>``) as title, ``<h1>``–``<h6>`` as section headings (levels relative to the
largest heading used below the title), ``<p>``/``<li>``/``<blockquote>``/``<dd>`` text as
paragraphs, ``<table>`` grids, and ``<img>`` as figures (caption = alt text). The result
is always flagged ``author-html`` (and ``no-abstract``: such pages have no marked abstract).
"""

from __future__ import annotations

import re
from urllib.parse import urljoin

from lxml.etree import _Element

from paperbrief.fulltext.html_text import (
    ARXIV_ORIGIN,
    element_text,
    page_base,
    parse_html,
    table_grid,
)
from paperbrief.models import Document, FigureRef, Section, Table

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_BLOCKS = frozenset({"p", "li", "blockquote", "dd", "pre"})


def parse_author_html(
    content: bytes | str, *, arxiv_id: str = "", page_url: str = "", source: str = "arxiv-html"
) -> Document:
    """Parse an author-submitted page; see the module docstring for what is read."""
    root = parse_html(content)
    body = root.find(".//body")
    if body is None:
        body = root
    base = page_base(root, page_url, ARXIV_ORIGIN)
    headings = [e for e in body.iter(*_HEADINGS)]
    title_element = next((h for h in headings if h.tag == "h1"), None)
    title = element_text(title_element) if title_element is not None else ""
    if not title:
        title_tag = root.find(".//title")
        title = element_text(title_tag) if title_tag is not None else ""
    levels = sorted({int(h.tag[1]) for h in headings if h is not title_element})
    level_of = {level: rank + 1 for rank, level in enumerate(levels)}

    sections: list[Section] = []
    current: tuple[str, int] | None = None
    paragraphs: list[str] = []
    tables: list[Table] = []
    figures: list[FigureRef] = []
    for element in body.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag in _HEADINGS:
            if element is title_element:
                continue
            if current is not None:
                sections.append(Section(current[0], current[1], tuple(paragraphs)))
            current = (element_text(element), level_of.get(int(tag[1]), 1))
            paragraphs = []
        elif tag in _BLOCKS and not any(a.tag in _BLOCKS for a in element.iterancestors()):
            text = element_text(element)
            if text and current is not None:
                paragraphs.append(text)
        elif tag == "table" and not any(a.tag == "table" for a in element.iterancestors()):
            grid = table_grid(element)
            if grid.rows and len(grid.rows[0]) > 1:
                tables.append(
                    Table(
                        caption=_table_caption(element),
                        label=f"Table {len(tables) + 1}",
                        rows=grid.rows,
                        header_rows=grid.header_rows,
                        section=current[0] if current else "",
                        merged=grid.merged,
                    )
                )
        elif tag == "img":
            src = (element.get("src") or "").strip()
            if src:
                figures.append(
                    FigureRef(
                        caption=(element.get("alt") or "").strip(),
                        url=urljoin(base, src),
                        label=f"Figure {len(figures) + 1}",
                    )
                )
    if current is not None:
        sections.append(Section(current[0], current[1], tuple(paragraphs)))
    references = [
        paragraph
        for s in sections
        if s.heading.lower() in ("references", "bibliography")
        for paragraph in s.paragraphs
    ]
    sections = [
        _split_number(s)
        for s in sections
        if s.heading.lower() not in ("references", "bibliography")
    ]
    return Document(
        arxiv_id=arxiv_id,
        title=title,
        authors=(),
        abstract="",
        sections=tuple(sections),
        tables=tuple(tables),
        figures=tuple(figures),
        references=tuple(references),
        source=source,
        source_url=page_url,
        flags=("author-html", "no-abstract"),
    )


def _table_caption(table: _Element) -> str:
    caption = table.find("caption")
    return element_text(caption) if caption is not None else ""


def _split_number(section: Section) -> Section:
    match = re.match(r"^(\d+(?:\.\d+)*)\.?\s+(.+)$", section.heading)
    if not match:
        return section
    return Section(match.group(2), section.level, section.paragraphs, number=match.group(1))
