"""The digest's honest remarks, in its language: what full text a brief was written from,
which numbers the verifier could not find, how much strict mode removed, and which parts
fell back and why (under the pick concerned, and in the footer)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from paperbrief.fulltext import FullTextStatus, fulltext_status
from paperbrief.labels import Labels, labels_for, stars_text
from paperbrief.llm import StructuredLLM
from paperbrief.models import Digest, Document, Fallback, PaperBrief
from paperbrief.profile import Profile
from paperbrief.text import shorten
from paperbrief.write.trace import ClaimCheck
from paperbrief.write.verify import VerifyReport


def fulltext_note(document: Document | None, labels: Labels, has_figure: bool) -> str:
    """One line on what the brief was read from when it is less than a full HTML text
    (or when an HTML text had no figure to show); "" when there is nothing to say.

    "arXiv has no HTML" is said only when arXiv said so; a fetch that failed is reported as
    a failure (``fulltext.fulltext_status`` reads ``Document.attempts``).
    """
    status = fulltext_status(document)
    notes = {
        FullTextStatus.NOT_FETCHED: labels.not_fetched,
        FullTextStatus.PDF: labels.fulltext_pdf,
        FullTextStatus.PDF_NO_HTML: labels.fulltext_pdf_no_html,
        FullTextStatus.PDF_HTML_FAILED: labels.fulltext_pdf_html_failed,
        FullTextStatus.PDF_HTML_UNUSABLE: labels.fulltext_pdf_html_unusable,
        FullTextStatus.ABSTRACT_FETCH_FAILED: labels.fulltext_fetch_failed,
        FullTextStatus.ABSTRACT_NO_FULLTEXT: labels.fulltext_none,
        FullTextStatus.ABSTRACT_ABSENT: labels.fulltext_absent,
        FullTextStatus.ABSTRACT: labels.abstract_only,
        FullTextStatus.HTML_DEGRADED: labels.fulltext_html_degraded,
    }
    if status == FullTextStatus.HTML:
        has_images = document is not None and any(f.url for f in document.figures)
        return "" if has_figure or has_images else labels.no_figure_in_html
    return notes[status]


def trace_notes(report: VerifyReport, cuts: Sequence[ClaimCheck], labels: Labels,
                limit: int = 12) -> tuple[str, ...]:  # fmt: skip
    """The footer's lines on what was checked: claims traced and not traced (marked ⚠ in
    the text), then every claim strict mode cut (section · the sentence)."""
    lines = [labels.claims_traced.format(traced=report.traced, untraced=len(report.untraced))]
    if cuts:
        lines.append(labels.strict_removed.format(n=len(cuts)))
        for check in cuts[:limit]:
            where = check.paper or labels.summary
            lines.append(f"{labels.strict_cut_lead}{where} · {labels.section_name(check.section)}"
                         f"{labels.colon}{shorten(check.text, 120)}")  # fmt: skip
        if len(cuts) > limit:
            lines.append(f"… +{len(cuts) - limit}")
    return tuple(lines)


# ------------------------------------------------------------------------- fallbacks
def with_fallback_note(brief: PaperBrief, fallback: Fallback, language: str) -> PaperBrief:
    """The offline brief of a pick whose deep read fell back, saying so first."""
    labels = labels_for(language)
    note = labels.fallback_brief.format(reason=labels.fallback_reason(fallback.reason))
    return replace(brief, notes=(note, *brief.notes))


def fallback_notes(fallbacks: Sequence[Fallback], language: str) -> tuple[str, ...]:
    """The digest's lines on what fell back and why, one per part (papers grouped)."""
    labels = labels_for(language)
    notes: list[str] = []
    for fallback in fallbacks:
        if fallback.part == "embedding":
            notes.append(
                labels.fallback_embedding.format(reason=labels.fallback_reason(fallback.reason))
            )
        elif fallback.part == "ranking":
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


def say_fallbacks(digest: Digest, fallbacks: Sequence[Fallback]) -> Digest:
    """The digest with its footer saying, in its language, what fell back and why."""
    if not fallbacks or digest.provenance is None:
        return digest
    notes = (*fallback_notes(fallbacks, digest.language), *digest.provenance.notes)
    return replace(digest, provenance=replace(digest.provenance, notes=notes))


def around_llm_briefs(
    digest: Digest, profile: Profile, client: StructuredLLM, papers_considered: int
) -> Digest:
    """The offline assembly of the day around briefs the LLM wrote: its summary says no
    more than the picks (not "taken from the abstracts"), and its footer names the briefs'
    writer and what the calls cost."""
    if digest.provenance is None:
        return digest
    labels = labels_for(profile.language)
    items = labels.separator.join(
        labels.title_with_stars.format(title=b.paper.title, stars=stars_text(b.scored.stars))
        for b in digest.briefs
    )
    summary = labels.day_fallback_summary.format(
        total=papers_considered, count=len(digest.briefs), items=items
    )
    # the offline assembly's own note goes; what the verifier traced stays
    kept = tuple(note for note in digest.provenance.notes if note != labels.writer_offline)
    provenance = replace(
        digest.provenance, writer=client.model_for("writer"), notes=kept, **spent(client)
    )
    return replace(digest, summary=summary, provenance=provenance)


def spent(client: StructuredLLM) -> dict[str, Any]:
    """What the digest's calls cost, including answers served from the cache on a rerun
    (the provenance's ``prompt_tokens``, ``completion_tokens`` and ``cost``)."""
    usage = client.usage().values()
    return {
        "prompt_tokens": sum(u.prompt_tokens + u.cached_prompt_tokens for u in usage),
        "completion_tokens": sum(u.completion_tokens + u.cached_completion_tokens for u in usage),
        "cost": round(sum(u.cost + u.cached_cost for u in usage), 6),
    }
