"""LaTeXML HTML (arXiv's native /html pages, old and new chrome, and ar5iv) → Document.

``classify_html`` tells the kinds of page apart; ``parse_latexml`` reads a LaTeXML page.
Author-submitted HTML (served under arxiv.org/html for HTML-source papers) is parsed by
``author_html.parse_author_html``.

Contract of ``parse_latexml``: never raises on odd markup; what is missing is reported in
``Document.flags``: ``latexml-errors:N`` (``ltx_ERROR`` spans, removed from all text),
``latexml-body-errors:N`` (those outside the bibliography), ``package-alerts:N``,
``no-title``, ``no-abstract``, ``no-authors``, ``missing-images:N`` (figures whose image
failed to convert), ``svg-figures:N`` (figures drawn inline, with no image URL).
"""

from __future__ import annotations

import copy
import re
from typing import Literal
from urllib.parse import urljoin

from lxml.etree import _Element

from paperbrief.fulltext.html_text import (
    ARXIV_ORIGIN,
    class_list,
    element_text,
    has_class,
    normalize_space,
    page_base,
    paragraph_texts,
    parse_html,
    table_grid,
)
from paperbrief.models import Document, FigureRef, Section, Table

PageKind = Literal["latexml", "no-html", "author-html", "empty"]

NO_HTML_MARKERS = ("HTML is not available for the source", "No HTML for '")
_SECTION_LEVELS = {
    "ltx_section": 1,
    "ltx_appendix": 1,
    "ltx_subsection": 2,
    "ltx_subsubsection": 3,
    "ltx_paragraph": 4,
    "ltx_subparagraph": 5,
}
_AFFILIATION_WORDS = frozenset(
    {
        *("university", "universität", "université", "institute", "institut", "college"),
        *("school", "department", "dept", "laboratory", "lab", "labs", "ai", "inc", "ltd"),
        *("corp", "company", "research", "center", "centre", "academy", "technology"),
        *("google", "microsoft", "meta", "deepmind", "openai", "anthropic", "nvidia"),
        *("amazon", "apple", "hospital", "foundation", "aisi", "faculty", "berkeley"),
    }
)
_LABEL = re.compile(r"^\s*((?:Table|Figure|Fig\.|TABLE|FIGURE)\s*[\w.]+)\s*[:.|]?\s*")


def classify_html(text: str) -> PageKind:
    """What kind of page arXiv (or ar5iv) answered with.

    ``no-html``: arXiv's "No HTML for '<id>'" / "HTML is not available for the source." page;
    ``latexml``: a LaTeXML conversion (``ltx_page_main``/``ltx_document`` or the generator
    comment); ``author-html``: any other page with a body of some length (an HTML-source
    submission); ``empty``: nothing readable.
    """
    if any(marker in text for marker in NO_HTML_MARKERS) and "ltx_document" not in text:
        return "no-html"
    if "ltx_page_main" in text or "ltx_document" in text or "by LaTeXML" in text:
        return "latexml"
    body = re.sub(r"<[^>]+>", " ", text)
    if len(body.split()) >= 200:
        return "author-html"
    return "empty"


def _classes_of(element: _Element) -> set[str]:
    return set(class_list(element))


def _heading(section: _Element) -> tuple[str, str]:
    """(number, title) of a LaTeXML section element."""
    for child in section:
        if isinstance(child.tag, str) and child.tag[:1] == "h" and has_class(child, "ltx_title"):
            number = ""
            title = element_text(child)
            tag = next((t for t in child.iter("span") if "ltx_tag" in class_list(t)), None)
            if tag is not None:
                tag_text = element_text(tag)
                if title.startswith(tag_text):
                    title = title[len(tag_text) :].lstrip(" .:")
                number = re.sub(r"^(Appendix|Section)\s+", "", tag_text).rstrip(".:").strip()
            return number, title
    return "", ""


def _is_inside(element: _Element, article: _Element, predicate: object) -> bool:
    for ancestor in element.iterancestors():
        if ancestor is article:
            return False
        if predicate(ancestor):  # type: ignore[operator]
            return True
    return False


def _is_float(element: _Element) -> bool:
    return element.tag == "figure" or bool(
        _classes_of(element) & {"ltx_table", "ltx_figure", "ltx_float"}
    )


def _caption(figure: _Element) -> tuple[str, str]:
    """(label, caption text) of a float, e.g. ("Table 2", "Main results on …")."""
    captions = [child for child in figure if child.tag == "figcaption"]
    if not captions:
        captions = list(figure.iter("figcaption"))
    if not captions:
        return "", ""
    text = element_text(captions[0])
    match = _LABEL.match(text)
    if not match:
        return "", text
    label = match.group(1).replace("Fig.", "Figure").rstrip(":.")
    label = label[0] + label[1:].lower() if label.isupper() else label
    label = re.sub(r"^(Table|Figure)(?=\d)", r"\1 ", label)
    return label, text[match.end() :].strip()


def _nearest_section(element: _Element, sections: dict[int, int]) -> int | None:
    for ancestor in element.iterancestors("section"):
        index = sections.get(id(ancestor))
        if index is not None:
            return index
    return None


def parse_latexml(
    content: bytes | str,
    *,
    arxiv_id: str = "",
    page_url: str = "",
    origin: str = ARXIV_ORIGIN,
    source: str = "arxiv-html",
) -> Document:
    """Parse one LaTeXML page into a Document (see the module docstring for the flags)."""
    root = parse_html(content)
    article = root.find(".//article")
    if article is None:
        article = root.find(".//body")
    if article is None:
        article = root
    base = page_base(root, page_url, origin)
    flags: list[str] = []

    errors = [e for e in article.iter("span") if "ltx_ERROR" in class_list(e)]
    if errors:
        flags.append(f"latexml-errors:{len(errors)}")
        body_errors = sum(
            1
            for e in errors
            if not _is_inside(
                e, article, lambda a: a.tag == "section" and has_class(a, "ltx_bibliography")
            )
        )
        flags.append(f"latexml-body-errors:{body_errors}")
    alerts = root.xpath('//*[contains(@class, "package-alerts")]//li')
    if alerts:
        flags.append(f"package-alerts:{len(alerts)}")

    title_element = article.find(".//h1")
    title = element_text(title_element) if title_element is not None else ""
    if not title:
        flags.append("no-title")
    authors = _authors(article)
    if not authors:
        flags.append("no-authors")
    abstract_element = next((e for e in article.iter("div") if has_class(e, "ltx_abstract")), None)
    abstract = ""
    if abstract_element is not None:
        parts = [
            element_text(child)
            for child in abstract_element
            if not (isinstance(child.tag, str) and child.tag.startswith("h"))
        ]
        abstract = normalize_space(" ".join(parts))
    if not abstract:
        flags.append("no-abstract")

    # Sections in document order; the bibliography is read as references instead.
    section_elements: list[tuple[_Element, int, str, str]] = []
    index_of: dict[int, int] = {}
    references: list[str] = []
    for element in article.iter("section"):
        classes = _classes_of(element)
        if "ltx_bibliography" in classes:
            references.extend(
                element_text(item) for item in element.iter("li") if has_class(item, "ltx_bibitem")
            )
            continue
        level = next((lvl for name, lvl in _SECTION_LEVELS.items() if name in classes), None)
        if level is None:
            continue
        number, heading = _heading(element)
        index_of[id(element)] = len(section_elements)
        section_elements.append((element, level, number, heading))
    paragraphs: list[list[str]] = [[] for _ in section_elements]
    anchors: list[list[str]] = [[] for _ in section_elements]
    for para in article.xpath('.//div[contains(concat(" ", @class, " "), " ltx_para ")]'):
        if _is_inside(para, article, lambda a: has_class(a, "ltx_para") or _is_float(a)):
            continue
        where = _nearest_section(para, index_of)
        if where is not None:
            texts = paragraph_texts(para)
            paragraphs[where].extend(texts)
            anchors[where].extend([para.get("id", "")] * len(texts))
    sections = tuple(
        Section(
            heading=heading,
            level=level,
            paragraphs=tuple(paragraphs[i]),
            number=number,
            anchors=tuple(anchors[i]),
        )  # fmt: skip
        for i, (_, level, number, heading) in enumerate(section_elements)
    )

    tables = _tables(article, section_elements, index_of)
    figures, missing, svg = _figures(article, base)
    if missing:
        flags.append(f"missing-images:{missing}")
    if svg:
        flags.append(f"svg-figures:{svg}")
    return Document(
        arxiv_id=arxiv_id,
        title=title,
        authors=authors,
        abstract=abstract,
        sections=sections,
        tables=tables,
        figures=figures,
        references=tuple(r for r in references if r),
        source=source,
        source_url=page_url,
        flags=tuple(flags),
    )


def _authors(article: _Element) -> tuple[str, ...]:
    """Author names from ``ltx_personname`` blocks (affiliations, marks and e-mails dropped)."""
    names: list[str] = []
    for person in article.xpath('.//*[contains(@class, "ltx_personname")]'):
        person = copy.deepcopy(person)
        for node in list(person.iter()):
            if node is person:
                continue
            if node.tag == "br":
                node.tail = "\n" + (node.tail or "")
            elif node.tag == "sup" or _classes_of(node) & {
                "ltx_contact",
                "ltx_role_affiliation",
                "ltx_role_email",
                "ltx_note",
            }:
                node.tail = "\n" + (node.tail or "")
                node.drop_tree()
        text = person.text_content()
        for candidate in re.split(r"\n|,|\s{2,}|\band\b|&", text):
            name = normalize_space(candidate).strip("*†‡ ")
            words = name.split()
            if (
                2 <= len(words) <= 6
                and not any(ch.isdigit() or ch in "@()" for ch in name)
                and not _AFFILIATION_WORDS & {w.strip(".,").lower() for w in words}
                and name not in names
            ):
                names.append(name)
    return tuple(names)


def _tabulars(element: _Element) -> list[_Element]:
    """The outermost data tables of a float: LaTeXML tabulars, else (a table typeset as a
    math array) its equation tables, whose cells read as their TeX."""

    def outermost(tables: list[_Element]) -> list[_Element]:
        return [t for t in tables if not _is_inside(t, element, lambda a: a.tag == "table")]

    tabulars = outermost([t for t in element.iter("table") if "ltx_tabular" in class_list(t)])
    if tabulars:
        return tabulars
    return outermost([t for t in element.iter("table") if has_class(t, "ltx_equationgroup")
                      or has_class(t, "ltx_equation")])  # fmt: skip


def _grid(tabulars: list[_Element]) -> tuple[list[tuple[str, ...]], list[tuple[int, int]], int]:
    rows: list[tuple[str, ...]] = []
    merged: list[tuple[int, int]] = []
    header_rows = 0
    for tabular in tabulars:
        grid = table_grid(tabular)
        if not rows:
            header_rows = grid.header_rows
        merged.extend((row + len(rows), column) for row, column in grid.merged)
        rows.extend(grid.rows)
    return rows, merged, header_rows


def _sub_tables(figure: _Element) -> list[_Element]:
    """The table floats directly inside ``figure`` (its sub-tables), outermost only."""

    def nested(element: _Element) -> bool:
        return element.tag == "figure" and element is not figure and has_class(element, "ltx_table")

    return [
        sub
        for sub in figure.iter("figure")
        if sub is not figure and has_class(sub, "ltx_table") and not _is_inside(sub, figure, nested)
    ]


_SUB_LABEL = re.compile(r"^\(?([a-z])\)\s*")


def _tables(
    article: _Element,
    section_elements: list[tuple[_Element, int, str, str]],
    index_of: dict[int, int],
) -> tuple[Table, ...]:
    """Every table float; a float made of sub-tables ("(a) 2-people", "(b) 3-people") gives
    its own caption (no cells) and then one Table per sub-table: ``Table 2a`` with its
    sub-caption, so the text's "Table 2(b)" maps to its cells."""
    tables: list[Table] = []
    floats = article.xpath('.//figure[contains(concat(" ", @class, " "), " ltx_table ")]')
    for figure in floats:
        if _is_inside(figure, article, lambda a: a.tag == "figure" and has_class(a, "ltx_table")):
            continue  # a sub-table: read with its enclosing float below
        label, caption = _caption(figure)
        label = label or f"Table {len(tables) + 1}"
        where = _nearest_section(figure, index_of)
        section = ""
        if where is not None:
            _, _, number, heading = section_elements[where]
            section = " ".join(p for p in (number, heading) if p)
        subs = _sub_tables(figure)
        if subs:
            tables.append(Table(caption, label, (), 0, section, (), figure.get("id", "")))
            for position, sub in enumerate(subs):
                _, sub_caption = _caption(sub)
                letter_match = _SUB_LABEL.match(sub_caption)
                letter = letter_match.group(1) if letter_match else chr(ord("a") + position)
                rows, merged, header_rows = _grid(_tabulars(sub))
                tables.append(
                    Table(sub_caption or f"({letter})", f"{label}{letter}", tuple(rows),
                          header_rows, section, tuple(merged), sub.get("id", ""), label)
                )  # fmt: skip
            continue
        rows, merged, header_rows = _grid(_tabulars(figure))
        tables.append(
            Table(caption, label, tuple(rows), header_rows, section, tuple(merged),
                  figure.get("id", ""))
        )  # fmt: skip
    return tuple(tables)


def _figures(article: _Element, base: str) -> tuple[tuple[FigureRef, ...], int, int]:
    figures: list[FigureRef] = []
    missing = 0
    svg = 0
    floats = article.xpath('.//figure[contains(concat(" ", @class, " "), " ltx_figure ")]')
    for figure in floats:
        if _is_inside(figure, article, lambda a: a.tag == "figure" and has_class(a, "ltx_figure")):
            continue  # sub-figure: the enclosing float carries the caption
        label, caption = _caption(figure)
        images = list(figure.iter("img"))
        sources = [img.get("src", "").strip() for img in images]
        usable = [src for src in sources if src]
        missing += sum(
            1
            for img, src in zip(images, sources, strict=True)
            if not src or "ltx_missing" in class_list(img)
        )
        if not usable:
            if figure.find(".//svg") is not None:
                svg += 1
            if caption:  # a figure drawn inline (SVG) or whose image failed: its caption is text
                figures.append(FigureRef(caption=caption, url="", label=label,
                                         anchor=figure.get("id", "")))  # fmt: skip
            continue
        figures.append(FigureRef(caption=caption, url=urljoin(base, usable[0]), label=label,
                                 anchor=figure.get("id", "")))  # fmt: skip
    return tuple(figures), missing, svg
