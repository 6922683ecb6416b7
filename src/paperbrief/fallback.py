"""What a run does when a part of it fails: the digest still goes out, and says so.

* the LLM judge fails → the cheap ranking stands;
* a full text cannot be fetched → the pick is written from its abstract;
* a deep read fails for any reason (endpoint down, timeout, budget, an unusable answer,
  the run's deadline) → that pick gets the offline brief;
* the day synthesis fails → the offline assembly stands.

Each is a ``Fallback``; ``digest_notes`` says them in the digest's language (the provenance
footer), ``brief_note`` under the pick concerned. The run exits with
``errors.EXIT_FALLBACKS`` when any part fell back, so cron and systemd can tell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from paperbrief.errors import StoreError
from paperbrief.files import OutputError
from paperbrief.fulltext.document import Document
from paperbrief.labels import labels_for
from paperbrief.models import Paper, PaperBrief

Part = Literal["ranking", "fulltext", "brief", "day"]
# Errors no fallback can help with: the store or the output folder itself is broken.
FATAL = (StoreError, OutputError)


@dataclass(frozen=True)
class Fallback:
    """One part of the digest that was made the fallback way, and why."""

    part: Part
    reason: str  # unreachable | timeout | budget | invalid | refused | deadline | fetch | error
    detail: str  # the error itself (English), for the terminal and the run record
    paper_id: str = ""

    def line(self) -> str:
        """One line for the terminal."""
        what = f"{self.part} {self.paper_id}".strip()
        return f"{what} fell back ({self.reason}): {self.detail}"


def reason_of(error: BaseException) -> str:
    """The one-word kind of a failure (``LLMError.reason``), ``error`` for anything else."""
    reason = getattr(error, "reason", "error")
    return reason if isinstance(reason, str) else "error"


def brief_note(fallback: Fallback, language: str) -> str:
    labels = labels_for(language)
    return labels.fallback_brief.format(reason=labels.fallback_reason(fallback.reason))


def with_fallback_note(brief: PaperBrief, fallback: Fallback, language: str) -> PaperBrief:
    """The offline brief of a pick whose deep read fell back, saying so first."""
    return replace(brief, notes=(brief_note(fallback, language), *brief.notes))


def failed_document(paper: Paper, error: BaseException) -> Document:
    """An abstract-only Document for a pick whose full-text stage raised."""
    return Document(
        arxiv_id=paper.id,
        title=paper.title,
        authors=paper.authors,
        abstract=paper.abstract,
        source="abstract",
        source_url=paper.abs_url,
        flags=("abstract-only", "fetch-failed"),
        attempts=(f"fulltext: fetch failed: {type(error).__name__}: {error}",),
    )


def fetch_failure(document: Document) -> Fallback | None:
    """The fallback a Document records, if its full text could not be fetched."""
    if "fetch-failed" not in document.flags:
        return None
    detail = "; ".join(document.attempts)[:300]
    return Fallback("fulltext", "fetch", detail, document.arxiv_id)


def digest_notes(fallbacks: Sequence[Fallback], language: str) -> tuple[str, ...]:
    """The digest's lines on what fell back and why, one per part (papers grouped)."""
    labels = labels_for(language)
    notes: list[str] = []
    for fallback in fallbacks:
        if fallback.part == "ranking":
            notes.append(labels.fallback_ranking.format(
                reason=labels.fallback_reason(fallback.reason)))  # fmt: skip
        elif fallback.part == "day":
            notes.append(labels.fallback_day.format(
                reason=labels.fallback_reason(fallback.reason)))  # fmt: skip
    for part, template in (
        ("fulltext", labels.fallback_fulltext),
        ("brief", labels.fallback_briefs),
    ):
        by_reason: dict[str, list[str]] = {}
        for fallback in fallbacks:
            if fallback.part == part:
                by_reason.setdefault(fallback.reason, []).append(fallback.paper_id)
        for reason, papers in by_reason.items():
            notes.append(template.format(
                reason=labels.fallback_reason(reason), papers=", ".join(papers)))  # fmt: skip
    return tuple(notes)
