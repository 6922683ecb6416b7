"""Strict mode (``run --strict``): cut exactly what the paper does not support.

Only the smallest unit around an unsupported number goes, so the correct numbers beside it
stay: the parenthesis that holds it (``（安全版为 0.48）``), else its clause (between commas,
semicolons or "while"/"whereas"), else its sentence; in a table, only its cell (shown as
"—"); a list item left empty is dropped. Every cut is counted, so the digest's footer can
say how many were removed, in the digest's language (``labels.strict_removed``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from paperbrief.models import ComparisonTable, Digest, Implications, PaperBrief, TableData
from paperbrief.text import NumberMention
from paperbrief.write.claims import DAY, Chunk
from paperbrief.write.verify import Checker

EMPTY_CELL = "—"
_OPEN, _CLOSE = "(（[", ")）]"
_SENTENCE_END = re.compile(r"(?<=[。！？；])|(?<=[.!?;])\s+|\n")
_CLAUSE_SEPARATOR = re.compile(r"[，,、：]\s*|;\s+|\s+(?:while|whereas|but)\s+")


def _paren_around(text: str, position: int) -> tuple[int, int] | None:
    """The innermost bracket pair around ``position`` (one line), as (start, end)."""
    depth = 0
    start = -1
    for index in range(position - 1, -1, -1):
        char = text[index]
        if char == "\n":
            return None
        if char in _CLOSE:
            depth += 1
        elif char in _OPEN:
            if depth == 0:
                start = index
                break
            depth -= 1
    if start < 0:
        return None
    depth = 0
    for index in range(position, len(text)):
        char = text[index]
        if char == "\n":
            return None
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            if depth == 0:
                return start, index + 1
            depth -= 1
    return None


def _spans(pattern: re.Pattern[str], text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Pieces of ``text[start:end]`` between ``pattern`` matches, as absolute spans."""
    pieces = []
    cursor = start
    for match in pattern.finditer(text, start, end):
        pieces.append((cursor, match.end()))
        cursor = match.end()
    pieces.append((cursor, end))
    return [(a, b) for a, b in pieces if text[a:b].strip()]


def _unit_around(text: str, position: int) -> tuple[int, int]:
    bracket = _paren_around(text, position)
    if bracket is not None and bracket[1] - bracket[0] < len(text):
        return bracket
    sentences = _spans(_SENTENCE_END, text, 0, len(text))
    sentence = next(((a, b) for a, b in sentences if a <= position < b), (0, len(text)))
    body_end = sentence[1]
    while body_end > sentence[0] and text[body_end - 1] in "。！？；.!?; \n":
        body_end -= 1  # a clause cut keeps its sentence's end mark
    clauses = _spans(_CLAUSE_SEPARATOR, text, sentence[0], body_end)
    if len(clauses) <= 1:
        return sentence
    return next(((a, b) for a, b in clauses if a <= position < b), sentence)


def _tidy(text: str) -> str:
    text = re.sub(r"[ \t]*([，,、：；;])(?:\s*[，,、：；;])+", r"\1", text)
    text = re.sub(r"([，,、：；;])\s*([。！？.!?）)])", r"\2", text)
    text = re.sub(r"(^|[。！？\n(（])\s*[，,、：；;]\s*", r"\1", text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"\s+([。，、；：！？])", r"\1", text)
    lines = [line.strip() for line in text.split("\n")]
    return "\n".join(lines).strip()


def cut_text(text: str, bad: list[NumberMention]) -> tuple[str, int]:
    """``text`` without the units around the ``bad`` numbers, and how many units went."""
    units = sorted({_unit_around(text, mention.start) for mention in bad}, reverse=True)
    kept = text
    removed = 0
    last_start = len(text) + 1
    for start, end in units:
        if end > last_start:
            continue  # inside a unit already removed
        kept = kept[:start] + kept[end:]
        last_start = start
        removed += 1
    return _tidy(kept), removed


class _Cutter:
    def __init__(self, checker: Checker) -> None:
        self.checker = checker
        self.removed = 0

    def text(self, paper: str, section: str, text: str) -> str:
        if not text.strip():
            return text
        bad = [claim for claim, _ in self.checker.unsupported(Chunk(paper, section, text))]
        if not bad:
            return text
        cut, removed = cut_text(text, bad)
        self.removed += removed
        return cut

    def cell(self, paper: str, section: str, text: str) -> str:
        if self.checker.unsupported(Chunk(paper, section, text)):
            self.removed += 1
            return EMPTY_CELL
        return text

    def items(self, paper: str, section: str, items: tuple[str, ...]) -> tuple[str, ...]:
        cut = (self.text(paper, section, item) for item in items)
        return tuple(item for item in cut if item.strip())


def _table(table: TableData | None, cell: Callable[[str], str]) -> TableData | None:
    if table is None:
        return None
    return dataclasses.replace(table, rows=tuple(tuple(cell(c) for c in row) for row in table.rows))


def strict_brief(brief: PaperBrief, checker: Checker) -> tuple[PaperBrief, int]:
    """The brief with every unsupported number's unit cut; and how many units were cut."""
    cutter = _Cutter(checker)
    paper = brief.paper.id

    def text(section: str, value: str) -> str:
        return cutter.text(paper, section, value)

    implications = brief.implications
    if implications is not None:
        implications = Implications(
            technique=text("technique", implications.technique),
            experiment=text("experiment", implications.experiment),
            trend=text("trend", implications.trend),
        )
    figure = brief.figure
    if figure is not None:
        figure = dataclasses.replace(figure, caption=text("figure", figure.caption))
    changed = dataclasses.replace(
        brief,
        reason=text("reason", brief.reason),
        tldr=text("tldr", brief.tldr),
        problem=text("problem", brief.problem),
        insight=text("insight", brief.insight),
        method=text("method", brief.method),
        steps=cutter.items(paper, "steps", brief.steps),
        difference=text("difference", brief.difference),
        results=_table(brief.results, lambda c: cutter.cell(paper, "results", c)),
        result_notes=cutter.items(paper, "result_notes", brief.result_notes),
        limitations=cutter.items(paper, "limitations", brief.limitations),
        open_questions=cutter.items(paper, "open_questions", brief.open_questions),
        implications=implications,
        figure=figure,
        direction=text("overview", brief.direction),
        contribution=text("overview", brief.contribution),
    )
    return changed, cutter.removed


def strict_day(digest: Digest, checker: Checker) -> tuple[Digest, int]:
    """The day-level parts (summary, theme, comparison cells, closing) cut the same way."""
    cutter = _Cutter(checker)
    papers = [brief.paper.id for brief in digest.briefs]

    def comparison(table: ComparisonTable) -> ComparisonTable:
        rows = tuple(
            (
                dimension,
                tuple(
                    cutter.cell(papers[i], "comparison", cell) if i < len(papers) else cell
                    for i, cell in enumerate(cells)
                ),
            )
            for dimension, cells in table.rows
        )
        return dataclasses.replace(table, rows=rows)

    changed = dataclasses.replace(
        digest,
        summary=cutter.text(DAY, "summary", digest.summary),
        theme=cutter.text(DAY, "theme", digest.theme),
        comparisons=tuple(comparison(table) for table in digest.comparisons),
        closing=cutter.text(DAY, "closing", digest.closing),
    )
    return changed, cutter.removed
