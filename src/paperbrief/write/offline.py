"""The offline writer: an honest digest from what is known, without an LLM.

It only selects and arranges what the authors wrote (abstract sentences, full-text sections,
the paper's own tables and figure) and what the ranker measured (research line, matched
terms, stars). Sections it cannot fill honestly stay empty, and the renderer leaves them out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from paperbrief import fulltext, prompts
from paperbrief.fulltext.units import UnitIndex, abstract_units, build_units, table_key
from paperbrief.labels import labels_for, stars_text
from paperbrief.models import (
    OFFLINE_WRITER,
    ComparisonTable,
    DayFacts,
    Digest,
    Document,
    PaperBrief,
    Provenance,
    ScoredPaper,
    Table,
    TableData,
)
from paperbrief.profile import Profile
from paperbrief.text import clean_tex, find_numbers, reported_numbers, shorten
from paperbrief.text.citations import Ref, claim_sentences, format_refs
from paperbrief.write.extract import classify_abstract, is_finding, standalone
from paperbrief.write.notes import fulltext_note, trace_notes
from paperbrief.write.verify import digest_checker_sources, trace_of, verify_digest

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


def _table_data(table: Table) -> TableData | None:
    """The paper's table for the digest, trimmed to a readable size (None when empty)."""
    data = fulltext.to_table_data(table)
    if not data.rows:
        return None
    return TableData(
        header=tuple(clean_tex(h) for h in data.header[:MAX_TABLE_COLUMNS]),
        rows=tuple(
            tuple(clean_tex(cell) for cell in row[:MAX_TABLE_COLUMNS])
            for row in data.rows[:MAX_TABLE_ROWS]
        ),
        caption=shorten(clean_tex(data.caption), 200),
    )


def _key(sentence: str) -> str:
    """A sentence folded for "already printed?": letters and digits only, lower case (the
    abstract and the body often repeat a sentence with other spacing or hyphenation)."""
    return "".join(char for char in sentence.lower() if char.isalnum())


class _Citer:
    """The unit each extracted sentence was taken from, so the offline brief cites what it
    extracted and is traced like any other (a sentence shortened with "…" or stripped of a
    leading connective still finds its unit)."""

    def __init__(self, units: UnitIndex) -> None:
        self.exact: dict[str, str] = {}
        self.keys: list[tuple[str, str]] = []
        for unit in units:
            if unit.kind == "sentence" and not unit.quoted:
                key = _key(unit.text)
                self.exact.setdefault(key, unit.id)
                self.keys.append((key, unit.id))

    def unit_of(self, sentence: str) -> str | None:
        key = _key(sentence.rstrip(" …"))
        if key in self.exact:
            return self.exact[key]
        if len(key) < 30:
            return None
        for unit_key, unit_id in self.keys:
            if unit_key.endswith(key) or unit_key.startswith(key):
                return unit_id
        return None

    def cite(self, sentence: str) -> str:
        unit = self.unit_of(sentence)
        return f"{sentence} [{unit}]" if unit else sentence

    def join(self, sentences: Sequence[str]) -> str:
        return " ".join(self.cite(s) for s in sentences)


def _with_unit(text: str, unit: str | None) -> str:
    return f"{text} [{unit}]" if unit else text


def _cited_rows(table: Table, data: TableData) -> TableData:
    """The digest's copy of a paper table, each row citing its own cells."""
    key = table_key(table.label)
    if not key:
        return data
    rows = []
    for number, row in enumerate(data.rows, 1):
        refs = [f"{key}.r{number}.c{c}" for c, cell in enumerate(row, 1) if cell.strip()]
        last = max((i for i, cell in enumerate(row) if cell.strip()), default=-1)
        cells = list(row)
        if last >= 0 and refs:
            cells[last] = f"{cells[last]} [{', '.join(refs)}]"
        rows.append(tuple(cells))
    return replace(data, rows=tuple(rows))


def _unused(sentences: list[str], used: set[str], limit: int) -> list[str]:
    """Up to ``limit`` sentences not printed elsewhere in the brief (then marked used)."""
    out: list[str] = []
    for sentence in sentences:
        key = _key(sentence)
        if key in used or len(out) >= limit:
            continue
        used.add(key)
        out.append(sentence)
    return out


_SIGNPOST = re.compile(
    r"^(?:in this (?:section|chapter|part)|this section|in the (?:following|next|remainder)|"
    r"we now|here,? we|next,? we|as (?:shown|illustrated|described) (?:in|above)|"
    r"see (?:figure|table|section))",
    re.IGNORECASE,
)


def _substantive(sentence: str) -> bool:
    """A sentence that says something on its own: not a signpost ("In this section, we …"),
    not a fragment."""
    return len(sentence) >= 40 and not _SIGNPOST.match(sentence)


def _from_fulltext(document: Document, used: set[str], citer: _Citer) -> dict[str, object]:
    """Fields the full text can fill: figure, results table, section sentences (each citing
    its unit). Sentences already printed (``used``) are not printed again."""
    fields: dict[str, object] = {}
    figure = fulltext.choose_figure(document)
    if figure is not None:
        chosen = fulltext.to_figure(figure)
        fields["figure"] = replace(chosen, caption=shorten(chosen.caption, 300))
    for table in fulltext.results_tables(document, limit=1):
        data = _table_data(table)
        if data is not None:
            fields["results"] = _cited_rows(table, data)
            break
    problem = _unused(fulltext.section_sentences(document, "problem"), used, 3)
    if problem:
        fields["problem"] = citer.join(problem)
    method = [s for s in fulltext.section_sentences(document, "method") if _substantive(s)]
    method = _unused(method, used, 5)
    if method:
        fields["steps"] = tuple(citer.cite(shorten(s, 400)) for s in method)
    findings = [
        s for s in fulltext.section_sentences(document, "results") if is_finding(s) and len(s) < 600
    ]
    findings = _unused(findings, used, 3)
    if findings:
        fields["result_notes_fulltext"] = tuple(citer.cite(shorten(s, 400)) for s in findings)
    limitations = _unused(fulltext.section_sentences(document, "limitations"), used, 3)
    if limitations:
        fields["limitations"] = tuple(citer.cite(shorten(s, 400)) for s in limitations)
    return fields


def write_brief_offline(
    scored: ScoredPaper, document: Document | None, profile: Profile
) -> PaperBrief:
    """Write one pick's brief from its abstract (and full text when there is one).

    Every sentence is printed once: the TL;DR's sentences are not repeated under the method
    or the results, and "numbers reported" lists only number sentences shown nowhere else.
    Only findings go under the results; TeX is read as text.
    """
    language = profile.language
    labels = labels_for(language)
    paper = scored.paper
    parts = classify_abstract(paper.abstract)
    has_fulltext = document is not None and document.has_fulltext
    units = (
        build_units(document)
        if has_fulltext and document is not None
        else abstract_units(paper.title, paper.abstract)
    )
    citer = _Citer(units)
    used = {
        _key(s)
        for s in (*parts.tldr, *parts.problem, *parts.method, *parts.results, *parts.numbers)
    }
    fields: dict[str, object] = {
        "tldr": citer.join(parts.tldr),
        "problem": citer.join(parts.problem),
        "method": citer.join(parts.method),
        "result_notes": tuple(citer.cite(s) for s in parts.results),
        "reported_numbers": tuple(citer.cite(s) for s in parts.numbers),
    }
    if has_fulltext and document is not None:
        extra = _from_fulltext(document, used, citer)
        notes_from_paper = extra.pop("result_notes_fulltext", ())
        fields.update(extra)
        fields["result_notes"] = (*fields["result_notes"], *notes_from_paper)  # type: ignore[misc]
    # the overview's line is the TL;DR's headline result when it has one
    headline = (*parts.tldr[1:], *parts.results, *parts.tldr[:1])
    key_sentence = next((s for s in headline if reported_numbers(s)), "") or (
        parts.tldr[0] if parts.tldr else paper.title
    )
    note = fulltext_note(document, labels, bool(fields.get("figure")))
    return PaperBrief(
        scored=scored,
        reason=_reason(scored, language),
        direction=scored.line or paper.primary_category,
        contribution=_with_unit(
            shorten(standalone(key_sentence), 160), citer.unit_of(key_sentence)
        ),
        text_source=document.source if document is not None else NOT_FETCHED,
        notes=(note,) if note else (),
        **fields,  # type: ignore[arg-type]
    )


def _key_numbers(brief: PaperBrief) -> str:
    """The numbers a brief reports, as written, for the comparison, with the units they
    were cited from: the TL;DR's first, and measured quantities (with a unit or decimals)
    before bare counts."""
    fields = (brief.tldr, *brief.result_notes, *brief.reported_numbers)
    found: list[tuple[bool, int, str, tuple[Ref, ...]]] = []
    for field_text in fields:
        for sentence in claim_sentences(field_text):
            for mention in find_numbers(sentence.plain):
                measured = bool(mention.unit or mention.decimals)
                stated = mention.kind == "value" and mention.standalone
                new = mention.text not in (text for _, _, text, _ in found)
                if stated and new and (measured or mention.value > 10) and sentence.refs:
                    found.append((not measured, len(found), mention.text, sentence.refs))
    chosen = sorted(found)[:5]
    refs = list(dict.fromkeys(ref for *_, refs in chosen for ref in refs))
    text = ", ".join(number for _, _, number, _ in chosen)
    return f"{text} {format_refs(refs)}" if text else ""


def _comparison(briefs: Sequence[PaperBrief], language: str) -> ComparisonTable:
    labels = labels_for(language)
    columns = tuple(shorten(b.paper.title.split(":", 1)[0], 40) for b in briefs)
    rows: list[tuple[str, tuple[str, ...]]] = [
        (labels.line, tuple(b.direction for b in briefs)),
        (labels.stars, tuple(stars_text(b.scored.stars) for b in briefs)),
        (labels.key_numbers, tuple(_key_numbers(b) for b in briefs)),
        (labels.matched_terms, tuple(", ".join(b.scored.matched_terms[:4]) for b in briefs)),
        (labels.source_label, tuple(labels.source_name(b.text_source) for b in briefs)),
    ]
    rows = [row for row in rows if any(cell.strip() for cell in row[1])]
    return ComparisonTable(columns=columns, rows=tuple(rows))


def write_day_offline(
    briefs: Sequence[PaperBrief],
    profile: Profile,
    day: DayFacts,
    documents: Mapping[str, Document] | None = None,
) -> Digest:
    """Assemble the day's digest from per-paper briefs (no synthesis beyond what is known),
    and trace its claims to the units the briefs cite, like an LLM-written digest."""
    language = profile.language
    labels = labels_for(language)
    separator = labels.separator
    items = separator.join(
        labels.title_with_stars.format(title=b.paper.title, stars=stars_text(b.scored.stars))
        for b in briefs
    )
    any_fulltext = any(b.text_source not in ("abstract", NOT_FETCHED) for b in briefs)
    summary = labels.day_offline_summary.format(
        total=day.papers_considered,
        count=len(briefs),
        items=items,
        fulltext=labels.with_fulltext if any_fulltext else "",
    )
    top = max(briefs, key=lambda b: (b.scored.stars, b.scored.score))
    closing = labels.closing_offline.format(
        title=top.paper.title, line=top.direction, stars=stars_text(top.scored.stars)
    )
    title = profile.output.title.format(date=day.digest_date.isoformat())
    description = profile.output.description or shorten(
        separator.join(b.paper.title for b in briefs), 150
    )
    digest = Digest(
        digest_date=day.digest_date,
        listing_day=day.listing_day,
        language=language,
        title=title,
        description=description,
        briefs=tuple(briefs),
        summary=summary,
        comparisons=(_comparison(briefs, language),) if len(briefs) > 1 else (),
        closing=closing,
        papers_considered=day.papers_considered,
    )
    documents = documents or {}
    known = [prompts.describe_profile(profile)]
    report = verify_digest(digest, documents, known)
    sources = digest_checker_sources(digest, documents, known)
    return replace(
        digest,
        provenance=Provenance(
            writer=OFFLINE_WRITER,
            sources={b.paper.id: b.text_source for b in briefs},
            numbers_checked=report.claims,
            numbers_verified=report.traced,
            notes=(labels.writer_offline, *trace_notes(report, (), labels)),
            trace=trace_of(
                report, sources, documents, (), {b.paper.id: b.paper.version for b in briefs}
            ),
        ),
    )
