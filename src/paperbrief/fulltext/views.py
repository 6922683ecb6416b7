"""Views of a Document for the writers and the verifier.

* ``writer_view`` / ``budgeted_text``: what the LLM writer reads, filled by importance
  within a token budget (see ``writer_view`` for the order);
* ``evidence_index``: every number-bearing sentence and table cell, with its location;
* ``choose_figure``, ``section_sentences``: what the offline writer uses.

Section roles come from ``roles.py``, table reading from ``tables.py``; sentences, numbers
and the token estimate from ``paperbrief.text`` (one home each). The budget is a soft
planning figure (chars/4), not a hard limit of the provider.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from paperbrief.fulltext.roles import Role, RoledSection, roled_sections, table_references
from paperbrief.fulltext.tables import (
    body,
    column_labels,
    is_example_table,
    label_column,
    numbering_columns,
    rank_results_tables,
    row_labels,
    table_to_markdown,
)
from paperbrief.models import EXAMPLE_MARK, Document, Evidence, Figure, FigureRef, Table
from paperbrief.text import (
    NumberMention,
    clean_tex,
    estimate_tokens,
    find_numbers,
    header_unit,
    split_sentences,
    with_kind,
    with_unit,
)

SentenceKind = Literal["problem", "method", "results", "limitations", "conclusion"]

FIGURE_SHARE = 0.12  # of the budget: the list of every figure with its caption
INTRO_SHARE = 0.15  # of the budget: the introduction is capped
METHOD_SHARE = 0.15  # of the budget: the method overview (lead paragraphs)
MAIN_TABLE_SHARE = 0.3  # the main results table goes in whole up to this, else trimmed
TABLE_SHARE = 0.15  # every other results table
LEAD_TOKENS = 350  # a lead paragraph longer than this is cut at a sentence
_OWN_LIMITATION = re.compile(
    r"\b(?:limitations?|limited to|does not (?:yet )?(?:handle|scale|generalize)|"
    r"cannot (?:observe|handle|capture)|future work)\b",
    re.IGNORECASE,
)
_ERROR_COLUMN = re.compile(
    r"^(?:s\.?\s?e\.?|se|std\.?(?: ?err(?:or)?\.?)?|sd|s\.d\.|standard (?:error|deviation)s?)$",
    re.IGNORECASE,
)
_CONTRIBUTION = re.compile(
    r"\b(?:contributions?|we make the following|in summary|our (?:main|key) (?:finding|result)s?|"
    r"we find|we show|findings)\b",
    re.IGNORECASE,
)


# --------------------------------------------------------------------------- the view
@dataclass(frozen=True)
class ViewSection:
    """How much of one section the writer view holds."""

    title: str
    role: Role
    appendix: bool
    paragraphs: int  # taken
    total: int  # in the section


@dataclass(frozen=True)
class WriterView:
    """What the writer reads of one paper: text, figure list, and what they hold."""

    text: str
    figures: str
    sections: tuple[ViewSection, ...] = ()
    tables: tuple[str, ...] = ()  # table labels in the text, most important first
    results_tables: tuple[str, ...] = ()  # the paper's results tables, best first
    tokens: int = 0
    budget: int = 0
    notes: tuple[str, ...] = field(default=())


@dataclass
class _Plan:
    """The pieces chosen so far (mutable while the view is built)."""

    budget: int
    used: int = 0
    paragraphs: dict[int, dict[int, str]] = field(default_factory=dict)  # section -> ¶ -> text
    tables: dict[str, tuple[int, str]] = field(default_factory=dict)  # label -> (section, block)
    headed: set[int] = field(default_factory=set)

    def fits(self, cost: int) -> bool:
        return self.used + cost <= self.budget


def _heading(section: RoledSection) -> str:
    depth = min(section.section.level + 1, 4)
    return "#" * depth + " " + section.title


def _table_block(table: Table, max_rows: int | None = None) -> str:
    title = f"**{table.label}.** {table.caption}".strip()
    markdown = table_to_markdown(table, max_rows)
    return f"{title}\n\n{markdown}" if markdown else title


def _lead(text: str) -> str:
    """A paragraph cut to its first sentences within ``LEAD_TOKENS``."""
    if estimate_tokens(text) <= LEAD_TOKENS:
        return text
    kept = ""
    for sentence in split_sentences(text):
        if kept and estimate_tokens(f"{kept} {sentence}") > LEAD_TOKENS:
            break
        kept = f"{kept} {sentence}".strip()
    return kept + " […]"


class _Builder:
    def __init__(self, doc: Document, budget: int) -> None:
        self.doc = doc
        self.roled = roled_sections(doc)
        self.plan = _Plan(budget)
        self.ancestors: dict[int, list[int]] = {}
        for section in self.roled:
            chain, parent = [], section.parent
            while parent is not None:
                chain.append(parent)
                parent = self.roled[parent].parent
            self.ancestors[section.index] = chain[::-1]

    def _heading_cost(self, index: int) -> int:
        missing = [i for i in (*self.ancestors[index], index) if i not in self.plan.headed]
        return sum(estimate_tokens("\n\n" + _heading(self.roled[i])) for i in missing)

    def _commit(self, index: int, cost: int) -> None:
        self.plan.used += cost
        self.plan.headed.update((*self.ancestors[index], index))

    def paragraph(self, index: int, position: int, text: str | None = None) -> bool:
        """Take paragraph ``position`` of section ``index`` (or its shortened ``text``)."""
        taken = self.plan.paragraphs.setdefault(index, {})
        original = self.roled[index].section.paragraphs[position]
        body_text = text if text is not None else original
        if position in taken and (taken[position] == original or text is not None):
            return True
        cost = estimate_tokens("\n\n" + body_text) + self._heading_cost(index)
        if position in taken:  # upgrading a shortened lead to the whole paragraph
            cost -= estimate_tokens("\n\n" + taken[position])
        if not self.plan.fits(cost):
            return False
        taken[position] = body_text
        self._commit(index, cost)
        return True

    def table(self, table: Table, share: float) -> bool:
        if table.label in self.plan.tables:
            return True
        index = self._placement(table)
        block = _table_block(table)
        limit = int(self.plan.budget * share)
        if estimate_tokens(block) > limit:
            rows = len(body(table))
            while rows > 3 and estimate_tokens(_table_block(table, rows)) > limit:
                rows = rows * 3 // 4
            block = _table_block(table, rows)
        cost = estimate_tokens("\n\n" + block) + (self._heading_cost(index) if index >= 0 else 0)
        if not self.plan.fits(cost):
            return False
        self.plan.tables[table.label] = (index, block)
        self.plan.used += cost
        if index >= 0:
            self.plan.headed.update((*self.ancestors[index], index))
        return True

    def _placement(self, table: Table) -> int:
        """Where a table is printed: the first main-body section that cites it, else the
        section it sits in, else after the last section (-1)."""
        for section in self.roled:
            if section.appendix:
                continue
            if any(table.label in table_references(p) for p in section.section.paragraphs):
                return section.index
        home = next((s.index for s in self.roled if s.title == table.section), None)
        return home if home is not None else -1

    def sections(self, predicate: object) -> list[RoledSection]:
        return [s for s in self.roled if predicate(s)]  # type: ignore[operator]


def writer_view(doc: Document, max_tokens: int) -> WriterView:
    """The paper within ``max_tokens``, filled by importance, printed in document order.

    Order of filling (a piece that does not fit is skipped; later, smaller ones may fit):
    title and abstract; the list of every figure with its whole caption (within
    ``FIGURE_SHARE``; first sentences when whole captions do not fit); the main results
    table; the lead paragraph of every main-body results, discussion, conclusion and
    limitations section; the introduction (capped at ``INTRO_SHARE``: the opening and the
    contributions paragraph first); the method overview (lead paragraphs of method and setup
    sections, ``METHOD_SHARE``); the other results tables; the rest of the results sections;
    the rest of discussion, conclusion and limitations; then everything else in document
    order, appendix last. Acknowledgments and similar sections are never sent. Tables go in
    whole (a table over its share keeps its first rows and says how many it left out);
    unnumbered sub-headings carry their parent's number.
    """
    budget = max(max_tokens, 200)
    figures = figure_list(doc, int(budget * FIGURE_SHARE))
    header = f"# {doc.title}".strip() if doc.title else ""
    abstract = doc.abstract
    fixed = estimate_tokens(header) + estimate_tokens(figures)
    if abstract and fixed + estimate_tokens(abstract) > budget:
        kept = ""
        for sentence in split_sentences(abstract):
            if fixed + estimate_tokens(f"{kept} {sentence}") > budget:
                break
            kept = f"{kept} {sentence}".strip()
        abstract = kept
    fixed += estimate_tokens(f"\n\n## Abstract\n\n{abstract}") if abstract else 0
    builder = _Builder(doc, budget - fixed)
    plan = builder.plan
    ranked = rank_results_tables(doc)
    main_tables = [t for t in ranked if not _appendix_table(t, builder)]

    def fill(sections: list[RoledSection], lead_only: bool, cap: int | None = None) -> None:
        start = plan.used
        for section in sections:
            for position, paragraph in enumerate(section.section.paragraphs):
                if lead_only and paragraph.startswith(EXAMPLE_MARK):
                    continue
                if cap is not None and plan.used - start >= cap:
                    return
                text = _lead(paragraph) if lead_only else None
                if cap is not None and estimate_tokens(text or paragraph) > cap - (
                    plan.used - start
                ):
                    continue
                builder.paragraph(section.index, position, text)
                if lead_only:
                    break

    results = builder.sections(lambda s: s.main_results)
    closing = builder.sections(lambda s: s.closing)
    if main_tables:
        builder.table(main_tables[0], MAIN_TABLE_SHARE)
    fill(sorted(results + closing, key=lambda s: s.index), lead_only=True)
    intro = builder.sections(lambda s: s.role == "introduction" and not s.appendix)
    _fill_introduction(builder, intro, int(plan.budget * INTRO_SHARE))
    method = builder.sections(lambda s: s.role in ("method", "setup") and not s.appendix)
    fill(method, lead_only=True, cap=int(plan.budget * METHOD_SHARE))
    for table in main_tables[1:]:
        if _cited_in(table, results) or table.section in {s.title for s in results}:
            builder.table(table, TABLE_SHARE)
    fill(results, lead_only=False)
    fill(closing, lead_only=False)
    rest = builder.sections(lambda s: not s.appendix and s.role != "skip")
    fill(rest, lead_only=False)
    for table in main_tables:
        builder.table(table, TABLE_SHARE)
    fill(builder.sections(lambda s: s.appendix and s.role != "skip"), lead_only=False)
    for table in ranked:
        builder.table(table, TABLE_SHARE)
    text = _render(doc, builder, header, abstract)
    return WriterView(
        text=text,
        figures=figures,
        sections=tuple(
            ViewSection(
                s.title,
                s.role,
                s.appendix,
                len(plan.paragraphs.get(s.index, {})),
                len(s.section.paragraphs),
            )
            for s in builder.roled
        ),
        tables=tuple(label for label in plan.tables),
        results_tables=tuple(t.label for t in ranked),
        tokens=estimate_tokens(text) + estimate_tokens(figures),
        budget=budget,
    )


def _appendix_table(table: Table, builder: _Builder) -> bool:
    if re.match(r"Table [A-Z]", table.label):
        return True
    home = next((s for s in builder.roled if s.title == table.section), None)
    cited_in_body = any(
        not s.appendix and table.label in table_references(p)
        for s in builder.roled
        for p in s.section.paragraphs
    )
    return home is not None and home.appendix and not cited_in_body


def _cited_in(table: Table, sections: list[RoledSection]) -> bool:
    return any(table.label in table_references(p) for s in sections for p in s.section.paragraphs)


def _fill_introduction(builder: _Builder, intro: list[RoledSection], cap: int) -> None:
    """The opening paragraph, then the contributions/findings paragraph(s), then the rest
    in order, all within ``cap`` tokens."""
    candidates: list[tuple[int, int, int]] = []  # (priority, section, position)
    for section in intro:
        for position, paragraph in enumerate(section.section.paragraphs):
            if paragraph.startswith(EXAMPLE_MARK):
                continue
            first = not candidates
            priority = 0 if first else 1 if _CONTRIBUTION.search(paragraph) else 2
            candidates.append((priority, section.index, position))
    start = builder.plan.used
    for _, index, position in sorted(candidates):
        paragraph = builder.roled[index].section.paragraphs[position]
        if builder.plan.used - start + estimate_tokens(paragraph) > cap:
            continue
        builder.paragraph(index, position)


def _render(doc: Document, builder: _Builder, header: str, abstract: str) -> str:
    plan = builder.plan
    parts = [p for p in (header, f"## Abstract\n\n{abstract}" if abstract else "") if p]
    tables_at: dict[int, list[str]] = {}
    for label, (index, block) in plan.tables.items():
        del label
        tables_at.setdefault(index, []).append(block)
    for section in builder.roled:
        index = section.index
        if index not in plan.headed:
            continue
        blocks = [_heading(section)]
        taken = plan.paragraphs.get(index, {})
        previous = -1
        for position in sorted(taken):
            if position != previous + 1 and previous >= 0:
                blocks.append("[…]")
            blocks.append(taken[position])
            previous = position
        blocks.extend(tables_at.get(index, []))
        parts.append("\n\n".join(blocks))
    parts.extend(tables_at.get(-1, []))
    return "\n\n".join(parts)


def budgeted_text(doc: Document, max_tokens: int) -> str:
    """The paper text of ``writer_view`` (figures listed apart) within ``max_tokens``."""
    return writer_view(doc, max_tokens).text


def figure_list(doc: Document, budget: int) -> str:
    """Every figure as ``<index>: <label> <caption>`` within ``budget`` tokens: whole
    captions in document order while they fit, first sentences (then their first words,
    then bare labels) for the rest; at a tiny budget, as many labels as fit."""
    if not doc.figures:
        return "(none)"

    def line(index: int, caption: str) -> str:
        return f"{index}: {doc.figures[index].label} {caption}".strip()

    first = [(split_sentences(f.caption) or [f.caption])[0][:200] for f in doc.figures]
    for short in (first, [c[:80] for c in first], ["" for _ in first]):
        lines = [line(i, caption) for i, caption in enumerate(short)]
        used = sum(estimate_tokens(text) for text in lines)
        if used <= budget:
            break
    else:
        kept, used = [], 0
        for text in lines:
            if used + estimate_tokens(text) > budget:
                break
            kept.append(text)
            used += estimate_tokens(text)
        return "\n".join(kept) or "(figures left out: no budget)"
    for i, figure in enumerate(doc.figures):
        whole = line(i, figure.caption)
        extra = estimate_tokens(whole) - estimate_tokens(lines[i])
        if used + extra <= budget:
            lines[i] = whole
            used += extra
    return "\n".join(lines)


# ---------------------------------------------------------------------- evidence
def _evidence_mentions(text: str) -> tuple[NumberMention, ...]:
    return tuple(m for m in find_numbers(text) if m.is_evidence)


def _written(mentions: tuple[NumberMention, ...]) -> tuple[str, ...]:
    """The numbers a reader would call stated (not GPT-4's 4, not 5-shot's 5)."""
    return tuple(m.text for m in mentions if m.standalone)


def table_evidence(table: Table) -> list[Evidence]:
    """Each number-bearing body cell as ``<row> · <column>: <cell>`` at ``<label>``; a bare
    number takes its column's (or the caption's) unit, e.g. "16.3" under "% Change"."""
    if is_example_table(table):
        return []
    labels = column_labels(table)
    rows = row_labels(table)
    key = label_column(table)
    skip = numbering_columns(table)
    merged = set(table.merged)
    caption_unit = header_unit(table.caption)
    evidence = []
    for offset, row in enumerate(body(table)):
        index = offset + table.header_rows
        for column, cell in enumerate(row):
            if not cell or column in skip or (index, column) in merged:
                continue
            unit, scale = header_unit(labels[column]) if column < len(labels) else ("", 1.0)
            if not unit and scale == 1.0 and column != key:
                unit, scale = header_unit(rows[offset])  # "Conversion (%)" names its row's unit
            if not unit and scale == 1.0:
                unit, scale = caption_unit
            mentions = tuple(
                with_unit(m, unit, scale) if (unit or scale != 1.0) and not m.unit else m
                for m in _evidence_mentions(cell)
            )
            column_name = labels[column].split(" / ")[-1] if column < len(labels) else ""
            if _ERROR_COLUMN.match(column_name.strip()):
                mentions = tuple(with_kind(m, "error") for m in mentions)
            if not mentions:
                continue
            column_label = labels[column] if column < len(labels) else ""
            names = [rows[offset] if column != key else "", column_label]
            prefix = " · ".join(name for name in names if name)
            text = f"{prefix}: {cell}" if prefix else cell
            evidence.append(Evidence(text, table.label, _written(mentions), mentions, cell=True))
    return evidence


def evidence_index(doc: Document) -> list[Evidence]:
    """Every number-bearing sentence and table cell, with where it is.

    Sentences come from the abstract (location ``Abstract``), captions (the table or figure
    label) and section paragraphs (``Section <number> <heading>``, the number inherited by
    unnumbered sub-headings); TeX is read as text first. Cells read as in ``table_evidence``.
    Not evidence: quoted examples (prompts, listings, dialogues, example tables), citation
    markers, the reference list, years, section/table/figure/page numbers; a standard error
    is evidence only *as* a standard error (the verifier keeps the role apart).
    """
    evidence: list[Evidence] = []

    def sentences(text: str, location: str) -> None:
        for sentence in split_sentences(clean_tex(text)):
            mentions = _evidence_mentions(sentence)
            if mentions:  # "Qwen2.5-Coder-7B" alone still states 7B
                evidence.append(Evidence(sentence, location, _written(mentions), mentions))

    sentences(doc.abstract, "Abstract")
    for table in doc.tables:
        sentences(table.caption, table.label)
    for figure in doc.figures:
        sentences(figure.caption, figure.label)
    for table in doc.tables:
        evidence.extend(table_evidence(table))
    for section in roled_sections(doc):
        if section.role == "skip":
            continue
        for paragraph in section.section.paragraphs:
            if not paragraph.startswith(EXAMPLE_MARK):
                sentences(paragraph, section.section.location)
    return evidence


# ---------------------------------------------------------------- offline writer
_SENTENCE_ROLES: dict[str, tuple[Role, ...]] = {
    "problem": ("introduction",),
    "method": ("method",),
    "results": ("results",),
    "limitations": ("limitations",),
    "conclusion": ("conclusion",),
}


def section_sentences(doc: Document, kind: SentenceKind) -> list[str]:
    """Sentences (TeX read as text) of the main-body sections with that role, in order.

    problem → introduction; method → method sections; results → results sections;
    limitations → limitations / threats to validity (else any sentence that says
    "limitation"); conclusion → conclusion sections. Quoted examples are left out.
    """
    wanted = _SENTENCE_ROLES[kind]
    found = [
        sentence
        for section in roled_sections(doc)
        if section.role in wanted and not section.appendix
        for paragraph in section.section.paragraphs
        if not paragraph.startswith(EXAMPLE_MARK)
        for sentence in split_sentences(clean_tex(paragraph))
    ]
    if not found and kind == "limitations":
        # No limitations section: sentences of the main body's discussion, conclusion or
        # results that speak of this work's limits (never appendix prompts or instructions).
        found = [
            sentence
            for section in roled_sections(doc)
            if section.role in ("discussion", "conclusion", "results") and not section.appendix
            for paragraph in section.section.paragraphs
            if not paragraph.startswith(EXAMPLE_MARK)
            for sentence in split_sentences(clean_tex(paragraph))
            if _OWN_LIMITATION.search(sentence)
        ]
    return found


def to_figure(figure: FigureRef) -> Figure:
    """The digest's ``Figure`` for a parsed figure reference."""
    return Figure(caption=clean_tex(figure.caption), url=figure.url, label=figure.label)


_FIGURE_WORDS: tuple[tuple[str, float], ...] = (
    ("overview", 3.0),
    ("framework", 3.0),
    ("pipeline", 3.0),
    ("architecture", 3.0),
    ("main result", 2.5),
    ("illustration", 2.0),
    ("our method", 2.0),
    ("our approach", 2.0),
    ("approach", 1.0),
    ("method", 1.0),
    ("results", 1.0),
    ("workflow", 2.5),
    ("schematic", 2.0),
)
_FIGURE_MIN_SCORE = 2.0


def choose_figure(doc: Document) -> FigureRef | None:
    """The digest's figure: the best caption-keyword match (method overview, framework,
    pipeline, architecture, main results; words in the caption's first sentence count
    fully, strong words later in the caption half), earlier figures winning ties. Below a
    score of 2 (e.g. only "results" somewhere) the first figure is taken, which in most
    papers is the teaser/overview. ``None`` when no figure has an image URL."""
    figures = [f for f in doc.figures if f.url]
    if not figures:
        return None
    best: tuple[float, int] = (0.0, 0)
    for position, figure in enumerate(figures):
        sentences = split_sentences(figure.caption) or [""]
        title, rest = sentences[0].lower(), " ".join(sentences[1:]).lower()
        score = sum(weight for word, weight in _FIGURE_WORDS if word in title)
        score += sum(weight / 2 for word, weight in _FIGURE_WORDS if weight >= 2 and word in rest)
        if score > best[0]:
            best = (score, position)
    return figures[best[1]] if best[0] >= _FIGURE_MIN_SCORE else figures[0]
