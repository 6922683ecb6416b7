"""A table the PDF reader flattened into one sentence unit, read back as rows and columns.

A PDF's table often reaches the evidence index as one long "sentence": its header, then each
row's label followed by its cells ("… Google with GPT-4o - - - 0.2946 0.2573 0.2020 PaSa-7b
0.7071 0.5146 0.6111 …"). Its numbers are not one sentence's numbers: a value belongs to
the row whose label is written before it and to the column of its position in that row. The
verifier uses this to compute a difference or ratio only from two values of one row or one
column (``quantities.derived``) and to check the name a claim gives a value (``trace``).

A run of two or more cells (numbers, or "-" for an empty cell) separated by nothing but
spaces is a row; the words before it are its label. A unit with fewer than three such rows
is prose, not a table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from paperbrief.fulltext.units import Unit
from paperbrief.text import NumberMention

_TOKEN = re.compile(r"\S+")
_EMPTY = frozenset({"-", "–", "—", "−"})
_MIN_ROWS = 3
_MIN_CELLS = 2


@dataclass(frozen=True)
class GridRow:
    """One row of a flattened table: its label (the words before its cells) and its cells
    in order (None for an empty "-" cell)."""

    label: str
    cells: tuple[NumberMention | None, ...]


def grid_rows(unit: Unit) -> tuple[GridRow, ...]:
    """The rows of ``unit`` read as a flattened table; () when it is prose (or a cell)."""
    if unit.kind != "sentence" or unit.quoted:
        return ()
    starts = {m.start: m for m in unit.mentions if m.kind in ("value", "error") and not m.in_name}
    rows: list[GridRow] = []
    label: list[str] = []
    cells: list[NumberMention | None] = []

    def close() -> None:
        nonlocal label, cells
        if sum(c is not None for c in cells) >= _MIN_CELLS:
            rows.append(GridRow(" ".join(label), tuple(cells)))
            label = []
        elif cells:  # a lone number belongs to the label ("Recall@20", "L 6517")
            label.append(" ".join(c.text if c is not None else "-" for c in cells))
        cells = []

    for token in _TOKEN.finditer(unit.text):
        mention = starts.get(token.start()) or starts.get(token.start() + 1)
        if mention is not None and mention.end >= token.end() - 1:
            cells.append(mention)
        elif token.group(0) in _EMPTY:
            cells.append(None)
        else:
            close()
            label.append(token.group(0))
    close()
    return tuple(rows) if len(rows) >= _MIN_ROWS else ()


def places(unit: Unit) -> dict[int, tuple[int, int, int]]:
    """id(mention) → (row, column, cells in its row) of each value of a flattened table."""
    found: dict[int, tuple[int, int, int]] = {}
    for row, grid_row in enumerate(grid_rows(unit)):
        for column, cell in enumerate(grid_row.cells):
            if cell is not None:
                found[id(cell)] = (row, column, len(grid_row.cells))
    return found
