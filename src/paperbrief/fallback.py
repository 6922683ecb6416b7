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

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, Literal

from paperbrief.errors import StoreError
from paperbrief.files import OutputError
from paperbrief.labels import labels_for, stars_text
from paperbrief.llm import CompletesJSON, StructuredLLM
from paperbrief.models import Digest, Document, Paper, PaperBrief, ScoredPaper
from paperbrief.profile import Profile
from paperbrief.text import shorten

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


def fallback_lines(fallbacks: Sequence[Fallback]) -> list[str]:
    """One terminal line per part and reason, its papers grouped, the first error shown."""
    grouped: dict[tuple[str, str], list[Fallback]] = {}
    for fallback in fallbacks:
        grouped.setdefault((fallback.part, fallback.reason), []).append(fallback)
    lines = []
    for (part, reason), items in grouped.items():
        papers = ", ".join(item.paper_id for item in items if item.paper_id)
        lines.append(f"{part} {papers}".strip() + f" ({reason}): {shorten(items[0].detail, 200)}")
    return lines


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
    detail = shorten("; ".join(document.attempts), 300)
    return Fallback("fulltext", "fetch", detail, document.arxiv_id)


def digest_notes(fallbacks: Sequence[Fallback], language: str) -> tuple[str, ...]:
    """The digest's lines on what fell back and why, one per part (papers grouped)."""
    labels = labels_for(language)
    notes: list[str] = []
    for fallback in fallbacks:
        if fallback.part == "ranking":
            notes.append(
                labels.fallback_ranking.format(reason=labels.fallback_reason(fallback.reason))
            )
        elif fallback.part == "day":
            notes.append(labels.fallback_day.format(reason=labels.fallback_reason(fallback.reason)))
    for part, template in (
        ("fulltext", labels.fallback_fulltext),
        ("brief", labels.fallback_briefs),
    ):
        by_reason: dict[str, list[str]] = {}
        for fallback in fallbacks:
            if fallback.part == part:
                by_reason.setdefault(fallback.reason, []).append(fallback.paper_id)
        for reason, papers in by_reason.items():
            notes.append(
                template.format(reason=labels.fallback_reason(reason), papers=", ".join(papers))
            )
    return tuple(notes)


def say_fallbacks(digest: Digest, fallbacks: Sequence[Fallback], language: str) -> Digest:
    """The digest with its footer saying, in its language, what fell back and why."""
    if not fallbacks or digest.provenance is None:
        return digest
    notes = (*digest_notes(fallbacks, language), *digest.provenance.notes)
    return replace(digest, provenance=replace(digest.provenance, notes=notes))


class RecordingClient:
    """The LLM client as the judge sees it, keeping every error it raised (the judge itself
    keeps only their text), so the ranking's fallback can say why."""

    def __init__(self, client: CompletesJSON) -> None:
        self._client = client
        self.errors: list[BaseException] = []

    def complete_json(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return self._client.complete_json(*args, **kwargs)
        except Exception as error:
            self.errors.append(error)
            raise


def deep_reads(
    client: StructuredLLM,
    jobs: Sequence[tuple[ScoredPaper, Document | None]],
    profile: Profile,
    keep: Callable[[PaperBrief], None],
) -> dict[str, BaseException]:
    """Every job's deep read in parallel threads (the client bounds requests in flight),
    each handed to ``keep`` as it finishes; the failures, by paper id, for any reason."""
    from paperbrief.write.llm_writer import write_brief_llm

    failures: dict[str, BaseException] = {}
    workers = max(1, min(profile.llm.concurrency, len(jobs)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [
            (scored, pool.submit(write_brief_llm, client, scored, document, profile))
            for scored, document in jobs
        ]
        for scored, future in futures:
            try:
                keep(future.result())
            except FATAL:
                raise
            except Exception as error:  # endpoint, budget, answer, deadline: all fall back
                failures[scored.paper.id] = error
    return failures


def around_llm_briefs(
    digest: Digest, profile: Profile, client: StructuredLLM | None, papers_considered: int
) -> Digest:
    """The offline assembly of the day around briefs the LLM wrote: its summary says no
    more than the picks (not "taken from the abstracts"), and its footer names the briefs'
    writer and what the calls cost."""
    if digest.provenance is None or client is None:
        return digest
    labels = labels_for(profile.language)
    items = labels.separator.join(
        labels.title_with_stars.format(title=b.paper.title, stars=stars_text(b.scored.stars))
        for b in digest.briefs
    )
    summary = labels.day_fallback_summary.format(
        total=papers_considered, count=len(digest.briefs), items=items
    )
    usage = client.usage().values()
    provenance = replace(
        digest.provenance,
        writer=client.model_for("writer"),
        notes=(),
        prompt_tokens=sum(u.prompt_tokens + u.cached_prompt_tokens for u in usage),
        completion_tokens=sum(u.completion_tokens + u.cached_completion_tokens for u in usage),
        cost=round(sum(u.cost + u.cached_cost for u in usage), 6),
    )
    return replace(digest, summary=summary, provenance=provenance)
