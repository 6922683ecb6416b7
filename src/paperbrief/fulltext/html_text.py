"""Small lxml helpers shared by the HTML parsers: element text, table grids, URL bases.

Text rules (both parsers): whitespace collapsed; ``<math>`` replaced by its TeX ``alttext``
(``$...$`` in running text, bare inside table cells, with a few symbols such as ``\\pm``
turned into their Unicode glyph so cells stay readable); LaTeXML error spans
(``ltx_ERROR``), footnotes, scripts and MathML annotations dropped. ``paragraph_texts``
also splits quoted examples (block quotes, code listings, framed boxes: prompts and
dialogues a paper shows) into paragraphs of their own, marked with ``EXAMPLE_MARK``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlparse

from lxml import html as lxml_html
from lxml.etree import _Element

from paperbrief.models import EXAMPLE_MARK
from paperbrief.text import arxiv, find_numbers

ARXIV_ORIGIN = arxiv.SITE + "/"
AR5IV_ORIGIN = arxiv.AR5IV_SITE + "/"

_SKIP_TAGS = frozenset({"script", "style", "annotation", "annotation-xml", "button", "noscript"})
_SKIP_CLASSES = ("ltx_ERROR", "ltx_note", "ltx_rdf", "ltx_tag_note")
_SPACES = re.compile(r"\s+")
_EXAMPLE_CLASSES = frozenset({"ltx_listing", "ltx_quote", "ltx_framed", "ltx_verbatim"})
_EXAMPLE_EDGE = "\ue000"  # private-use mark around an example block while text is collected
_CELL_SYMBOLS = {
    r"\pm": "±",
    r"\times": "×",
    r"\uparrow": "↑",
    r"\downarrow": "↓",
    r"\%": "%",
    r"\checkmark": "✓",
    r"\approx": "≈",
    r"\sim": "~",
    r"\leq": "≤",
    r"\geq": "≥",
    r"\dagger": "†",
    r"\star": "*",
    r"\ast": "*",
}
_TEX_WRAPPERS = re.compile(
    r"\\(?:mathbf|textbf|mathrm|text|bf|textit|mathit|underline)\{([^{}]*)\}"
)


def parse_html(content: bytes | str) -> _Element:
    """Parse a whole page with lxml.html (bytes keep the page's declared charset)."""
    if isinstance(content, str):
        content = content.encode("utf-8")
    return lxml_html.document_fromstring(content)


def class_list(element: _Element) -> list[str]:
    return (element.get("class") or "").split()


def has_class(element: _Element, name: str) -> bool:
    return name in class_list(element)


def _skipped(element: _Element) -> bool:
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag in _SKIP_TAGS:
        return True
    classes = class_list(element)
    return any(name in classes for name in _SKIP_CLASSES)


def _cell_math(tex: str) -> str:
    for command, glyph in _CELL_SYMBOLS.items():
        tex = tex.replace(command, glyph)
    tex = _TEX_WRAPPERS.sub(r"\1", tex)
    return tex.replace("{", "").replace("}", "").replace("$", "").strip()


def _is_example(element: _Element, tag: str) -> bool:
    if tag == "blockquote" or tag == "pre":
        return True
    return tag in ("div", "pre", "blockquote") and bool(_EXAMPLE_CLASSES & set(class_list(element)))


def _collect(element: _Element, out: list[str], cell: bool, examples: bool = False) -> None:
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag == "math":
        tex = (element.get("alttext") or "").strip()
        if tex:
            out.append(_cell_math(tex) if cell else f" ${tex}$ ")
        return
    if tag == "br":
        out.append(" ")
    elif not _skipped(element) and tag:
        example = examples and _is_example(element, tag)
        if example:
            out.append(_EXAMPLE_EDGE)
        if element.text:
            out.append(element.text)
        for child in element:
            _collect(child, out, cell, examples and not example)
            if child.tail:
                out.append(child.tail)
        if tag in {"p", "div", "li", "td", "th", "tr"}:
            out.append(" ")
        if example:
            out.append(_EXAMPLE_EDGE)


def element_text(element: _Element, *, cell: bool = False) -> str:
    """Visible text of ``element`` by the module's rules (tail text excluded)."""
    out: list[str] = []
    _collect(element, out, cell)
    return normalize_space("".join(out))


def paragraph_texts(element: _Element) -> list[str]:
    """The text of one paragraph element, with each quoted example inside it (block quote,
    listing, framed box) as a separate paragraph starting with ``EXAMPLE_MARK``."""
    out: list[str] = []
    _collect(element, out, cell=False, examples=True)
    parts = "".join(out).split(_EXAMPLE_EDGE)
    paragraphs = []
    for index, part in enumerate(parts):
        text = normalize_space(part.replace("⬇", " ").replace("␣", " "))
        if text:
            paragraphs.append(EXAMPLE_MARK + text if index % 2 else text)
    return paragraphs


def normalize_space(text: str) -> str:
    text = _SPACES.sub(" ", text).strip()
    # LaTeXML puts spaces before punctuation after removed notes; keep prose tidy.
    return re.sub(r" ([,.;:)])", r"\1", text).replace("( ", "(")


@dataclass(frozen=True)
class Grid:
    """One HTML table as a rectangular grid of cell texts.

    ``merged``: (row, column) slots that repeat a spanning cell (colspan / rowspan copies).
    """

    rows: tuple[tuple[str, ...], ...]
    header_rows: int
    merged: tuple[tuple[int, int], ...] = ()


_NUMBERING = re.compile(r"^[(（]?\d{1,2}[)）]?$")


def _has_value(cell: str) -> bool:
    return any(m.kind in ("value", "error") and m.standalone for m in find_numbers(cell))


def _header_like(row: tuple[str, ...]) -> bool:
    """A row that can be a header: no data number beyond the first column (column numbers
    such as ``(1) (2) (3)`` and years are labels, not data)."""
    cells = [cell for cell in row[1:] if cell]
    if not any(row):
        return False
    if cells and all(_NUMBERING.match(cell) for cell in cells):
        return True
    return not any(_has_value(cell) for cell in cells if not _NUMBERING.match(cell))


def _rule_row(classes: list[set[str]]) -> bool:
    """A row drawn under a booktabs \\midrule / \\hline (LaTeXML: ``ltx_border_t``)."""
    marked = [c for c in classes if c]
    return bool(marked) and all("ltx_border_t" in c for c in marked)


def table_grid(table: _Element) -> Grid:
    """The cell grid of one HTML ``<table>``, its header rows and its merged slots.

    Rows are those whose nearest ``<table>`` ancestor is ``table`` (nested tables stay inside
    their cell's text). ``colspan``/``rowspan`` copy a cell's text into every slot it covers
    (so each column keeps its header) and the copies are listed in ``merged``. Header rows:
    rows in ``<thead>`` or made only of ``<th>``/``ltx_th_column`` cells; else the rows above
    the first booktabs rule below the top (``ltx_border_t``), when they hold no data; else the
    leading rows that hold no data number (at most four, at least one).
    """
    trs: list[_Element] = [
        tr for tr in table.iter("tr") if next(tr.iterancestors("table"), None) is table
    ]
    grid: list[list[tuple[str, bool]]] = []
    explicit: list[bool] = []
    rules: list[bool] = []
    pending: dict[int, tuple[str, int]] = {}  # column -> (text, rows still covered)
    for tr in trs:
        cells = [child for child in tr if child.tag in ("td", "th")]
        parent = tr.getparent()
        in_head = parent is not None and parent.tag == "thead"
        header_cells = [
            cell.tag == "th"
            and "ltx_th_row" not in class_list(cell)
            or "ltx_th_column" in class_list(cell)
            for cell in cells
        ]
        explicit.append(bool(cells) and (in_head or all(header_cells)))
        rules.append(_rule_row([set(class_list(cell)) for cell in cells]))
        row: list[tuple[str, bool]] = []
        for cell in cells:
            _fill_pending(row, pending)
            text = element_text(cell, cell=True)
            colspan = _span(cell.get("colspan"))
            rowspan = _span(cell.get("rowspan"))
            for offset in range(colspan):
                if rowspan > 1:
                    pending[len(row)] = (text, rowspan - 1)
                row.append((text, offset > 0))
        _fill_pending(row, pending)
        grid.append(row)
    keep = [index for index, row in enumerate(grid) if any(text for text, _ in row)]
    width = max((len(grid[index]) for index in keep), default=0)
    rows = tuple(
        tuple(text for text, _ in grid[index]) + ("",) * (width - len(grid[index]))
        for index in keep
    )
    if not rows:
        return Grid((), 0)
    merged = tuple(
        (new, column)
        for new, index in enumerate(keep)
        for column, (text, copy) in enumerate(grid[index])
        if copy and text
    )
    explicit_kept = [explicit[index] for index in keep]
    rules_kept = [rules[index] for index in keep]
    return Grid(rows, _header_count(rows, explicit_kept, rules_kept), merged)


def _header_count(
    rows: tuple[tuple[str, ...], ...], explicit: list[bool], rules: list[bool]
) -> int:
    leading = 0
    while leading < len(rows) and explicit[leading]:
        leading += 1
    if leading:
        return min(leading, len(rows))
    limit = min(4, len(rows) - 1)
    header_like = 0
    while header_like < limit and _header_like(rows[header_like]):
        header_like += 1
    rule = next((i for i in range(1, limit + 1) if rules[i]), 0)
    if rule and all(_header_like(row) for row in rows[:rule]):
        return rule
    return max(header_like, 1)


def _fill_pending(row: list[tuple[str, bool]], pending: dict[int, tuple[str, int]]) -> None:
    """Append the cells that rows above cover with ``rowspan`` at the row's current end."""
    while len(row) in pending:
        column = len(row)
        text, left = pending[column]
        row.append((text, True))
        if left <= 1:
            del pending[column]
        else:
            pending[column] = (text, left - 1)


def _span(value: str | None) -> int:
    try:
        return max(1, min(int(value or 1), 100))
    except ValueError:
        return 1


def page_base(root: _Element, page_url: str, origin: str) -> str:
    """The absolute URL relative image paths resolve against.

    The page's ``<base href>`` is resolved against ``origin`` (``https://arxiv.org/`` for
    native pages, the ar5iv host for ar5iv), never against where the bytes came from: a page
    read from a local file or a loopback test server still gets arxiv.org image URLs.
    Without ``<base>``, the path of ``page_url`` is moved onto ``origin`` (a ``/html/<id>``
    path is treated as a folder, as arXiv serves it).
    """
    base = root.find(".//base")
    href = base.get("href") if base is not None else None
    if href:
        return urljoin(origin, href)
    path = urlparse(page_url).path if page_url else ""
    if not path:
        return origin
    if re.fullmatch(r"/html/[^/]+(?:/[^/.]+)?", path):
        path += "/"
    return urljoin(origin, path)
