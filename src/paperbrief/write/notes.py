"""The digest's honest remarks, in its language: what full text a brief was written from,
which numbers the verifier could not find, how much strict mode removed."""

from __future__ import annotations

from paperbrief.fulltext import FullTextStatus, fulltext_status
from paperbrief.labels import Labels
from paperbrief.models import Document
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
        FullTextStatus.ABSTRACT: labels.abstract_only,
        FullTextStatus.HTML_DEGRADED: labels.fulltext_html_degraded,
    }
    if status == FullTextStatus.HTML:
        has_images = document is not None and any(f.url for f in document.figures)
        return "" if has_figure or has_images else labels.no_figure_in_html
    return notes[status]


def unverified_notes(report: VerifyReport, labels: Labels, limit: int = 8) -> tuple[str, ...]:
    """Footer lines naming the numbers the verifier could not find, grouped by section."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for claim in report.unverified:
        texts = grouped.setdefault((claim.paper, claim.section), [])
        if claim.text not in texts:
            texts.append(claim.text)
    notes = [
        f"{labels.unverified_lead}{paper or labels.summary} · {labels.section_name(section)}"
        f"{labels.colon}{', '.join(texts)}"
        for (paper, section), texts in grouped.items()
    ]
    if len(notes) > limit:
        notes = [*notes[:limit], f"… +{len(notes) - limit}"]
    return tuple(notes)


def strict_note(removed: int, labels: Labels) -> tuple[str, ...]:
    return (labels.strict_removed.format(n=removed),) if removed else ()
