"""Tables as a reader needs them: composed column labels, row labels, merged cells once.

* ``column_labels``: one label per column from all header rows (``Outcome A / (1)``);
* ``label_column``: the column that names the rows — the first *text* column, so a
  numbering column (``1``, ``(2)``) or a column of row numbers is never taken for a label;
* ``row_labels``: each body row's label (a row without one, such as the standard-error row
  under a coefficient, takes the label above it);
* ``display_rows``: body rows with merged slots blanked, so a spanning cell shows once;
* ``table_to_markdown`` / ``to_table_data``: the table for the writer and the digest;
* ``is_example_table``: a table of prompts, dialogues or example answers (not evidence);
* ``rank_results_tables``: the paper's results tables, best first.
"""

from __future__ import annotations

import re

from paperbrief.fulltext.roles import RoledSection, roled_sections, table_references
from paperbrief.models import Document, Table, TableData
from paperbrief.text import find_numbers

_NUMBERING = re.compile(r"^[(（]?\d{1,3}[)）.]?$")
_EXAMPLE_CAPTION = re.compile(
    r"\b(?:prompts?|templates?|examples?|example (?:question|dialog|response)s?|dialog(?:ue)?s?|"
    r"conversations?|paraphras\w*|instructions?|questions|trivia|responses?|transcripts?|"
    r"samples? of|word list|rewordings?|system prompt|generations?)\b",
    re.IGNORECASE,
)
_RESULT_CAPTION = (
    ("main result", 2.0),
    ("result", 1.0),
    ("performance", 1.0),
    ("comparison", 1.0),
    ("compared", 0.5),
    ("accuracy", 0.5),
    ("effect", 1.0),
    ("treatment", 1.0),
    ("estimate", 1.0),
    ("regression", 0.5),
    ("outcome", 0.5),
    ("baseline", 0.5),
    ("ablation", 0.5),
    ("evaluation", 0.5),
    ("success rate", 0.5),
    ("pass@", 0.5),
    ("score", 0.3),
)
_DESCRIPTIVE_CAPTION = (
    "summary statistic",
    "descriptive",
    "hyperparameter",
    "balance",
    "data composition",
    "finetuning detail",
    "training detail",
    "implementation detail",
    "overview of",
    "notation",
    "list of",
    "dataset statistic",
)


def _numeric(cell: str) -> bool:
    return any(m.kind in ("value", "error") and m.standalone for m in find_numbers(cell))


def body(table: Table) -> tuple[tuple[str, ...], ...]:
    return table.rows[table.header_rows :]


def column_labels(table: Table) -> list[str]:
    """One label per column, composed from every header row (duplicates once, in order)."""
    if not table.rows:
        return []
    width = max(len(row) for row in table.rows)
    labels = []
    for column in range(width):
        parts: list[str] = []
        for row in table.rows[: max(table.header_rows, 1)]:
            cell = row[column] if column < len(row) else ""
            if cell and cell not in parts:
                parts.append(cell)
        labels.append(" / ".join(parts))
    return labels


def _numbering(cells: list[str]) -> bool:
    """A column that only counts rows: 1, 2, 3 … or (1), (2), (3) …, in order."""
    numbers = []
    for cell in cells:
        if not _NUMBERING.match(cell):
            return False
        numbers.append(int(re.sub(r"\D", "", cell)))
    return bool(numbers) and all(b == a + 1 for a, b in zip(numbers, numbers[1:], strict=False))


def numbering_columns(table: Table) -> set[int]:
    """Columns that only number the rows (never a label, never evidence)."""
    rows = body(table)
    width = max((len(row) for row in rows), default=0)
    return {
        column
        for column in range(width)
        if _numbering([row[column] for row in rows if column < len(row) and row[column]])
    }


def label_column(table: Table) -> int:
    """The first column whose body cells are mostly text (not numbers, not numbering);
    the first non-numbering column when every column is numeric; -1 for an empty table."""
    rows = body(table)
    if not rows:
        return 0 if table.rows else -1
    width = max(len(row) for row in rows)
    numbering = numbering_columns(table)
    for column in range(width):
        cells = [row[column] for row in rows if column < len(row) and row[column]]
        if not cells or column in numbering:
            continue
        texts = sum(1 for cell in cells if not _numeric(cell))
        if texts * 2 >= len(cells):
            return column
    return next((c for c in range(width) if c not in numbering), 0)


def row_labels(table: Table) -> list[str]:
    """The label of each body row; a row without one inherits the label above it."""
    column = label_column(table)
    labels: list[str] = []
    previous = ""
    for row in body(table):
        cell = row[column] if 0 <= column < len(row) else ""
        previous = cell or previous
        labels.append(previous)
    return labels


def display_rows(table: Table) -> list[tuple[str, ...]]:
    """Body rows with merged slots blanked: a spanning cell appears once."""
    merged = set(table.merged)
    width = max((len(row) for row in table.rows), default=0)
    out = []
    for offset, row in enumerate(body(table)):
        index = offset + table.header_rows
        padded = tuple(row) + ("",) * (width - len(row))
        out.append(tuple("" if (index, c) in merged else cell for c, cell in enumerate(padded)))
    return out


def _escape_cell(cell: str) -> str:
    return cell.replace("|", "\\|").replace("\n", " ")


def table_to_markdown(table: Table, max_rows: int | None = None) -> str:
    """A Markdown table: composed column labels, merged cells once, pipes escaped.

    With ``max_rows``, longer tables keep their first rows and say how many were left out.
    """
    if not table.rows:
        return ""
    header = column_labels(table)
    rows = display_rows(table)
    omitted = 0
    if max_rows is not None and len(rows) > max_rows:
        omitted = len(rows) - max_rows
        rows = rows[:max_rows]
    out = ["| " + " | ".join(_escape_cell(c) for c in header) + " |", "|" + "---|" * len(header)]
    out.extend("| " + " | ".join(_escape_cell(c) for c in row) + " |" for row in rows)
    if omitted:
        out.append(f"(… {omitted} more rows)")
    return "\n".join(out)


def to_table_data(table: Table) -> TableData:
    """The digest's ``TableData``: composed header, merged cells shown once."""
    if not table.rows:
        return TableData(header=(), rows=(), caption=table.caption)
    caption = f"{table.label}: {table.caption}" if table.label else table.caption
    return TableData(
        header=tuple(column_labels(table)), rows=tuple(display_rows(table)), caption=caption
    )


def is_example_table(table: Table) -> bool:
    """A table of prompts, questions, dialogues or example outputs rather than measurements:
    its caption says so, or its cells are long prose."""
    if _EXAMPLE_CAPTION.search(table.caption) and numeric_share(table) < 0.5:
        return True
    cells = [cell for row in table.rows for cell in row if cell]
    words = sum(len(cell.split()) for cell in cells)
    return bool(cells) and words / len(cells) > 14


def numeric_share(table: Table) -> float:
    """Share of body cells (outside the label column) that hold a number."""
    skip = {label_column(table), *numbering_columns(table)}
    cells = [c for row in body(table) for i, c in enumerate(row) if c and i not in skip]
    if not cells:
        return 0.0
    return sum(1 for cell in cells if _numeric(cell)) / len(cells)


def _references_by_table(roled: list[RoledSection]) -> dict[str, list[RoledSection]]:
    where: dict[str, list[RoledSection]] = {}
    for section in roled:
        for paragraph in section.section.paragraphs:
            for label in table_references(paragraph):
                if section not in where.setdefault(label, []):
                    where[label].append(section)
    return where


def rank_results_tables(doc: Document) -> list[Table]:
    """The paper's tables that hold results, best first.

    A table ranks by where the paper talks about it: referenced from (or placed in) a
    main-body results section first, then discussion; appendix tables (lettered labels, or
    only placed and referenced in the appendix) last. Within a rank: how often the results
    sections cite it, caption words (main results, effect, comparison …; summary statistics,
    hyperparameters, data composition count against), the share of numeric cells, and
    document order. Example tables (prompts, dialogues) and tables with fewer than two body
    rows or under 30 % numeric cells are never results tables.
    """
    roled = roled_sections(doc)
    by_title = {r.title: r for r in roled}
    referenced = _references_by_table(roled)
    scored: list[tuple[tuple[float, ...], Table]] = []
    for position, table in enumerate(doc.tables):
        share = numeric_share(table)
        if len(body(table)) < 1 or share < 0.3 or is_example_table(table):
            continue
        places = list(referenced.get(table.label, []))
        home = by_title.get(table.section)
        if home is not None:
            places.append(home)
        lettered = bool(re.match(r"Table [A-Z]", table.label))
        main = [p for p in places if p.main_results]
        closing = [p for p in places if p.closing]
        body_places = [p for p in places if not p.appendix]
        if lettered or not body_places:
            tier = 0.0
        elif main:
            tier = 3.0
        elif closing:
            tier = 2.0
        else:
            tier = 1.0
        caption = table.caption.lower()
        words = sum(weight for word, weight in _RESULT_CAPTION if word in caption)
        words -= 2.0 if any(word in caption for word in _DESCRIPTIVE_CAPTION) else 0.0
        citations = sum(
            1
            for section in main
            for paragraph in section.section.paragraphs
            if table.label in table_references(paragraph)
        )
        scored.append(((tier, min(citations, 5) + words, share, -position), table))
    scored.sort(key=lambda item: item[0], reverse=True)
    return [table for _, table in scored]


def results_tables(doc: Document, limit: int = 2) -> list[Table]:
    """Up to ``limit`` of ``rank_results_tables``: the tables the digest can show."""
    return rank_results_tables(doc)[:limit]
