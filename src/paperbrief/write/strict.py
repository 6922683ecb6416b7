"""Strict mode (``run --strict``): a claim that is not traced goes, whole, and is listed.

The unit of a cut is the claim itself, so the text around it still reads and nothing true
goes with it: a sentence (with its citation markers) out of a paragraph or list item; a row
of the key-results table (the row only states that result); the untraced sentence of a
comparison or overview cell (the cell shows "—" only when nothing else is left); a list item
left empty. A clause is never cut alone — cutting at commas left results without their
subject. Every cut is returned (section and sentence) so the footer can list them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from paperbrief.models import ComparisonTable, Digest, Implications, PaperBrief, TableData
from paperbrief.text.citations import claim_sentences, parse_refs
from paperbrief.write.trace import ClaimCheck, Sources, check_claim

EMPTY_CELL = "—"


def _tidy(text: str) -> str:
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


class _Cutter:
    def __init__(self, sources: Sources) -> None:
        self.sources = sources
        self.cuts: list[ClaimCheck] = []

    def text(self, paper: str, section: str, text: str) -> str:
        """``text`` without its untraced claim sentences."""
        if not text.strip():
            return text
        kept = text
        for sentence in reversed(claim_sentences(text)):
            check = check_claim(sentence.text, sentence.refs, self.sources, paper=paper,
                                section=section)  # fmt: skip
            if check is not None and not check.traced:
                self.cuts.append(check)
                kept = kept[: sentence.start] + kept[sentence.end :]
        return _tidy(kept) if kept != text else text

    def cell(self, paper: str, section: str, text: str) -> str:
        kept = self.text(paper, section, text)
        return kept if kept.strip() else (EMPTY_CELL if text.strip() else text)

    def items(self, paper: str, section: str, items: tuple[str, ...]) -> tuple[str, ...]:
        cut = (self.text(paper, section, item) for item in items)
        return tuple(item for item in cut if item.strip())

    def rows(self, paper: str, table: TableData | None) -> TableData | None:
        if table is None:
            return None
        kept = []
        for row in table.rows:
            text = " | ".join(c for c in row if c)
            check = check_claim(text, parse_refs(text), self.sources, paper=paper,
                                section="results")  # fmt: skip
            if check is not None and not check.traced:
                self.cuts.append(check)
                continue
            kept.append(row)
        return dataclasses.replace(table, rows=tuple(kept)) if kept else None


def strict_brief(brief: PaperBrief, sources: Sources) -> tuple[PaperBrief, list[ClaimCheck]]:
    """The brief without its untraced claims, and the claims that were cut."""
    cutter = _Cutter(sources)
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
        results=cutter.rows(paper, brief.results),
        result_notes=cutter.items(paper, "result_notes", brief.result_notes),
        limitations=cutter.items(paper, "limitations", brief.limitations),
        open_questions=cutter.items(paper, "open_questions", brief.open_questions),
        implications=implications,
        figure=figure,
        contribution=cutter.cell(paper, "overview", brief.contribution),
    )
    return changed, cutter.cuts


def strict_day(digest: Digest, sources: Sources) -> tuple[Digest, list[ClaimCheck]]:
    """The day-level parts (summary, theme, comparison cells, closing) cut the same way."""
    cutter = _Cutter(sources)
    papers = [brief.paper.id for brief in digest.briefs]

    def comparison(table: ComparisonTable) -> ComparisonTable:
        cell: Callable[[int, str], str] = lambda i, text: (  # noqa: E731
            cutter.cell(papers[i], "comparison", text) if i < len(papers) else text
        )
        rows = tuple(
            (dimension, tuple(cell(i, text) for i, text in enumerate(cells)))
            for dimension, cells in table.rows
        )
        return dataclasses.replace(table, rows=rows)

    changed = dataclasses.replace(
        digest,
        summary=cutter.text("", "summary", digest.summary),
        theme=cutter.text("", "theme", digest.theme),
        comparisons=tuple(comparison(table) for table in digest.comparisons),
        closing=cutter.text("", "closing", digest.closing),
    )
    return changed, cutter.cuts
