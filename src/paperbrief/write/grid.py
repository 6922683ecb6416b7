"""A table the PDF reader flattened into one sentence unit, read back as rows and columns.

A PDF's table often reaches the evidence index as one long "sentence": its header, then each
row's label followed by its cells ("… Google with GPT-4o - - - 0.2946 0.2573 0.2020 PaSa-7b
0.7071 0.5146 0.6111 …"). Its numbers are not one sentence's numbers: a value belongs to
the row whose label is written before it and to the column of its position in that row. The
verifier uses this to compute a difference or ratio only from two values of one row or one
column (``quantities.derived``) and to check the name a claim gives a value (``trace``).

A run of two or more cells (numbers, or "-" for an empty cell) separated by nothing but
spaces is a row; the words before it are its label. A unit with fewer than three such rows
is prose, not a table. A second table whose rows are labelled by numbers (the run after its
caption: "Table 8: … α Crawler Recall Crawler Actions 0.5 0.7227 175.9 1.0 0.7708 319.8 …")
is cut into rows by its period: each column holds one quantity, of one magnitude.
"""

from __future__ import annotations

import itertools
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
    if rows and _CAPTION.search(rows[-1].label):
        rows[-1:] = _numbered_rows(rows[-1])
    return tuple(rows) if len(rows) >= _MIN_ROWS else ()


# a caption inside a row's label: the run after it is the body of the next table
_CAPTION = re.compile(r"\b(?:Table|Tab\.)\s*[A-Z]?\d+[a-z]?\s*[:.]")
_MAGNITUDE = 10.0  # the most one column's values may differ by (one column, one quantity)


def _numbered_rows(run: GridRow) -> list[GridRow]:
    """The last run of a unit that holds a second table (its caption is in the run's label)
    and whose rows are labelled by numbers ("α Crawler Recall Crawler Actions 0.5 0.7227 175.9
    1.0 0.7708 319.8 …"), cut into its rows: by the shortest period whose first column rises
    and each of whose columns keeps one magnitude. The run stays whole when none does."""
    cells = run.cells
    if any(c is None for c in cells):
        return [run]
    values = [c.value * c.scale for c in cells if c is not None]
    for period in range(2, len(values) // 2 + 1):
        if len(values) % period:
            continue
        columns = [values[j::period] for j in range(period)]
        first = columns[0]
        rises = all(b > a for a, b in itertools.pairwise(first))
        if rises and all(_one_magnitude(column) for column in columns):
            return [
                GridRow(run.label if start == 0 else "", cells[start : start + period])
                for start in range(0, len(cells), period)
            ]
    return [run]


def _one_magnitude(values: list[float]) -> bool:
    low, high = min(values), max(values)
    return low > 0 and high / low <= _MAGNITUDE


def places(unit: Unit) -> dict[int, tuple[int, int, int]]:
    """id(mention) → (row, column, cells in its row) of each value of a flattened table."""
    found: dict[int, tuple[int, int, int]] = {}
    for row, grid_row in enumerate(grid_rows(unit)):
        for column, cell in enumerate(grid_row.cells):
            if cell is not None:
                found[id(cell)] = (row, column, len(grid_row.cells))
    return found
