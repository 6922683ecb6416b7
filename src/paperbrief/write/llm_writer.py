"""The LLM writer: a grounded deep read per pick, and the day-level synthesis.

Entry points (``write.LLMWriter`` runs them, many picks at once, with the offline writer
as its fallback):

* ``write_brief_llm(client, scored, document, profile, language=None) -> PaperBrief`` — one
  call (role ``writer``) from the document's budgeted text + evidence index, the reader's
  profile and the pick's reason. ``document`` None means abstract only.
* ``write_day_llm(client, briefs, profile, day, language=None, *, documents=None,
  strict=False) -> Digest`` — one call (role ``writer-day``) from the per-paper briefs
  only; verifies the numbers against ``documents`` and fills the provenance (model,
  tokens, cost, verified counts).

Paper text is untrusted: the system prompt never contains it; it travels in the user
message inside ``<paper>`` tags (any closing tag inside it is defused), and the answer is
validated against a fixed schema.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from paperbrief import fulltext, prompts
from paperbrief.labels import labels_for
from paperbrief.llm import StructuredLLM
from paperbrief.models import (
    ComparisonTable,
    DayFacts,
    Digest,
    Document,
    Figure,
    Implications,
    Paper,
    PaperBrief,
    Provenance,
    ScoredPaper,
    TableData,
)
from paperbrief.profile import Profile
from paperbrief.text import estimate_tokens, shorten
from paperbrief.write.notes import fulltext_note, spent, strict_note, unverified_notes
from paperbrief.write.strict import strict_brief, strict_day
from paperbrief.write.verify import digest_checker, verify_digest

EVIDENCE_TOKENS = 1200
EVIDENCE_CHARS = 240
ABSTRACT_ONLY_NOTE = (
    "\nONLY THE ABSTRACT IS AVAILABLE (no full text). Say so in the tldr, take result rows"
    ' only from the abstract (source "Abstract"), and mark everything the abstract does not'
    " state — method details, limitations, causes — as extrapolation.\n"
)


class ResultRow(BaseModel):
    benchmark: str = Field(description="Task or benchmark.")
    setting: str = Field(description="Setting or metric.")
    baseline: str = Field(description="Strongest baseline and its number, as reported.")
    theirs: str = Field(description="Their number, as reported.")
    delta: str = Field("", description="Change, only if the paper states it.")
    source: str = Field(description="Where in the paper: 'Table 2', 'Section 4.1', 'Abstract'.")


class PaperRead(BaseModel):
    """The writer's answer for one paper (becomes a ``PaperBrief``)."""

    reason: str
    tldr: str
    problem: str
    insight: str
    steps: list[str]
    difference: str
    results: list[ResultRow]
    result_notes: list[str]
    limitations: list[str]
    open_questions: list[str]
    technique: str
    experiment: str
    trend: str
    direction: str
    contribution: str
    figure_index: int = -1
    figure_caption: str = ""


class ComparisonRow(BaseModel):
    dimension: str
    cells: list[str]


class DaySynthesis(BaseModel):
    """The writer's answer for the day (becomes fields of the ``Digest``)."""

    summary: str
    theme_title: str
    theme: str
    short_names: list[str]
    comparison: list[ComparisonRow]
    closing: str


# ------------------------------------------------------------------- prompts
def writer_system_prompt(language: str) -> str:
    """The fixed system prompt: the same for every paper of a language (no paper text)."""
    return prompts.load("system").substitute(
        language_name=prompts.LANGUAGE_NAMES[language],
        language_style=prompts.LANGUAGE_STYLE[language],
    )


def evidence_block(document: Document, paper_text: str) -> str:
    """Number-bearing evidence the paper text left out, within ``EVIDENCE_TOKENS``.

    Tables and sentences already in the text are skipped (the text shows where they are),
    so the block adds locations for numbers the budget cut, at little cost. A cell reads
    ``Table 4 · <row> · <column>: <cell>``.
    """
    lines: list[str] = []
    used = 0
    for evidence in fulltext.evidence_index(document):
        label = evidence.location
        if not evidence.numbers or f"**{label}.**" in paper_text or evidence.text in paper_text:
            continue  # (a sentence whose only number is part of a name adds nothing here)
        joiner = " · " if evidence.cell else ": "
        line = f"{label}{joiner}{evidence.text[:EVIDENCE_CHARS]}"
        cost = estimate_tokens(line)
        if used + cost > EVIDENCE_TOKENS:
            break
        lines.append(line)
        used += cost
    return "\n".join(lines) or "(all in the text below)"


@dataclass(frozen=True)
class PaperData:
    """The paper-derived blocks of one deep-read prompt (all untrusted, all delimited)."""

    source: str
    figures: str
    evidence: str
    text: str


def paper_data(document: Document | None, paper: Paper, tokens: int) -> PaperData:
    """Exactly the paper text the writer is sent (``paperbrief read --prompt`` prints it)."""
    if document is None or not document.has_fulltext:
        abstract = document.abstract if document is not None else paper.abstract
        title = (document.title if document is not None else "") or paper.title
        return PaperData(
            "abstract", "(none)", f"Abstract: {abstract}", f"Title: {title}\n\nAbstract: {abstract}"
        )
    view = fulltext.writer_view(document, tokens)
    return PaperData(document.source, view.figures, evidence_block(document, view.text), view.text)


_PAPER_PART = "Figures available"  # where the paper-derived part of paper_brief.md starts


def paper_prompt(document: Document, tokens: int) -> str:
    """Exactly the paper-derived part of the deep-read prompt for ``document`` at ``tokens``
    (figures, evidence and text blocks, delimited and defused as sent); what
    ``paperbrief read --prompt`` prints so a reader can see what the model saw."""
    paper = Paper(
        id=document.arxiv_id, title=document.title, authors=document.authors,
        abstract=document.abstract, categories=(), primary_category="",
    )  # fmt: skip
    user = _user_prompt(paper, data=paper_data(document, paper, tokens), context={})
    return user[user.index(_PAPER_PART) :]


def _user_prompt(paper: Paper, data: PaperData, context: dict[str, object]) -> str:
    abstract_only = data.source == "abstract"
    fields: dict[str, object] = {
        "profile": "",
        "pick_reason": "",
        "line": "",
        "stars": "",
        "language_name": "",
        **context,
        "abstract_only_note": ABSTRACT_ONLY_NOTE if abstract_only else "",
        "figures": prompts.defuse(data.figures),
        "paper_id": paper.id,
        "source": data.source,
        "evidence": prompts.defuse(data.evidence),
        "paper_text": prompts.defuse(data.text),
    }
    return prompts.load("paper_brief").substitute(fields)


def paper_messages(
    scored: ScoredPaper, document: Document | None, profile: Profile, language: str
) -> list[dict[str, str]]:
    """The two messages of one deep read; exposed so tests and benchmarks can inspect them."""
    paper = scored.paper
    data = paper_data(document, paper, profile.llm.paper_text_tokens)
    user = _user_prompt(
        paper,
        data,
        {
            "profile": prompts.describe_profile(profile),
            "pick_reason": prompts.defuse(scored.reason or "(none given)"),
            "line": scored.line or "(none)",
            "stars": scored.stars,
            "language_name": prompts.LANGUAGE_NAMES[language],
        },
    )
    return [
        {"role": "system", "content": writer_system_prompt(language)},
        {"role": "user", "content": user},
    ]


# ------------------------------------------------------------------ per paper
def _results_table(rows: list[ResultRow], language: str) -> TableData | None:
    if not rows:
        return None
    body = tuple((r.benchmark, r.setting, r.baseline, r.theirs, r.delta, r.source) for r in rows)
    return TableData(header=labels_for(language).result_headers, rows=body)


def _figure(read: PaperRead, document: Document | None) -> Figure | None:
    if document is None or not (0 <= read.figure_index < len(document.figures)):
        return None
    chosen = document.figures[read.figure_index]
    return Figure(caption=read.figure_caption or chosen.caption, url=chosen.url, label=chosen.label)


def brief_from_read(
    read: PaperRead, scored: ScoredPaper, document: Document | None, language: str
) -> PaperBrief:
    """Turn the validated answer into the shared ``PaperBrief`` value."""
    abstract_only = document is None or not document.has_fulltext
    figure = _figure(read, document)
    labels = labels_for(language)
    # No document at all means the pipeline had only the listing's abstract to give.
    note = fulltext_note(document, labels, figure is not None) if document else labels.abstract_only
    return PaperBrief(
        scored=scored,
        reason=read.reason or scored.reason,
        tldr=read.tldr,
        problem=read.problem,
        insight=read.insight,
        steps=tuple(s for s in read.steps if s.strip()),
        difference=read.difference,
        results=_results_table(read.results, language),
        result_notes=tuple(read.result_notes),
        limitations=tuple(read.limitations),
        open_questions=tuple(read.open_questions),
        implications=Implications(
            technique=read.technique, experiment=read.experiment, trend=read.trend
        ),
        figure=figure,
        direction=read.direction,
        contribution=read.contribution,
        text_source="abstract" if abstract_only or document is None else document.source,
        notes=(note,) if note else (),
    )


def write_brief_llm(
    client: StructuredLLM,
    scored: ScoredPaper,
    document: Document | None,
    profile: Profile,
    language: str | None = None,
) -> PaperBrief:
    """One pick's deep read (one ``writer`` call, or none when the answer is cached)."""
    language = language or profile.language
    messages = paper_messages(scored, document, profile, language)
    read = client.complete_json(
        "writer", messages, PaperRead, max_tokens=profile.llm.writer_max_tokens
    )
    return brief_from_read(read, scored, document, language)


# -------------------------------------------------------------------- per day
def _pick_summary(brief: PaperBrief) -> dict[str, object]:
    results = brief.results.rows if brief.results else ()
    return {
        "id": brief.paper.id,
        "title": brief.paper.title,
        "stars": brief.scored.stars,
        "line": brief.scored.line,
        "source": brief.text_source,
        "reason": brief.reason,
        "tldr": brief.tldr,
        "problem": brief.problem,
        "insight": brief.insight,
        "contribution": brief.contribution,
        "results": [" | ".join(cell for cell in row if cell) for row in results],
        "result_notes": list(brief.result_notes),
        "limitations": list(brief.limitations),
        "technique": brief.implications.technique if brief.implications else "",
        "experiment": brief.implications.experiment if brief.implications else "",
    }


def day_messages(
    briefs: Sequence[PaperBrief], profile: Profile, language: str, papers_considered: int
) -> list[dict[str, str]]:
    picks = json.dumps([_pick_summary(b) for b in briefs], ensure_ascii=False, indent=1)
    user = prompts.load("day_synthesis").substitute(
        profile=prompts.describe_profile(profile),
        papers_considered=papers_considered,
        count=len(briefs),
        picks=prompts.defuse(picks),
    )
    return [
        {"role": "system", "content": writer_system_prompt(language)},
        {"role": "user", "content": user},
    ]


def _comparison(synthesis: DaySynthesis, briefs: Sequence[PaperBrief]) -> ComparisonTable | None:
    count = len(briefs)
    names = list(synthesis.short_names[:count])
    names += [b.paper.title[:40] for b in briefs[len(names) :]]
    rows = tuple(
        (row.dimension, tuple((row.cells + [""] * count)[:count]))
        for row in synthesis.comparison
        if row.dimension.strip()
    )
    return ComparisonTable(columns=tuple(names), rows=rows) if rows and count > 1 else None


def _draft(briefs: Sequence[PaperBrief], profile: Profile, language: str, day: DayFacts) -> Digest:
    """The day's digest around its briefs, before the synthesis fills the day-level parts."""
    separator = labels_for(language).separator
    return Digest(
        digest_date=day.digest_date,
        listing_day=day.listing_day,
        language=language,
        title=profile.output.title.format(date=day.digest_date.isoformat()),
        description=profile.output.description
        or shorten(separator.join(b.paper.title for b in briefs), 150),
        briefs=tuple(briefs),
        papers_considered=day.papers_considered,
    )


def write_day_llm(
    client: StructuredLLM,
    briefs: Sequence[PaperBrief],
    profile: Profile,
    day: DayFacts,
    language: str | None = None,
    *,
    documents: dict[str, Document] | None = None,
    strict: bool = False,
) -> Digest:
    """The day's digest: one synthesis call over the briefs, then number verification.

    With ``strict`` (or ``[llm] strict_numbers``) the unit around each unsupported number
    (its parenthesis, clause or table cell) is cut from the briefs before the day is written,
    so the synthesis never sees it, and from the day-level parts after; the footer says how
    many were removed (``write.strict``).
    """

    language = language or profile.language
    labels = labels_for(language)
    documents = documents or {}
    briefs = list(briefs)
    known = [prompts.describe_profile(profile)]  # the reader's own numbers are not paper claims
    strict = strict or profile.llm.strict_numbers
    removed = 0
    if strict:
        before = _draft(briefs, profile, language, day)
        checker = digest_checker(before, documents, known)
        cut = [strict_brief(brief, checker) for brief in briefs]
        briefs = [brief for brief, _ in cut]
        removed = sum(count for _, count in cut)
    synthesis = client.complete_json(
        "writer-day",
        day_messages(briefs, profile, language, day.papers_considered),
        DaySynthesis,
        max_tokens=profile.llm.writer_max_tokens,
    )
    comparison = _comparison(synthesis, briefs)
    digest = dataclasses.replace(
        _draft(briefs, profile, language, day),
        summary=synthesis.summary,
        theme_title=synthesis.theme_title,
        theme=synthesis.theme,
        comparisons=(comparison,) if comparison else (),
        closing=synthesis.closing,
    )
    if strict:
        digest, cut_day = strict_day(digest, digest_checker(digest, documents, known))
        removed += cut_day
    report = verify_digest(digest, documents, known)
    provenance = Provenance(
        writer=client.model_for("writer"),
        sources={b.paper.id: b.text_source for b in briefs},
        numbers_checked=report.numbers,
        numbers_verified=report.verified,
        notes=(*strict_note(removed, labels), *unverified_notes(report, labels)),
        **spent(client),
    )
    return dataclasses.replace(digest, provenance=provenance)
