"""A paper's evidence units: every sentence and every table cell, numbered, with where it is.

The writer is shown the paper with these ids inline and cites them; the verifier checks
each claim against exactly the units it cites (``text.citations`` is the syntax). Units are
numbered deterministically over the *whole* Document (abstract, every section in order,
then table and figure captions, then cells), so a writer that saw only part of the paper,
a second reading pass and a later ``paperbrief verify`` agree on what ``E12`` is.

* ``E<n>``: one sentence (TeX read as text); its *context* for names is itself, the sentence
  before it in its paragraph and its section heading; a quoted example (a prompt, a listing)
  is a unit the writer may quote but never evidence for a number;
* ``T<label>.r<i>.c<j>``: body row ``i`` (1-based), column ``j`` (1-based) of a table; its text
  reads ``<row label> · <column label>: <cell>``; a bare number takes its column's (or row's,
  or caption's) unit; a row that only names a group ("Panel A: Pre-sale") prefixes the labels
  of the rows below it; a cell of a standard-error column is an error, never a value.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Literal

from paperbrief.fulltext.roles import roled_sections
from paperbrief.fulltext.tables import (
    body,
    column_labels,
    is_example_table,
    label_column,
    numbering_columns,
)
from paperbrief.models import EXAMPLE_MARK, Document, Place, Table
from paperbrief.text import (
    NumberMention,
    clean_tex,
    find_numbers,
    header_unit,
    split_sentences,
    with_kind,
    with_unit,
)
from paperbrief.text.names import name_key, names_in, spelled_lists

UnitKind = Literal["sentence", "cell"]
_ERROR_COLUMN = re.compile(
    r"^(?:s\.?\s?e\.?|se|std\.?(?: ?err(?:or)?\.?)?|sd|s\.d\.|standard (?:error|deviation)s?)$",
    re.IGNORECASE,
)
_CHANGE_COLUMN = re.compile(
    r"Δ|∆|\b(?:change|diff(?:erence)?|delta|gain|improvement|increase|decrease|lift|uplift)\b|"
    r"变化|提升|增益",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Unit:
    """One evidence unit (see the module docstring)."""

    id: str
    kind: UnitKind
    text: str  # the sentence, or "<row> · <column>: <cell>"
    location: str  # "Section 4.1 Results", "Abstract", "Table 4"
    context: str  # where names said with it are read: previous sentence, heading, labels
    mentions: tuple[NumberMention, ...] = ()
    quoted: bool = False  # an example the paper quotes: never evidence
    table: str = ""  # a cell's table label ("Table 4")
    row: int = 0
    column: int = 0
    row_label: str = ""
    column_label: str = ""
    change: bool = False  # a cell of a change / Δ column: its sign is a direction
    anchor: str = ""  # the paragraph's or table's id in the arXiv HTML, or "page=N" (PDF)
    own: int = -1  # how many of ``mentions`` are the cell's own (the rest: its labels'); -1 all

    @property
    def levels(self) -> tuple[NumberMention, ...]:
        """The values the unit itself states (not its labels' "0 to 1"): what a difference
        or ratio may be computed from."""
        own = self.mentions if self.own < 0 else self.mentions[: self.own]
        if self.quoted:
            return ()
        return tuple(
            m for m in own if m.kind == "value" and not m.in_name and m.pair is None and m.value
        )

    @property
    def evidence(self) -> tuple[NumberMention, ...]:
        """The numbers this unit can support a claim with."""
        if self.quoted:
            return ()
        return tuple(
            m for m in self.mentions if m.is_evidence or (m.kind == "ratio" and m.pair is not None)
        )  # a stated share "4/5" supports "4/5" (never a value of its own)


def table_key(label: str) -> str:
    """The id prefix of a table: "Table 4" → "T4", "Table A1" → "TA1", "Table 2a" → "T2a"."""
    number = re.sub(r"^(?:Table|Tab\.?)\s*", "", label).strip()
    number = re.sub(r"[()\s]", "", number)
    return "T" + number if re.match(r"^[A-Z]?\d{1,3}[a-z]?$", number) else ""


@dataclass(frozen=True)
class TableUnits:
    """The labels of one table, for telling a cited row from another row."""

    label: str
    key: str
    caption: str
    row_labels: tuple[str, ...]
    column_labels: tuple[str, ...]


@dataclass
class UnitIndex:
    """Every unit of one paper by id, and the paper's vocabulary of names."""

    units: dict[str, Unit] = field(default_factory=dict)
    tables: dict[str, TableUnits] = field(default_factory=dict)  # key ("T4") -> labels
    title: str = ""
    name_counts: Counter[str] = field(default_factory=Counter)  # name key -> sections naming it
    sections: int = 0
    # where each sentence unit sits, so a view can print the paper with its ids
    abstract: tuple[str, ...] = ()
    paragraphs: dict[tuple[int, int], tuple[str, ...]] = field(default_factory=dict)
    captions: dict[str, tuple[str, ...]] = field(default_factory=dict)  # table label -> ids
    figure_captions: dict[int, tuple[str, ...]] = field(default_factory=dict)
    figures: dict[str, tuple[str, ...]] = field(default_factory=dict)  # label / image URL -> ids

    def get(self, unit_id: str) -> Unit | None:
        return self.units.get(unit_id)

    def __iter__(self) -> Iterator[Unit]:
        return iter(self.units.values())

    def __len__(self) -> int:
        return len(self.units)

    @cached_property
    def paper_text_keys(self) -> str:
        """Every unit's text and context folded, for "does the paper ever name X"."""
        return " ".join(
            name_key(spelled_lists(u.text + " " + u.context)) for u in self.units.values()
        )

    def mentions_name(self, key: str) -> bool:
        return bool(key) and key in self.paper_text_keys

    def generic(self, name: str) -> bool:
        """An acronym many sections use ("LLM", "RL"): a kind of thing, not one row."""
        key = name_key(name)
        acronym = name.isupper() and name.isalpha() and len(name) <= 5
        subject = key in self.subject_keys
        return acronym and (subject or self.name_counts.get(key, 0) >= max(3, self.sections // 4))

    @cached_property
    def subject_keys(self) -> str:
        """The title's and abstract's words folded: what the whole paper is about."""
        return (
            " ".join(name_key(self.units[i].text) for i in self.abstract)
            + " "
            + name_key(self.title)
        )


def _sentence_units(
    index: UnitIndex,
    text: str,
    location: str,
    heading: str,
    quoted: bool,
    counter: list[int],
    anchor: str = "",
) -> tuple[str, ...]:
    previous = ""
    ids: list[str] = []
    for sentence in split_sentences(clean_tex(text)):
        counter[0] += 1
        unit_id = f"E{counter[0]}"
        mentions = tuple(find_numbers(sentence))
        # the heading's own counts ("Two personas in dialogue training") go with its sentences
        title = re.sub(r"^(?:Section\s+)?[A-Z]?\d+(?:\.\d+)*\s+", "", location)
        if title and title != location:
            mentions += tuple(m for m in find_numbers(title) if m.kind == "value" and m.words)
        context = f"{previous} {heading}".strip()
        index.units[unit_id] = Unit(unit_id, "sentence", sentence, location, context,
                                    mentions, quoted, anchor=anchor)  # fmt: skip
        ids.append(unit_id)
        previous = sentence
    return tuple(ids)


_COUNT_COLUMN = re.compile(r"^(?:n|obs\.?|observations|count|#|size)$", re.IGNORECASE)


def _row_labels_with_groups(table: Table) -> list[str]:
    """Each body row's label; a row with text only in its label column names a group whose
    name prefixes the rows below it (until the next group)."""
    column = label_column(table)
    skip = numbering_columns(table)
    merged = set(table.merged)  # a group name spanning the row is copied into every slot
    labels: list[str] = []
    group = ""
    previous = ""
    for offset, row in enumerate(body(table)):
        grid_row = offset + table.header_rows
        cell = row[column] if 0 <= column < len(row) else ""
        others = [
            c
            for i, c in enumerate(row)
            if i != column and i not in skip and c and (grid_row, i) not in merged
        ]
        if cell and not others and len(body(table)) > 2:
            group = cell
            labels.append(cell)
            previous = ""
            continue
        previous = cell or previous
        labels.append(f"{group}: {previous}" if group and previous else previous or group)
    return labels


def _cell_units(index: UnitIndex, table: Table, heading: str) -> None:
    key = table_key(table.label)
    if not key:
        return
    columns = column_labels(table)
    rows = _row_labels_with_groups(table)
    index.tables[key] = TableUnits(table.label, key, table.caption, tuple(rows), tuple(columns))
    example = is_example_table(table)
    label_at = label_column(table)
    skip = numbering_columns(table)
    merged = set(table.merged)
    caption_unit = header_unit(table.caption)
    context = f"{table.caption} {heading}"
    for offset, row in enumerate(body(table)):
        grid_row = offset + table.header_rows
        for column, cell in enumerate(row):
            if not cell or (grid_row, column) in merged:
                continue
            column_label = columns[column] if column < len(columns) else ""
            row_label = rows[offset] if offset < len(rows) else ""
            unit, scale = header_unit(column_label)
            counted = bool(_COUNT_COLUMN.match(column_label.split(" / ")[-1].strip()))
            if not unit and scale == 1.0 and column != label_at and not counted:
                unit, scale = header_unit(row_label)
            if not unit and scale == 1.0 and not counted:
                unit, scale = caption_unit
            mentions = tuple(
                with_unit(m, unit, scale) if (unit or scale != 1.0) and not m.unit else m
                for m in find_numbers(cell)
            )
            if column in skip:
                mentions = ()
            # a label's own numbers ("score (0 to 1)", "Recall@20") are stated with the cell
            labels = f"{row_label} {column_label}"
            own = len(mentions)
            mentions += tuple(m for m in find_numbers(labels) if m.kind == "value")
            if _ERROR_COLUMN.match(column_label.split(" / ")[-1].strip()):
                mentions = tuple(with_kind(m, "error") for m in mentions)
            unit_id = f"{key}.r{offset + 1}.c{column + 1}"
            names = " · ".join(
                n for n in (row_label if column != label_at else "", column_label) if n
            )
            text = f"{names}: {cell}" if names else cell
            index.units[unit_id] = Unit(
                unit_id, "cell", text, table.label, context, mentions, example,
                table=table.label, row=offset + 1, column=column + 1, row_label=row_label,
                column_label=column_label, change=bool(_CHANGE_COLUMN.search(column_label)),
                anchor=table.anchor, own=own,
            )  # fmt: skip


@lru_cache(maxsize=32)
def build_units(doc: Document) -> UnitIndex:
    """Every evidence unit of ``doc`` (module docstring), numbered deterministically.

    Built once per Document (by value) and shared: the writer's reading plan, its
    verifier, the offline brief and the digest's check index the same few papers of a day
    several times, so callers only read the index. The last 32 are kept (~1 MB for a long
    paper's index).
    """
    index = UnitIndex(title=doc.title)
    counter = [0]
    index.abstract = _sentence_units(index, doc.abstract, "Abstract", "Abstract", False, counter)
    roled = roled_sections(doc)
    headings: dict[str, str] = {}
    for section in roled:
        if section.role == "skip":
            continue
        heading = section.title
        headings[section.section.heading] = heading
        for position, paragraph in enumerate(section.section.paragraphs):
            quoted = paragraph.startswith(EXAMPLE_MARK)
            text = paragraph[len(EXAMPLE_MARK) :] if quoted else paragraph
            anchors, pages = section.section.anchors, section.section.pages
            anchor = anchors[position] if position < len(anchors) else ""
            if not anchor and position < len(pages):
                anchor = f"page={pages[position]}"
            index.paragraphs[(section.index, position)] = _sentence_units(
                index, text, section.section.location, heading, quoted, counter, anchor
            )
    for table in doc.tables:
        heading = headings.get(table.section, table.section)
        index.captions[table.label] = _sentence_units(
            index, table.caption, table.label, f"{table.label} {heading}", False, counter,
            table.anchor,
        )  # fmt: skip
    for position, figure in enumerate(doc.figures):
        index.figure_captions[position] = _sentence_units(
            index, figure.caption, figure.label, figure.label, False, counter, figure.anchor
        )
        for key in (figure.label, figure.url):
            if key:
                index.figures.setdefault(key, index.figure_captions[position])
    for table in doc.tables:
        _cell_units(index, table, headings.get(table.section, table.section))
    counts: Counter[str] = Counter()
    for section in roled:
        keys = {name_key(n.text) for p in section.section.paragraphs for n in names_in(p)}
        counts.update(keys)
    index.name_counts = counts
    index.sections = sum(1 for s in roled if s.section.paragraphs and s.role != "skip")
    return index


def place_of(doc: Document | None, paper: str, unit: Unit, version: int | None = None) -> Place:
    """Where the reader finds ``unit``: the arXiv HTML paragraph or table (fragment id), the
    PDF page, else the abstract page (a local file stands for arXiv's copy of ``version``)."""
    where = (
        unit.location
        if unit.kind == "sentence"
        else (
            f"{unit.table} · {unit.row_label or 'row ' + str(unit.row)} · {unit.column_label}"
        ).rstrip(" ·")
    )
    source = doc.source if doc is not None else "abstract"
    base = doc.source_url if doc is not None and doc.source_url.startswith("https://") else ""
    suffix = f"v{version}" if version else ""
    if source in ("arxiv-html", "ar5iv", "local-html"):
        base = base or f"https://arxiv.org/html/{paper}{suffix}"
        url = (
            f"{base}#{unit.anchor}" if unit.anchor and not unit.anchor.startswith("page=") else base
        )
    elif source in ("pdf", "local-pdf"):
        base = base or f"https://arxiv.org/pdf/{paper}{suffix}"
        url = f"{base}#{unit.anchor}" if unit.anchor.startswith("page=") else base
    else:
        url = f"https://arxiv.org/abs/{paper}"
    return Place(url, where)


def abstract_units(title: str, abstract: str) -> UnitIndex:
    """The units of a paper known only by its abstract."""
    return build_units(Document("", title, (), abstract))
