"""What the writer is sent of one paper: the whole main body with its evidence ids, or —
when that is longer than the budget — the same text in chunks for a first reading pass.

Nothing is ranked or cut. ``plan_reading(doc, budget)`` prints every main-body section
(everything before the appendix except acknowledgments, funding, checklists …) with each
sentence prefixed by its unit id (``[E12]``), every table (a row-id column and column ids:
``| T4 | c1 Model | c2 Conv. (%) |`` / ``| r3 | …``) under the first main-body section that
cites it, and every figure caption in the figure list (also figures with no image: the
caption is text). When the whole paper fits the budget the appendix is sent too; else an
outline of it (headings, table and figure captions) says what exists.

When the main body does not fit, the plan is ``two-pass``: ``parts`` are consecutive groups
of whole sections of at most ``chunk_tokens`` (a longer section is split between
paragraphs), each read into per-section notes first; ``essentials`` — the main tables and
the limitations and conclusion sections, verbatim — go to the second pass with the notes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from paperbrief.fulltext.roles import Role, RoledSection, roled_sections, table_references
from paperbrief.fulltext.tables import column_labels, display_rows
from paperbrief.fulltext.units import UnitIndex, build_units, table_key
from paperbrief.models import EXAMPLE_MARK, Document, Table
from paperbrief.text import estimate_tokens

Mode = Literal["whole", "two-pass", "abstract"]
DEFAULT_CHUNK_TOKENS = 14000


@dataclass(frozen=True)
class SentSection:
    """How much of one section a part holds."""

    title: str
    role: Role
    appendix: bool
    paragraphs: int  # sent
    total: int  # in the paper
    tokens: int


@dataclass(frozen=True)
class PaperPart:
    """One block of paper text as it is sent."""

    text: str
    sections: tuple[SentSection, ...] = ()
    tables: tuple[str, ...] = ()  # table labels printed in it
    tokens: int = 0


@dataclass(frozen=True)
class ReadingPlan:
    """How one paper is read (module docstring)."""

    mode: Mode
    figures: str
    parts: tuple[PaperPart, ...]
    essentials: PaperPart | None  # two-pass: main tables, limitations, conclusion
    appendix: str  # the outline of what was not sent, "" when nothing was left out
    budget: int
    units: UnitIndex

    @property
    def tokens(self) -> int:
        return (
            sum(p.tokens for p in self.parts)
            + estimate_tokens(self.figures)
            + (estimate_tokens(self.appendix) if self.appendix else 0)
        )


# ------------------------------------------------------------------ printing
def _heading(section: RoledSection) -> str:
    return "#" * min(section.section.level + 1, 4) + " " + section.title


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table_block(table: Table, units: UnitIndex) -> str:
    """A table with its caption's unit ids, a row-id column and column ids."""
    key = table_key(table.label)
    caption_ids = units.captions.get(table.label, ())
    caption = " ".join(f"[{i}] {units.units[i].text}" for i in caption_ids) or table.caption
    title = f"**{table.label}** ({key or 'no cell ids'}). {caption}".strip()
    if not table.rows:
        return title
    labels = column_labels(table)
    head = [key or "#"] + [f"c{n} {_cell(label)}".strip() for n, label in enumerate(labels, 1)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for number, row in enumerate(display_rows(table), 1):
        lines.append("| " + " | ".join([f"r{number}", *(_cell(c) for c in row)]) + " |")
    return f"{title}\n\n" + "\n".join(lines)


def _paragraph(units: UnitIndex, ids: tuple[str, ...], original: str) -> str:
    text = " ".join(f"[{i}] {units.units[i].text}" for i in ids)
    if not text:
        return ""
    return f"{EXAMPLE_MARK}{text}" if original.startswith(EXAMPLE_MARK) else text


def figure_list(doc: Document, units: UnitIndex) -> str:
    """Every figure: ``<index>: <label> [E..] <caption>`` (index for the digest's figure)."""
    if not doc.figures:
        return "(none)"
    lines = []
    for position, figure in enumerate(doc.figures):
        ids = units.figure_captions.get(position, ())
        caption = " ".join(f"[{i}] {units.units[i].text}" for i in ids) or figure.caption
        image = "" if figure.url else " (no image)"
        lines.append(f"{position}: {figure.label}{image} {caption}".strip())
    return "\n".join(lines)


class _Printer:
    def __init__(self, doc: Document, units: UnitIndex) -> None:
        self.doc = doc
        self.units = units
        self.roled = roled_sections(doc)
        self.tables_at = self._table_places()

    def _table_places(self) -> dict[int, list[Table]]:
        """Each table under the first main-body section that cites it, else the section it
        sits in (by heading), else after the last section (-1)."""
        places: dict[int, list[Table]] = {}
        for table in self.doc.tables:
            where = next(
                (
                    s.index
                    for s in self.roled
                    if not s.appendix
                    and s.role != "skip"
                    and any(table.label in table_references(p) for p in s.section.paragraphs)
                ),
                None,
            )
            if where is None:
                where = next(
                    (s.index for s in self.roled if table.section in (s.title, s.section.heading)),
                    -1,
                )
            places.setdefault(where, []).append(table)
        return places

    def section(
        self, section: RoledSection, positions: range | None = None
    ) -> tuple[str, SentSection, list[str]]:
        paragraphs = section.section.paragraphs
        chosen = range(len(paragraphs)) if positions is None else positions
        blocks = [_heading(section)]
        for position in chosen:
            ids = self.units.paragraphs.get((section.index, position), ())
            block = _paragraph(self.units, ids, paragraphs[position])
            if block:
                blocks.append(block)
        tables = (
            self.tables_at.get(section.index, [])
            if positions is None or (positions and positions[-1] == len(paragraphs) - 1)
            else []
        )
        blocks += [table_block(t, self.units) for t in tables]
        text = "\n\n".join(blocks)
        sent = SentSection(section.title, section.role, section.appendix, len(chosen),
                           len(paragraphs), estimate_tokens(text))  # fmt: skip
        return text, sent, [t.label for t in tables]


def _part(pieces: list[tuple[str, SentSection, list[str]]], head: str = "") -> PaperPart:
    text = "\n\n".join(p for p in ([head] if head else []) + [t for t, _, _ in pieces] if p)
    return PaperPart(text, tuple(s for _, s, _ in pieces),
                     tuple(label for _, _, labels in pieces for label in labels),
                     estimate_tokens(text))  # fmt: skip


def _header(doc: Document, units: UnitIndex) -> str:
    title = f"# {doc.title}" if doc.title else ""
    abstract = " ".join(f"[{i}] {units.units[i].text}" for i in units.abstract)
    return "\n\n".join(p for p in (title, f"## Abstract\n\n{abstract}" if abstract else "") if p)


def _outline(printer: _Printer, sections: list[RoledSection]) -> str:
    lines = []
    for section in sections:
        lines.append(f"{'  ' * (section.section.level - 1)}- {section.title} "
                     f"({len(section.section.paragraphs)} ¶)")  # fmt: skip
        for table in printer.tables_at.get(section.index, []):
            lines.append(f"{'  ' * section.section.level}- {table.label}: {table.caption[:160]}")
    return "\n".join(lines)


def plan_reading(
    doc: Document, budget: int, chunk_tokens: int = DEFAULT_CHUNK_TOKENS
) -> ReadingPlan:
    """How ``doc`` is read within ``budget`` tokens of paper text (module docstring)."""
    units = build_units(doc)
    printer = _Printer(doc, units)
    figures = figure_list(doc, units)
    header = _header(doc, units)
    if not doc.sections and not doc.tables:
        part = PaperPart(header, (), (), estimate_tokens(header))
        return ReadingPlan("abstract", figures, (part,), None, "", budget, units)
    kept = [s for s in printer.roled if s.role != "skip"]
    main = [s for s in kept if not s.appendix]
    appendix = [s for s in kept if s.appendix]
    pieces = [printer.section(s) for s in main]
    loose = [table_block(t, units) for t in printer.tables_at.get(-1, [])]
    appendix_pieces = [printer.section(s) for s in appendix]
    fixed = estimate_tokens(header) + estimate_tokens(figures)
    body = sum(s.tokens for _, s, _ in pieces) + sum(estimate_tokens(t) for t in loose)
    whole_appendix = sum(s.tokens for _, s, _ in appendix_pieces)
    if fixed + body + whole_appendix <= budget:
        part = _part(
            pieces
            + appendix_pieces
            + [(t, SentSection("", "results", False, 0, 0, 0), []) for t in loose],
            header,
        )
        return ReadingPlan("whole", figures, (part,), None, "", budget, units)
    outline = _outline(printer, appendix)
    if fixed + body + estimate_tokens(outline) <= budget:
        part = _part(
            pieces + [(t, SentSection("", "results", False, 0, 0, 0), []) for t in loose], header
        )
        return ReadingPlan("whole", figures, (part,), None, outline, budget, units)
    # two passes: chunks of whole sections (a section over the chunk size goes by paragraphs)
    chunks: list[PaperPart] = []
    current: list[tuple[str, SentSection, list[str]]] = []
    used = 0
    for section, piece in zip(main, pieces, strict=True):
        if piece[1].tokens > chunk_tokens:
            if current:
                chunks.append(_part(current, header if not chunks else ""))
                current, used = [], 0
            chunks.extend(
                _split_section(printer, section, chunk_tokens, header if not chunks else "")
            )
            continue
        if current and used + piece[1].tokens > chunk_tokens:
            chunks.append(_part(current, header if not chunks else ""))
            current, used = [], 0
        current.append(piece)
        used += piece[1].tokens
    if current:
        chunks.append(_part(current, header if not chunks else ""))
    essentials = _essentials(printer, main)
    return ReadingPlan("two-pass", figures, tuple(chunks), essentials, outline, budget, units)


def _split_section(
    printer: _Printer, section: RoledSection, limit: int, head: str
) -> list[PaperPart]:
    """A section too long for one part, cut between paragraphs into parts of ``limit``."""
    total = len(section.section.paragraphs)
    sizes = [
        estimate_tokens(_paragraph(printer.units,
                                   printer.units.paragraphs.get((section.index, p), ()),
                                   section.section.paragraphs[p]))
        for p in range(total)
    ]  # fmt: skip
    parts: list[PaperPart] = []
    start = 0
    while start < total:
        end, used = start + 1, sizes[start]
        while end < total and used + sizes[end] <= limit:
            used += sizes[end]
            end += 1
        parts.append(
            _part([printer.section(section, range(start, end))], head if not parts else "")
        )
        start = end
    return parts


def _essentials(printer: _Printer, main: list[RoledSection]) -> PaperPart:
    """The second pass's verbatim part: every main-body table, the limitations and the
    conclusion (the authors' own limits always arrive whole)."""
    blocks: list[str] = []
    labels: list[str] = []
    sent: list[SentSection] = []
    for section in main:
        for table in printer.tables_at.get(section.index, []):
            blocks.append(table_block(table, printer.units))
            labels.append(table.label)
        if section.role in ("limitations", "conclusion"):
            text, info, _ = printer.section(section)
            text = text.split("\n\n**Table", 1)[0]  # its tables are printed above
            blocks.append(text)
            sent.append(info)
    text = "\n\n".join(blocks)
    return PaperPart(text, tuple(sent), tuple(labels), estimate_tokens(text))


def describe_plan(plan: ReadingPlan) -> str:
    """What ``read --prompt`` prints above the prompt: how the paper is read, section by
    section (role, paragraphs sent / in the paper, tokens), tables, figures, totals."""
    how = {
        "whole": "the whole main body in one deep read",
        "two-pass": f"two passes: {len(plan.parts)} parts read into section notes, then the"
        " deep read from the notes, the main tables, limitations and conclusion",
        "abstract": "the abstract only",
    }[plan.mode]
    lines = [f"# Reading plan: {how} ({plan.tokens} tokens of paper text, budget {plan.budget})"]
    for number, part in enumerate(plan.parts, 1):
        if plan.mode == "two-pass":
            lines.append(f"# part {number}: {part.tokens} tokens")
        for section in part.sections:
            if section.title:
                counts = f"¶ {section.paragraphs}/{section.total}  {section.tokens} tok"
                lines.append(f"#   {section.title[:60]:<60} {section.role:<12} {counts}")
        if part.tables:
            lines.append(f"#   tables: {', '.join(part.tables)}")
    if plan.essentials is not None:
        lines.append(f"# second pass, verbatim: {', '.join(plan.essentials.tables) or 'no tables'};"
                     f" {', '.join(s.title for s in plan.essentials.sections) or 'no limits'}"
                     f" ({plan.essentials.tokens} tokens)")  # fmt: skip
    figures = 0 if plan.figures == "(none)" else len(plan.figures.splitlines())
    lines.append(f"# figures: {figures} captions; appendix: "
                 + ("outline only" if plan.appendix else "sent whole or none"))  # fmt: skip
    return "\n".join(lines)
