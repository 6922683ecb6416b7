"""Small lxml helpers shared by the HTML parsers: element text, table grids, URL bases.

Text rules (both parsers): whitespace collapsed; ``<math>`` replaced by its TeX ``alttext``
(``$...$`` in running text, bare inside table cells, with a few symbols such as ``\\pm``
turned into their Unicode glyph so cells stay readable); LaTeXML error spans
(``ltx_ERROR``), footnotes, scripts and MathML annotations dropped.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlparse

from lxml import html as lxml_html
from lxml.etree import _Element

ARXIV_ORIGIN = "https://arxiv.org/"
AR5IV_ORIGIN = "https://ar5iv.labs.arxiv.org/"

_SKIP_TAGS = frozenset({"script", "style", "annotation", "annotation-xml", "button", "noscript"})
_SKIP_CLASSES = ("ltx_ERROR", "ltx_note", "ltx_rdf", "ltx_tag_note")
_SPACES = re.compile(r"\s+")
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


def _collect(element: _Element, out: list[str], cell: bool) -> None:
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag == "math":
        tex = (element.get("alttext") or "").strip()
        if tex:
            out.append(_cell_math(tex) if cell else f" ${tex}$ ")
        return
    if tag == "br":
        out.append(" ")
    elif not _skipped(element) and tag:
        if element.text:
            out.append(element.text)
        for child in element:
            _collect(child, out, cell)
            if child.tail:
                out.append(child.tail)
        if tag in {"p", "div", "li", "td", "th", "tr"}:
            out.append(" ")


def element_text(element: _Element, *, cell: bool = False) -> str:
    """Visible text of ``element`` by the module's rules (tail text excluded)."""
    out: list[str] = []
    _collect(element, out, cell)
    return normalize_space("".join(out))


def normalize_space(text: str) -> str:
    text = _SPACES.sub(" ", text).strip()
    # LaTeXML puts spaces before punctuation after removed notes; keep prose tidy.
    return re.sub(r" ([,.;:)])", r"\1", text).replace("( ", "(")


def table_grid(table: _Element) -> tuple[tuple[tuple[str, ...], ...], int]:
    """The cell grid of one HTML ``<table>`` and how many leading rows are header rows.

    Rows are those whose nearest ``<table>`` ancestor is ``table`` (nested tables stay inside
    their cell's text). ``colspan``/``rowspan`` copy a cell's text into every slot it covers,
    so each row has the same width. Header rows: rows in ``<thead>``, else the leading rows
    made only of ``<th>`` cells, else 1.
    """
    rows: list[_Element] = [
        tr for tr in table.iter("tr") if next(tr.iterancestors("table"), None) is table
    ]
    grid: list[list[str | None]] = []
    pending: dict[int, tuple[str, int]] = {}  # column -> (text, rows still covered)
    header_rows = 0
    header_done = False
    for index, tr in enumerate(rows):
        cells = [child for child in tr if child.tag in ("td", "th")]
        in_head = tr.getparent() is not None and tr.getparent().tag == "thead"
        all_th = bool(cells) and all(cell.tag == "th" for cell in cells)
        if not header_done and (in_head or all_th):
            header_rows = index + 1
        else:
            header_done = True
        row: list[str | None] = []
        for cell in cells:
            _fill_pending(row, pending)
            text = element_text(cell, cell=True)
            colspan = _span(cell.get("colspan"))
            rowspan = _span(cell.get("rowspan"))
            for _ in range(colspan):
                if rowspan > 1:
                    pending[len(row)] = (text, rowspan - 1)
                row.append(text)
        _fill_pending(row, pending)
        grid.append(row)
    width = max((len(row) for row in grid), default=0)
    result = tuple(
        tuple((cell or "") for cell in row) + ("",) * (width - len(row))
        for row in grid
        if any(cell for cell in row)
    )
    if not result:
        return (), 0
    return result, min(max(header_rows, 1), len(result))


def _fill_pending(row: list[str | None], pending: dict[int, tuple[str, int]]) -> None:
    """Append the cells that rows above cover with ``rowspan`` at the row's current end."""
    while len(row) in pending:
        column = len(row)
        text, left = pending[column]
        row.append(text)
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
