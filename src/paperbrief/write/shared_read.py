"""The paper read once (issue 22): a full-text deep read in two halves.

* ``read_paper`` — the **reading** (role ``writer-reading``, prompt ``paper_reading.md``):
  what the paper does and shows, with its evidence citations, from the paper's text only (no
  profile, no pick reason). It is the same for every reader, so it is kept in the store
  (``ReadingCache``, ``store.readings``) per paper version, writer model and language, with
  the hash of its prompt as its basis: a second reader whose picks include the paper pays
  nothing for it, and a changed text or prompt is read again.
* ``write_for_reader`` — the **reader's part** (role ``writer-reader``, prompt
  ``paper_for_reader.md``): why it was picked, what it means for this reader's lines and
  assets, a technique to use and an experiment, written from the reading, the abstract and
  the reader's profile, never from the whole paper again.

``brief_from_parts`` joins them into the one ``PaperBrief`` the digest shows; the verifier
and strict mode then check the brief as a whole (``write_day_llm``), so both halves are held
to their citations. A paper known only by its abstract is not split
(``llm_writer.write_brief_llm`` writes it in one call): its reading would cost more to send
again than the abstract it came from.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel

from paperbrief import prompts
from paperbrief.fulltext.reading import ReadingPlan
from paperbrief.labels import labels_for
from paperbrief.llm import StructuredLLM
from paperbrief.models import (
    Document,
    Implications,
    Paper,
    PaperBrief,
    PaperReading,
    ScoredPaper,
)
from paperbrief.profile import Profile
from paperbrief.write.llm_writer import (
    ResultRow,
    SectionNotes,
    figure_of,
    paper_data,
    reading_plan,
    results_table,
    section_notes,
    writer_system_prompt,
)
from paperbrief.write.notes import fulltext_note

# What each half asks for, per language (together near the one-call brief's length).
READING_LENGTH = {"zh": "900–1,100 Chinese characters", "en": "550–700 words"}
READER_LENGTH = {"zh": "350–450 Chinese characters", "en": "180–250 words"}


class ReadingAnswer(BaseModel):
    """The writer's reading of one paper (becomes a ``PaperReading``)."""

    tldr: str
    problem: str
    insight: str
    steps: list[str]
    difference: str
    results: list[ResultRow]
    result_notes: list[str]
    limitations: list[str]
    open_questions: list[str]
    direction: str
    contribution: str
    figure_index: int = -1
    figure_caption: str = ""
    source_gaps: str = ""


class ReaderPart(BaseModel):
    """The writer's answer on what one paper means for one reader."""

    reason: str
    technique: str
    experiment: str
    trend: str


class ReadingCache(Protocol):
    """Where readings are kept (the store's ``readings`` part)."""

    def load(
        self, paper_id: str, version: int | None, model: str, language: str, basis: str
    ) -> PaperReading | None: ...

    def save(
        self, reading: PaperReading, version: int | None, model: str, language: str, basis: str
    ) -> None: ...


# ------------------------------------------------------------------- prompts
def reading_messages(
    paper: Paper,
    document: Document,
    plan: ReadingPlan,
    notes: Sequence[SectionNotes],
    language: str,
) -> list[dict[str, str]]:
    """The reading's two messages: the paper's text as the one-call deep read sends it
    (``llm_writer.paper_data``), and no reader in them."""
    data = paper_data(document, paper, plan, notes)
    user = prompts.load("paper_reading").substitute(
        length=READING_LENGTH.get(language, READING_LENGTH["en"]),
        language_name=prompts.LANGUAGE_NAMES[language],
        abstract_only_note="",
        figures=prompts.defuse(data.figures),
        paper_id=paper.id,
        source=data.source,
        reading=data.reading,
        paper_text=prompts.defuse(data.text),
    )
    return [
        {"role": "system", "content": writer_system_prompt(language)},
        {"role": "user", "content": user},
    ]


def reading_text(reading: PaperReading) -> str:
    """The reading as the reader's part is shown it: every field labelled, its citations kept."""
    parts = [f"TL;DR: {reading.tldr}", f"Problem: {reading.problem}"]
    parts.append(f"Core insight: {reading.insight}")
    parts += ["Method steps:", *(f"- {step}" for step in reading.steps)]
    parts.append(f"Difference from prior work: {reading.difference}")
    if reading.results is not None:
        parts.append("Results (" + " | ".join(reading.results.header) + "):")
        parts += ["- " + " | ".join(row) for row in reading.results.rows]
    parts += ["What the results show:", *(f"- {note}" for note in reading.result_notes)]
    parts += ["Limitations:", *(f"- {item}" for item in reading.limitations)]
    parts += ["Open questions:", *(f"- {item}" for item in reading.open_questions)]
    if reading.figure is not None:
        parts.append(f"Key figure: {reading.figure.caption}")
    return "\n".join(parts)


def reader_messages(
    scored: ScoredPaper,
    reading: PaperReading,
    plan: ReadingPlan,
    how_read: str,
    profile: Profile,
    language: str,
) -> list[dict[str, str]]:
    """The reader's part's two messages: the profile, the pick, the abstract (with its unit
    ids) and the reading, never the paper's whole text."""
    units = plan.units
    abstract = " ".join(f"[{i}] {units.units[i].text}" for i in units.abstract)
    user = prompts.load("paper_for_reader").substitute(
        profile=prompts.describe_profile(profile),
        paper_id=scored.paper.id,
        pick_reason=prompts.defuse(scored.reason or "(none given)"),
        line=scored.line or "(none)",
        stars=scored.stars,
        length=READER_LENGTH.get(language, READER_LENGTH["en"]),
        abstract=prompts.defuse(f"# {units.title or scored.paper.title}\n\n{abstract}"),
        reading=how_read,
        paper_reading=prompts.defuse(reading_text(reading)),
    )
    return [
        {"role": "system", "content": writer_system_prompt(language)},
        {"role": "user", "content": user},
    ]


def basis_of(messages: Sequence[dict[str, str]]) -> str:
    """What a reading was written from: a hash of its prompt."""
    text = json.dumps(list(messages), ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


# ------------------------------------------------------------------ the halves
def reading_from_answer(
    answer: ReadingAnswer, paper: Paper, document: Document, language: str
) -> PaperReading:
    figure = figure_of(answer.figure_index, answer.figure_caption, document)
    note = fulltext_note(document, labels_for(language), figure is not None)
    return PaperReading(
        paper_id=paper.id,
        tldr=answer.tldr,
        problem=answer.problem,
        insight=answer.insight,
        steps=tuple(s for s in answer.steps if s.strip()),
        difference=answer.difference,
        results=results_table(answer.results, language),
        result_notes=tuple(answer.result_notes),
        limitations=tuple(answer.limitations),
        open_questions=tuple(answer.open_questions),
        figure=figure,
        direction=answer.direction,
        contribution=answer.contribution,
        text_source=document.source,
        notes=tuple(n for n in (note, answer.source_gaps.strip()) if n),
    )


def read_paper(
    client: StructuredLLM,
    cache: ReadingCache,
    paper: Paper,
    document: Document,
    plan: ReadingPlan,
    notes: Sequence[SectionNotes],
    language: str,
    max_tokens: int,
) -> PaperReading:
    """The paper's reading: from the cache when this text and prompt were read before by
    this model in this language, else one ``writer-reading`` call (then kept)."""
    messages = reading_messages(paper, document, plan, notes, language)
    model, basis = client.model_for("writer-reading"), basis_of(messages)
    kept = cache.load(paper.id, paper.version, model, language, basis)
    if kept is not None:
        return kept
    answer = client.complete_json("writer-reading", messages, ReadingAnswer, max_tokens=max_tokens)
    reading = reading_from_answer(answer, paper, document, language)
    cache.save(reading, paper.version, model, language, basis)
    return reading


def write_for_reader(
    client: StructuredLLM,
    scored: ScoredPaper,
    reading: PaperReading,
    plan: ReadingPlan,
    how_read: str,
    profile: Profile,
    language: str,
) -> PaperBrief:
    """The reader's part (one ``writer-reader`` call) joined to the reading."""
    messages = reader_messages(scored, reading, plan, how_read, profile, language)
    part = client.complete_json(
        "writer-reader", messages, ReaderPart, max_tokens=profile.llm.writer_max_tokens
    )
    return brief_from_parts(reading, part, scored)


def brief_from_parts(reading: PaperReading, part: ReaderPart, scored: ScoredPaper) -> PaperBrief:
    """The one brief the digest shows: the shared reading and this reader's part."""
    return PaperBrief(
        scored=scored,
        reason=part.reason or scored.reason,
        tldr=reading.tldr,
        problem=reading.problem,
        insight=reading.insight,
        steps=reading.steps,
        difference=reading.difference,
        results=reading.results,
        result_notes=reading.result_notes,
        limitations=reading.limitations,
        open_questions=reading.open_questions,
        implications=Implications(
            technique=part.technique, experiment=part.experiment, trend=part.trend
        ),
        figure=reading.figure,
        direction=reading.direction,
        contribution=reading.contribution,
        text_source=reading.text_source,
        notes=reading.notes,
    )


def write_brief_shared(
    client: StructuredLLM,
    cache: ReadingCache,
    scored: ScoredPaper,
    document: Document,
    profile: Profile,
    language: str | None = None,
) -> PaperBrief:
    """One full-text pick's deep read in two halves (module docstring). A long paper's
    first-pass notes go through the one-call read's path (``llm_writer.section_notes``):
    they are the paper's too, a second reader's are cache hits, and the kept reading then
    matches."""
    language = language or profile.language
    plan = reading_plan(document, profile.llm)
    paper = scored.paper
    max_tokens = profile.llm.writer_max_tokens
    notes = section_notes(client, paper, document, plan, language, max_tokens)
    reading = read_paper(client, cache, paper, document, plan, notes, language, max_tokens)
    how_read = paper_data(document, paper, plan, notes).reading
    return write_for_reader(client, scored, reading, plan, how_read, profile, language)


__all__ = [
    "ReaderPart",
    "ReadingAnswer",
    "ReadingCache",
    "brief_from_parts",
    "read_paper",
    "reader_messages",
    "reading_messages",
    "write_brief_shared",
    "write_for_reader",
]
