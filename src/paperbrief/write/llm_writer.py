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

from paperbrief import prompts
from paperbrief.fulltext.reading import ReadingPlan, plan_reading
from paperbrief.fulltext.units import abstract_units
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
from paperbrief.profile import LLMSettings, Profile
from paperbrief.text import shorten
from paperbrief.text.citations import Ref, format_refs, is_unit_id, parse_refs
from paperbrief.write.notes import fulltext_note, spent, trace_notes
from paperbrief.write.strict import strict_brief, strict_day
from paperbrief.write.trace import ClaimCheck
from paperbrief.write.verify import digest_checker_sources, trace_of, verify_digest

ABSTRACT_ONLY_NOTE = (
    "\nONLY THE ABSTRACT IS AVAILABLE (no full text; the digest already tells the reader, so"
    " do not say it again). Keep every section short: problem and insight one or two"
    " sentences, steps only as far as the abstract describes them (else []), results only"
    " rows whose numbers the abstract states (else []), limitations one or two; put what"
    " the abstract does not tell into source_gaps, once. Where you infer beyond it, say so"
    " once per section, not on every line.\n"
)
# The length the prompts ask for, per language (the digest format's 5–6k CJK characters
# for 3–5 papers, day-level parts included).
# A Chinese length counts Chinese characters only (as benchmarks/digest_length.py does):
# Latin letters, digits, citations and punctuation are not counted.
_CJK_ONLY = " (汉字 only: Latin letters, digits, citations and punctuation not counted)"
BRIEF_LENGTH = {"zh": "1,200–1,500 Chinese characters" + _CJK_ONLY, "en": "700–900 words"}
ABSTRACT_BRIEF_LENGTH = {"zh": "500–700 Chinese characters" + _CJK_ONLY, "en": "300–400 words"}
DAY_LENGTH = {"zh": "800–1,100 Chinese characters" + _CJK_ONLY, "en": "500–650 words"}


class ResultRow(BaseModel):
    benchmark: str = Field(description="Task or benchmark.")
    setting: str = Field(description="Setting or metric.")
    baseline: str = Field(description="Strongest baseline and its number, as reported.")
    theirs: str = Field(description="Their number, as reported.")
    delta: str = Field("", description="Change, only if the paper states it.")
    source: str = Field(description="Where in the paper: 'Table 2', 'Section 4.1', 'Abstract'.")
    cite: list[str] = Field(
        default_factory=list, description="Ids of the units stating this row's numbers."
    )


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
    source_gaps: str = ""


class SectionNote(BaseModel):
    section: str
    does: str = ""
    summary: str = ""
    findings: list[str] = Field(default_factory=list)


class SectionNotes(BaseModel):
    """A first reading pass over one part of a long paper (reader-independent)."""

    sections: list[SectionNote]


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


@dataclass(frozen=True)
class PaperData:
    """The paper-derived blocks of one deep-read prompt (all untrusted, all delimited)."""

    source: str
    figures: str
    text: str
    reading: str  # how it was read: "the whole main body", "notes of a first pass …"


def _abstract_data(document: Document | None, paper: Paper) -> PaperData:
    abstract = document.abstract if document is not None and document.abstract else paper.abstract
    title = (document.title if document is not None else "") or paper.title
    units = abstract_units(title, abstract)
    text = "## Abstract\n\n" + " ".join(f"[{i}] {units.units[i].text}" for i in units.abstract)
    return PaperData("abstract", "(none)", f"# {title}\n\n{text}", "the abstract only")


def reading_plan(document: Document, settings: LLMSettings) -> ReadingPlan:
    """How ``document`` is read with the profile's budgets."""
    return plan_reading(document, settings.paper_text_tokens, settings.reading_chunk_tokens)


def second_pass_text(plan: ReadingPlan, notes: Sequence[SectionNotes]) -> str:
    """The second pass of a long paper: abstract, every section's notes (their citations
    kept), the units the notes cite (verbatim), the main tables, limitations, conclusion."""
    abstract = " ".join(f"[{i}] {plan.units.units[i].text}" for i in plan.units.abstract)
    parts = [f"# {plan.units.title}" if plan.units.title else "", f"## Abstract\n\n{abstract}"]
    lines = ["## Notes of a first reading pass over every section"]
    cited: list[str] = []
    for part in notes:
        for note in part.sections:
            does = f" ({note.does})" if note.does.strip() else ""
            lines.append(f"### {note.section}{does}")
            if note.summary:
                lines.append(note.summary)
            lines.extend(f"- {finding}" for finding in note.findings)
            for finding in (note.summary, *note.findings):
                cited += [r.unit for r in parse_refs(finding) if r.unit.startswith("E")]
    parts.append("\n".join(lines))
    quoted = [u for u in dict.fromkeys(cited) if u in plan.units.units]
    if quoted:
        parts.append("## The sentences the notes cite\n\n" + "\n".join(
            f"[{u}] {plan.units.units[u].text}" for u in quoted
        ))  # fmt: skip
    if plan.essentials is not None and plan.essentials.text:
        parts.append("## Main tables, limitations and conclusion (verbatim)\n\n"
                     + plan.essentials.text)  # fmt: skip
    if plan.appendix:
        parts.append("## Appendix (not sent; outline)\n\n" + plan.appendix)
    return "\n\n".join(p for p in parts if p)


def paper_data(
    document: Document | None,
    paper: Paper,
    plan: ReadingPlan | None = None,
    notes: Sequence[SectionNotes] = (),
) -> PaperData:
    """Exactly the paper text the writer is sent (``paperbrief read --prompt`` prints it)."""
    if document is None or not document.has_fulltext or plan is None or (plan.mode == "abstract"):
        return _abstract_data(document, paper)
    if plan.mode == "two-pass":
        text = second_pass_text(plan, notes)
        reading = f"notes of a first pass over all {len(plan.parts)} parts, then tables and limits"
        return PaperData(document.source, plan.figures, text, reading)
    text = plan.parts[0].text
    if plan.appendix:
        text += "\n\n## Appendix (not sent; outline)\n\n" + plan.appendix
    return PaperData(document.source, plan.figures, text, "the whole main body")


_PAPER_PART = "Figures ("  # where the paper-derived part of paper_brief.md starts


def paper_prompt(document: Document, tokens: int) -> str:
    """Exactly the paper-derived part of the deep-read prompt for ``document`` at ``tokens``
    (single pass: figures and text, delimited and defused as sent; two passes: each part
    sent for notes, in order); what ``paperbrief read --prompt`` prints."""
    paper = Paper(
        id=document.arxiv_id, title=document.title, authors=document.authors,
        abstract=document.abstract, categories=(), primary_category="",
    )  # fmt: skip
    plan = plan_reading(document, tokens)
    if plan.mode == "two-pass":
        return "\n\n".join(
            notes_messages(paper, document, plan, index, "en")[1]["content"]
            for index in range(len(plan.parts))
        )
    user = _user_prompt(paper, data=paper_data(document, paper, plan), context={})
    return user[user.index(_PAPER_PART) :]


def notes_messages(
    paper: Paper, document: Document, plan: ReadingPlan, index: int, language: str
) -> list[dict[str, str]]:
    """The first-pass call for part ``index`` of a long paper: no profile, no pick reason
    (the notes are the paper's, whoever reads them)."""
    user = prompts.load("section_notes").substitute(
        part=index + 1,
        parts=len(plan.parts),
        language_name=prompts.LANGUAGE_NAMES[language],
        paper_id=paper.id,
        source=document.source,
        paper_text=prompts.defuse(plan.parts[index].text),
    )
    return [
        {"role": "system", "content": writer_system_prompt(language)},
        {"role": "user", "content": user},
    ]


def _user_prompt(paper: Paper, data: PaperData, context: dict[str, object]) -> str:
    abstract_only = data.source == "abstract"
    language = str(context.get("language", "zh"))
    lengths = ABSTRACT_BRIEF_LENGTH if abstract_only else BRIEF_LENGTH
    fields: dict[str, object] = {
        "profile": "",
        "pick_reason": "",
        "line": "",
        "stars": "",
        "language_name": "",
        **{k: v for k, v in context.items() if k != "language"},
        "length": lengths.get(language, lengths["en"]),
        "abstract_only_note": ABSTRACT_ONLY_NOTE if abstract_only else "",
        "figures": prompts.defuse(data.figures),
        "paper_id": paper.id,
        "source": data.source,
        "reading": data.reading,
        "paper_text": prompts.defuse(data.text),
    }
    return prompts.load("paper_brief").substitute(fields)


def paper_messages(
    scored: ScoredPaper,
    document: Document | None,
    profile: Profile,
    language: str,
    plan: ReadingPlan | None = None,
    notes: Sequence[SectionNotes] = (),
) -> list[dict[str, str]]:
    """The two messages of one deep read (for a two-pass plan: the second pass, from the
    notes); exposed so tests and benchmarks can inspect them."""
    if plan is None and document is not None and document.has_fulltext:
        plan = reading_plan(document, profile.llm)
    paper = scored.paper
    data = paper_data(document, paper, plan, notes)
    user = _user_prompt(
        paper,
        data,
        {
            "profile": prompts.describe_profile(profile),
            "pick_reason": prompts.defuse(scored.reason or "(none given)"),
            "line": scored.line or "(none)",
            "stars": scored.stars,
            "language_name": prompts.LANGUAGE_NAMES[language],
            "language": language,
        },
    )
    return [
        {"role": "system", "content": writer_system_prompt(language)},
        {"role": "user", "content": user},
    ]


# ------------------------------------------------------------------ per paper
def results_table(rows: list[ResultRow], language: str) -> TableData | None:
    if not rows:
        return None
    body = tuple(
        (r.benchmark, r.setting, r.baseline, r.theirs, r.delta,
         " ".join(p for p in (r.source, format_refs([Ref(None, c.strip()) for c in r.cite
                                                     if is_unit_id(c)])) if p))
        for r in rows
    )  # fmt: skip
    return TableData(header=labels_for(language).result_headers, rows=body)


def figure_of(index: int, caption: str, document: Document | None) -> Figure | None:
    """The figure the writer chose (by its index in the figure list), if it can be shown."""
    if document is None or not (0 <= index < len(document.figures)):
        return None
    chosen = document.figures[index]
    if not chosen.url:  # drawn inline or failed to convert: nothing to show
        return None
    return Figure(caption=caption or chosen.caption, url=chosen.url, label=chosen.label)


def brief_from_read(
    read: PaperRead, scored: ScoredPaper, document: Document | None, language: str
) -> PaperBrief:
    """Turn the validated answer into the shared ``PaperBrief`` value."""
    abstract_only = document is None or not document.has_fulltext
    figure = figure_of(read.figure_index, read.figure_caption, document)
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
        results=results_table(read.results, language),
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
        notes=tuple(n for n in (note, read.source_gaps.strip()) if n),
    )


def section_notes(
    client: StructuredLLM,
    paper: Paper,
    document: Document,
    plan: ReadingPlan,
    language: str,
    max_tokens: int,
) -> list[SectionNotes]:
    """A long paper's first-pass notes, one ``writer-notes`` call per part (none when the
    plan reads the paper in one pass). They are the paper's, with no reader in the prompt,
    so the LLM's answer cache answers them for the next reader at no cost."""
    if plan.mode != "two-pass":
        return []
    return [
        client.complete_json(
            "writer-notes",
            notes_messages(paper, document, plan, index, language),
            SectionNotes,
            max_tokens=max_tokens,
        )
        for index in range(len(plan.parts))
    ]


def write_brief_llm(
    client: StructuredLLM,
    scored: ScoredPaper,
    document: Document | None,
    profile: Profile,
    language: str | None = None,
) -> PaperBrief:
    """One pick's deep read (one ``writer`` call, or none when the answer is cached)."""
    language = language or profile.language
    plan = None
    notes: list[SectionNotes] = []
    if document is not None and document.has_fulltext:
        plan = reading_plan(document, profile.llm)
        notes = section_notes(
            client, scored.paper, document, plan, language, profile.llm.writer_max_tokens
        )
    messages = paper_messages(scored, document, profile, language, plan, notes)
    read = client.complete_json(
        "writer", messages, PaperRead, max_tokens=profile.llm.writer_max_tokens
    )
    return brief_from_read(read, scored, document, language)


# -------------------------------------------------------------------- per day
def _pick_summary(pick: int, brief: PaperBrief) -> dict[str, object]:
    """One pick as the day synthesis sees it: its read with the read's citations (which
    the day's sentences cite as ``pick:unit``)."""
    results = brief.results.rows if brief.results else ()
    return {
        "pick": pick,
        "id": brief.paper.id,
        "title": brief.paper.title,
        "stars": brief.scored.stars,
        "line": brief.scored.line,
        "source": brief.text_source,
        "reason": brief.reason,
        "tldr": brief.tldr,
        "problem": brief.problem,
        "insight": brief.insight,
        "steps": list(brief.steps),  # the synthesis uses only the reads' facts: all of them
        "difference": brief.difference,
        "contribution": brief.contribution,
        "results": [" | ".join(cell for cell in row if cell) for row in results],
        "result_notes": list(brief.result_notes),
        "limitations": list(brief.limitations),
        "open_questions": list(brief.open_questions),
        "technique": brief.implications.technique if brief.implications else "",
        "experiment": brief.implications.experiment if brief.implications else "",
        "trend": brief.implications.trend if brief.implications else "",
        "notes": list(brief.notes),  # what the source does not tell
    }


def day_messages(
    briefs: Sequence[PaperBrief], profile: Profile, language: str, papers_considered: int
) -> list[dict[str, str]]:
    summaries = [_pick_summary(n, b) for n, b in enumerate(briefs, 1)]
    picks = json.dumps(summaries, ensure_ascii=False, indent=1)
    user = prompts.load("day_synthesis").substitute(
        profile=prompts.describe_profile(profile),
        papers_considered=papers_considered,
        count=len(briefs),
        length=DAY_LENGTH.get(language, DAY_LENGTH["en"]),
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
    cuts: list[ClaimCheck] = []
    if strict:  # the synthesis never sees a claim strict mode cut
        before = _draft(briefs, profile, language, day)
        sources = digest_checker_sources(before, documents, known)
        cut = [strict_brief(brief, sources) for brief in briefs]
        briefs = [brief for brief, _ in cut]
        cuts += [check for _, checks in cut for check in checks]
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
    sources = digest_checker_sources(digest, documents, known)
    if strict:
        digest, cut_day = strict_day(digest, sources)
        cuts += cut_day
    report = verify_digest(digest, documents, known)
    provenance = Provenance(
        writer=client.model_for("writer"),
        sources={b.paper.id: b.text_source for b in briefs},
        numbers_checked=report.claims,
        numbers_verified=report.traced,
        notes=trace_notes(report, cuts, labels),
        trace=trace_of(
            report, sources, documents, cuts, {b.paper.id: b.paper.version for b in digest.briefs}
        ),
        **spent(client),
    )
    return dataclasses.replace(digest, provenance=provenance)
