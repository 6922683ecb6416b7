"""The offline writer: an honest digest from what is known, without an LLM.

It only selects and arranges what the authors wrote (abstract sentences, full-text sections,
the paper's own tables and figure) and what the ranker measured (research line, matched
terms, stars). Sections it cannot fill honestly stay empty, and the renderer leaves them out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from paperbrief import fulltext
from paperbrief.fulltext.document import Document
from paperbrief.labels import labels_for, stars_text
from paperbrief.models import (
    OFFLINE_WRITER,
    ComparisonTable,
    Digest,
    PaperBrief,
    Provenance,
    ScoredPaper,
    TableData,
)
from paperbrief.profile import Profile
from paperbrief.text import reported_numbers, shorten
from paperbrief.write.extract import classify_abstract, standalone

NOT_FETCHED = "not-fetched"  # text_source when the full text was not even tried (offline)
MAX_TABLE_ROWS = 12
MAX_TABLE_COLUMNS = 8


def _reason(scored: ScoredPaper, language: str) -> str:
    labels = labels_for(language)
    parts = []
    if scored.reason:
        parts.append(scored.reason)
    elif scored.line:
        parts.append(labels.why_line.format(line=scored.line))
    if scored.matched_terms and not scored.reason:
        parts.append(labels.why_terms.format(terms=", ".join(scored.matched_terms[:6])))
    return labels.separator.join(parts)


def _table_data(table: fulltext.document.Table) -> TableData | None:
    """The paper's table for the digest, trimmed to a readable size (None when empty)."""
    data = fulltext.to_table_data(table)
    if not data.rows:
        return None
    return TableData(
        header=data.header[:MAX_TABLE_COLUMNS],
        rows=tuple(row[:MAX_TABLE_COLUMNS] for row in data.rows[:MAX_TABLE_ROWS]),
        caption=shorten(data.caption, 200),
    )


def _from_fulltext(document: Document) -> dict[str, object]:
    """Fields the full text can fill: figure, results table, section sentences."""
    fields: dict[str, object] = {}
    figure = fulltext.choose_figure(document)
    if figure is not None:
        chosen = fulltext.to_figure(figure)
        fields["figure"] = replace(chosen, caption=shorten(chosen.caption, 300))
    for table in fulltext.results_tables(document, limit=1):
        data = _table_data(table)
        if data is not None:
            fields["results"] = data
            break
    problem = fulltext.section_sentences(document, "problem")[:3]
    if problem:
        fields["problem"] = " ".join(problem)
    method = fulltext.section_sentences(document, "method")[:5]
    if method:
        fields["steps"] = tuple(shorten(s, 400) for s in method)
    limitations = fulltext.section_sentences(document, "limitations")[:3]
    if limitations:
        fields["limitations"] = tuple(shorten(s, 400) for s in limitations)
    return fields


def write_brief_offline(
    scored: ScoredPaper, document: Document | None, profile: Profile
) -> PaperBrief:
    """Write one pick's brief from its abstract (and full text when there is one)."""
    language = profile.language
    labels = labels_for(language)
    paper = scored.paper
    parts = classify_abstract(paper.abstract)
    has_fulltext = document is not None and document.source not in ("abstract", "")
    fields: dict[str, object] = {
        "tldr": " ".join(parts.tldr),
        "problem": " ".join(parts.problem),
        "method": " ".join(parts.method),
        "result_notes": parts.results,
        "reported_numbers": parts.numbers,
    }
    if has_fulltext and document is not None:
        fields.update(_from_fulltext(document))
    key_sentence = next((s for s in parts.results if reported_numbers(s)), "") or (
        parts.method[0] if parts.method else (parts.tldr[0] if parts.tldr else paper.title)
    )
    if has_fulltext:
        notes = []
    else:
        notes = [labels.not_fetched if document is None else labels.abstract_only]
    if has_fulltext and document is not None and document.flags:
        flags = ", ".join(document.flags[:4])
        notes.append(f"{labels.source_label}{labels.colon}{document.source} ({flags})")
    return PaperBrief(
        scored=scored,
        reason=_reason(scored, language),
        direction=scored.line or paper.primary_category,
        contribution=shorten(standalone(key_sentence), 160),
        text_source=document.source if document is not None else NOT_FETCHED,
        notes=tuple(notes),
        **fields,  # type: ignore[arg-type]
    )


def _comparison(briefs: Sequence[PaperBrief], language: str) -> ComparisonTable:
    labels = labels_for(language)
    columns = tuple(shorten(b.paper.title, 40) for b in briefs)
    rows: list[tuple[str, tuple[str, ...]]] = [
        (labels.line, tuple(b.direction for b in briefs)),
        (labels.stars, tuple(stars_text(b.scored.stars) for b in briefs)),
        (labels.col_contribution, tuple(shorten(b.method or b.tldr, 90) for b in briefs)),
        (labels.matched_terms, tuple(", ".join(b.scored.matched_terms[:4]) for b in briefs)),
        (labels.source_label, tuple(b.text_source for b in briefs)),
    ]
    rows = [row for row in rows if any(cell.strip() for cell in row[1])]
    return ComparisonTable(columns=columns, rows=tuple(rows))


def write_day_offline(
    briefs: Sequence[PaperBrief],
    profile: Profile,
    *,
    digest_date: date,
    listing_day: date,
    papers_considered: int,
) -> Digest:
    """Assemble the day's digest from per-paper briefs (no synthesis beyond what is known)."""
    language = profile.language
    labels = labels_for(language)
    separator = labels.separator
    items = separator.join(
        labels.title_with_stars.format(title=b.paper.title, stars=stars_text(b.scored.stars))
        for b in briefs
    )
    any_fulltext = any(b.text_source not in ("abstract", NOT_FETCHED) for b in briefs)
    summary = labels.day_offline_summary.format(
        total=papers_considered,
        count=len(briefs),
        items=items,
        fulltext=labels.with_fulltext if any_fulltext else "",
    )
    top = max(briefs, key=lambda b: (b.scored.stars, b.scored.score))
    closing = labels.closing_offline.format(
        title=top.paper.title, line=top.direction, stars=stars_text(top.scored.stars)
    )
    title = profile.output.title.format(date=digest_date.isoformat())
    description = profile.output.description or shorten(
        separator.join(b.paper.title for b in briefs), 150
    )
    return Digest(
        digest_date=digest_date,
        listing_day=listing_day,
        language=language,
        title=title,
        description=description,
        briefs=tuple(briefs),
        summary=summary,
        comparisons=(_comparison(briefs, language),) if len(briefs) > 1 else (),
        closing=closing,
        papers_considered=papers_considered,
        provenance=Provenance(
            writer=OFFLINE_WRITER,
            sources={b.paper.id: b.text_source for b in briefs},
            notes=(labels.writer_offline,),
        ),
    )
