"""Views of a Document for the writers and the verifier.

* ``budgeted_text``: the paper cut to a token budget by priority, tables never split;
* ``evidence_index``: every number-bearing table cell and sentence, with its location;
* ``choose_figure``, ``results_tables``, ``section_sentences``: what the offline writer uses;
* ``table_to_markdown``: one table as a GitHub-style Markdown table.

Sentences, numbers and the token estimate come from ``paperbrief.text`` (one home each).
The budget is a soft planning figure, not a hard limit of the provider.
"""

from __future__ import annotations

import re
from typing import Literal

from paperbrief.fulltext.document import Document, Evidence, FigureRef, Section, Table
from paperbrief.models import Figure, TableData
from paperbrief.text import estimate_tokens, find_numbers, split_sentences

SectionKind = Literal[
    "introduction", "method", "experiments", "limitations", "conclusion", "related", "other"
]
SentenceKind = Literal["problem", "method", "limitations", "conclusion"]

_KIND_KEYWORDS: tuple[tuple[SectionKind, tuple[str, ...]], ...] = (
    ("limitations", ("limitation", "threats to validity", "broader impact", "failure case")),
    ("conclusion", ("conclusion", "concluding", "summary and", "future work", "closing")),
    ("related", ("related work", "background", "prior work", "literature")),
    ("introduction", ("introduction", "motivation", "overview of the paper")),
    (
        "experiments",
        (
            "experiment",
            "evaluation",
            "result",
            "benchmark",
            "ablation",
            "empirical",
            "analysis",
            "comparison",
            "performance",
            "study",
        ),
    ),
    (
        "method",
        (
            "method",
            "approach",
            "model",
            "framework",
            "architecture",
            "algorithm",
            "proposed",
            "design",
            "system",
            "training",
            "our ",
            "technique",
            "pipeline",
            "formulation",
            "preliminar",
            "problem setup",
            "setting",
        ),
    ),
)
_PRIORITY: tuple[SectionKind, ...] = (
    "introduction",
    "method",
    "experiments",
    "limitations",
    "conclusion",
)
_SENTENCE_SECTIONS: dict[str, tuple[SectionKind, ...]] = {
    "problem": ("introduction",),
    "method": ("method",),
    "limitations": ("limitations",),
    "conclusion": ("conclusion",),
}
_RESULT_WORDS = (
    "result",
    "performance",
    "comparison",
    "compared",
    "accuracy",
    "benchmark",
    "main",
    "baseline",
    "score",
    "evaluation",
    "ablation",
    "f1",
    "bleu",
    "rouge",
    "success rate",
)
_NOT_EVIDENCE = re.compile(
    r"\b(?:Table|Tab\.|Figure|Fig\.|Section|Sec\.|Eq\.|Equation|Appendix|Algorithm|Theorem|"
    r"Lemma|Definition|Step)\s*[A-Z]?\d+(?:\.\d+)*[a-z]?|\[\d+(?:[,–-]\s*\d+)*\]|"
    r"\b(?:19|20)\d\d[a-z]?\)|\(\w[^()]*?(?:19|20)\d\d[a-z]?\)|arXiv:\S+"
)


def section_kind(heading: str) -> SectionKind:
    """Classify one heading by keywords (first matching kind in a fixed order)."""
    name = heading.lower()
    for kind, words in _KIND_KEYWORDS:
        if any(word in name for word in words):
            return kind
    return "other"


def classified_sections(doc: Document) -> list[tuple[Section, SectionKind]]:
    """Each section with its kind; an unclassified subsection inherits its parent's kind."""
    result: list[tuple[Section, SectionKind]] = []
    parents: list[tuple[int, SectionKind]] = []
    for section in doc.sections:
        while parents and parents[-1][0] >= section.level:
            parents.pop()
        kind = section_kind(section.heading)
        if kind == "other" and parents:
            kind = parents[-1][1]
        if section.number[:1].isalpha() and kind in ("other", "method", "experiments"):
            kind = "other"  # appendix material comes after everything else
        parents.append((section.level, kind))
        result.append((section, kind))
    return result


def _header_and_body(table: Table) -> tuple[list[str], list[tuple[str, ...]]]:
    """One header row (header rows merged per column with `` / ``) and the body rows."""
    width = max(len(row) for row in table.rows)
    rows = [tuple(row) + ("",) * (width - len(row)) for row in table.rows]
    head_count = min(max(table.header_rows, 1), len(rows))
    header = []
    for column in range(width):
        parts: list[str] = []
        for row in rows[:head_count]:
            if row[column] and row[column] not in parts:
                parts.append(row[column])
        header.append(" / ".join(parts))
    return header, rows[head_count:]


def to_table_data(table: Table) -> TableData:
    """The digest's ``TableData`` (one merged header row) for a parsed table."""
    if not table.rows:
        return TableData(header=(), rows=(), caption=table.caption)
    header, body = _header_and_body(table)
    caption = f"{table.label}: {table.caption}" if table.label else table.caption
    return TableData(header=tuple(header), rows=tuple(body), caption=caption)


def to_figure(figure: FigureRef) -> Figure:
    """The digest's ``Figure`` for a parsed figure reference."""
    return Figure(caption=figure.caption, url=figure.url, label=figure.label)


def table_to_markdown(table: Table) -> str:
    """A Markdown table: header rows merged per column (`` / ``), pipes escaped."""
    if not table.rows:
        return ""
    header, body = _header_and_body(table)
    width = len(header)

    def line(cells: tuple[str, ...] | list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"

    out = [line(header), "|" + "---|" * width]
    out.extend(line(row) for row in body)
    return "\n".join(out)


def _table_block(table: Table) -> str:
    title = f"**{table.label}.** {table.caption}".strip()
    markdown = table_to_markdown(table)
    return f"{title}\n\n{markdown}" if markdown else title


def _numeric_share(table: Table) -> float:
    cells = [c for row in table.rows[table.header_rows :] for c in row[1:] if c]
    if not cells:
        return 0.0
    return sum(1 for c in cells if _numbers(c)) / len(cells)


def results_tables(doc: Document, limit: int = 2) -> list[Table]:
    """Up to ``limit`` tables that look like the paper's main results, best first.

    Score: caption words (results, performance, comparison, accuracy, …; "main" counts
    double), the share of numeric body cells, and a bonus for sitting in an experiments
    section. Tables with fewer than two rows or under 30 % numeric cells are never chosen.
    """
    kinds = {section.location: kind for section, kind in classified_sections(doc)}
    scored: list[tuple[float, int, Table]] = []
    for position, table in enumerate(doc.tables):
        share = _numeric_share(table)
        if len(table.rows) < 2 or share < 0.3:
            continue
        caption = table.caption.lower()
        score = share + sum(0.5 for word in _RESULT_WORDS if word in caption)
        score += 1.0 if "main" in caption else 0.0
        score -= 1.0 if re.match(r"[A-Z](?:\.|\s)", table.section) else 0.0  # appendix
        section_kinds = [k for loc, k in kinds.items() if table.section and table.section in loc]
        score += 0.5 if "experiments" in section_kinds else 0.0
        score -= 0.5 if any(w in caption for w in ("hyperparameter", "statistics", "detail")) else 0
        scored.append((score, -position, table))
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [table for _, _, table in scored[:limit]]


def section_sentences(doc: Document, kind: SentenceKind) -> list[str]:
    """Sentences from the sections that state ``kind``, in document order.

    problem → introduction; method → method/approach sections; limitations → limitations
    or threats-to-validity sections (else any sentence that says "limitation"); conclusion →
    conclusion sections. Empty when the paper has no such section.
    """
    wanted = _SENTENCE_SECTIONS[kind]
    sentences = [
        sentence
        for section, section_kind_ in classified_sections(doc)
        if section_kind_ in wanted
        for paragraph in section.paragraphs
        for sentence in split_sentences(paragraph)
    ]
    if not sentences and kind == "limitations":
        sentences = [
            sentence
            for section in doc.sections
            for paragraph in section.paragraphs
            for sentence in split_sentences(paragraph)
            if re.search(r"\blimitation|\bdoes not (?:yet )?(?:handle|scale)", sentence, re.I)
        ]
    return sentences


def budgeted_text(doc: Document, max_tokens: int) -> str:
    """The paper as Markdown within ``max_tokens`` (chars/4 estimate), filled by priority.

    Order of filling: title + abstract, introduction, method, experiments with the result
    tables, limitations, conclusion. A paragraph that does not fit is skipped (later, shorter
    ones may still fit; the abstract alone is truncated at a sentence if it is over budget).
    A table goes in whole or not at all. The chosen pieces are printed in document order
    under their headings.
    """
    budget = max_tokens
    header = f"# {doc.title}".strip() if doc.title else ""
    used = estimate_tokens(header) if header else 0
    abstract = doc.abstract
    if abstract and used + estimate_tokens(abstract) > budget:
        kept = ""
        for sentence in split_sentences(abstract):
            if used + estimate_tokens(f"{kept} {sentence}") > budget:
                break
            kept = f"{kept} {sentence}".strip()
        abstract = kept
    used += estimate_tokens(abstract) if abstract else 0

    classified = classified_sections(doc)
    tables_by_section: dict[str, list[Table]] = {}
    for table in doc.tables:
        tables_by_section.setdefault(table.section, []).append(table)
    chosen: dict[int, list[str]] = {}  # section index -> chosen blocks (in order)
    headings_cost = {
        i: estimate_tokens(f"\n\n## {s.number} {s.heading}") for i, (s, _) in enumerate(classified)
    }

    def take(index: int, block: str) -> bool:
        nonlocal used
        cost = estimate_tokens("\n\n" + block) + (0 if index in chosen else headings_cost[index])
        if used + cost > budget:
            return False
        chosen.setdefault(index, []).append(block)
        used += cost
        return True

    index_of_location = {
        " ".join(p for p in (section.number, section.heading) if p): index
        for index, (section, _) in enumerate(classified)
    }
    placed: set[int] = set()
    for kind in _PRIORITY:
        if kind == "experiments":  # the result tables first: they carry the numbers
            for table in results_tables(doc, limit=3):
                index = index_of_location.get(table.section)
                if index is not None and take(index, _table_block(table)):
                    placed.add(id(table))
        for index, (section, section_kind_) in enumerate(classified):
            if section_kind_ != kind:
                continue
            for paragraph in section.paragraphs:
                take(index, paragraph)
            if kind == "experiments":
                location = " ".join(p for p in (section.number, section.heading) if p)
                for table in tables_by_section.get(location, []):
                    wanted = id(table) not in placed and _numeric_share(table) >= 0.3
                    if wanted and take(index, _table_block(table)):
                        placed.add(id(table))

    parts = [p for p in (header, f"## Abstract\n\n{abstract}" if abstract else "") if p]
    for index, (section, _) in enumerate(classified):
        if index in chosen:
            title = " ".join(p for p in (section.number, section.heading) if p)
            parts.append(f"## {title}\n\n" + "\n\n".join(chosen[index]))
    return "\n\n".join(parts)


def _numbers(text: str) -> tuple[str, ...]:
    """The quantities a sentence or cell states: numbers that stand alone (not GPT-4o,
    not 5-shot), after references, citations and arXiv ids are blanked out."""
    return tuple(m.text for m in find_numbers(_NOT_EVIDENCE.sub(" ", text)) if m.standalone)


def evidence_index(doc: Document) -> list[Evidence]:
    """Every number-bearing table cell and sentence, with where it is.

    A cell's text reads ``<row header> | <column header>: <cell>`` so the number keeps its
    meaning; its location is the table's label. A sentence's location is ``Abstract``, the
    label of the table or figure whose caption it is in, or its section's
    ``Section <number> <heading>``. Numbers that only name a table, figure,
    section, equation, citation or year-in-citation are not evidence.
    """
    evidence: list[Evidence] = []
    for sentence in split_sentences(doc.abstract):
        numbers = _numbers(sentence)
        if numbers:
            evidence.append(Evidence(sentence, "Abstract", numbers))
    captions = [(t.label, t.caption) for t in doc.tables] + [
        (f.label, f.caption) for f in doc.figures
    ]
    for label, caption in captions:
        for sentence in split_sentences(caption):
            numbers = _numbers(sentence)
            if numbers:
                evidence.append(Evidence(sentence, label, numbers))
    for table in doc.tables:
        head = table.rows[: table.header_rows]
        for row in table.rows[table.header_rows :]:
            for column, cell in enumerate(row):
                numbers = _numbers(cell)
                if not numbers or (column == 0 and len(row) > 1):
                    continue
                column_header: list[str] = []
                for header_row in head:
                    if column < len(header_row) and header_row[column] not in column_header:
                        column_header.append(header_row[column])
                labels = [row[0] if column else "", " / ".join(h for h in column_header if h)]
                prefix = " | ".join(label for label in labels if label)
                text = f"{prefix}: {cell}" if prefix else cell
                evidence.append(Evidence(text, table.label, numbers))
    for section in doc.sections:
        for paragraph in section.paragraphs:
            for sentence in split_sentences(paragraph):
                numbers = _numbers(sentence)
                if numbers:
                    evidence.append(Evidence(sentence, section.location, numbers))
    return evidence


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
