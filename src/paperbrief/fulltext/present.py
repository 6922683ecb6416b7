"""Presenters of a Document: the views `paperbrief read` prints and the web UI shows.

They only arrange what the parsed document holds (plain values and text, no HTML).
"""

from __future__ import annotations

from dataclasses import dataclass

from paperbrief.fulltext.tables import table_to_markdown
from paperbrief.fulltext.views import choose_figure
from paperbrief.models import Document


@dataclass(frozen=True)
class Outline:
    """A document's shape for the web UI's paper page."""

    source: str
    source_url: str
    sections: tuple[tuple[int, str], ...]  # (level, heading)
    tables: tuple[str, ...]  # "Table 2 caption"
    figures: int
    flags: tuple[str, ...]


def document_outline(doc: Document) -> Outline:
    return Outline(
        source=doc.source,
        source_url=doc.source_url,
        sections=tuple((s.level, s.heading) for s in doc.sections if s.heading),
        tables=tuple(" ".join(p for p in (t.label, t.caption) if p) for t in doc.tables),
        figures=len(doc.figures),
        flags=doc.flags,
    )


def document_summary(doc: Document) -> dict[str, object]:
    """The stable ``--json`` shape (keys are relied on by the offline writer and tests)."""
    figure = choose_figure(doc)
    return {
        "arxiv_id": doc.arxiv_id,
        "source": doc.source,
        "source_url": doc.source_url,
        "title": doc.title,
        "authors": list(doc.authors),
        "abstract": doc.abstract,
        "sections": [
            {
                "title": s.heading,
                "number": s.number,
                "level": s.level,
                "paragraphs": len(s.paragraphs),
            }
            for s in doc.sections
        ],
        "tables": [
            {
                "label": t.label,
                "caption": t.caption,
                "rows": [list(r) for r in t.rows],
                "header_rows": t.header_rows,
                "section": t.section,
            }
            for t in doc.tables
        ],
        "figures": [{"label": f.label, "caption": f.caption, "url": f.url} for f in doc.figures],
        "chosen_figure": figure.url if figure else None,
        "references": len(doc.references),
        "flags": list(doc.flags),
        "attempts": list(doc.attempts),
    }


def document_markdown(doc: Document) -> str:
    """The whole document as Markdown: abstract, sections, tables under their section."""
    parts = [f"# {doc.title or doc.arxiv_id}"]
    if doc.authors:
        parts.append(", ".join(doc.authors))
    if doc.abstract:
        parts.append(f"## Abstract\n\n{doc.abstract}")
    by_section: dict[str, list[str]] = {}
    for table in doc.tables:
        block = f"**{table.label}.** {table.caption}\n\n{table_to_markdown(table)}".strip()
        by_section.setdefault(table.section, []).append(block)
    for section in doc.sections:
        title = " ".join(p for p in (section.number, section.heading) if p)
        parts.append("#" * min(section.level + 1, 6) + f" {title}")
        parts.extend(section.paragraphs)
        parts.extend(by_section.pop(title, []))
    for blocks in by_section.values():
        parts.extend(blocks)
    if doc.figures:
        parts.append("## Figures")
        parts.extend(f"- {f.label}: {f.caption} ({f.url})" for f in doc.figures)
    return "\n\n".join(parts) + "\n"


def document_report(doc: Document) -> str:
    """The `paperbrief read` text view: source, flags, outline, tables, figures."""
    lines = [doc.title or "(no title)", f"source: {doc.source} {doc.source_url}".rstrip()]
    lines.append("flags: " + (", ".join(doc.flags) or "none"))
    lines.extend(f"tried: {attempt}" for attempt in doc.attempts)
    lines.append(f"\nOutline ({len(doc.sections)} sections):")
    for s in doc.sections:
        title = " ".join(p for p in (s.number, s.heading) if p)
        lines.append(f"{'  ' * s.level}{title}  [{len(s.paragraphs)} ¶]")
    lines.append(f"\nTables ({len(doc.tables)}):")
    for t in doc.tables:
        size = f"{len(t.rows)}×{len(t.rows[0]) if t.rows else 0}"
        lines.append(f"  {t.label} ({size}): {t.caption[:110]}")
    lines.append(f"\nFigures ({len(doc.figures)}):")
    for f in doc.figures:
        lines.append(f"  {f.label}: {f.caption[:80]}  {f.url}")
    figure = choose_figure(doc)
    lines.append(f"\nDigest figure: {figure.label + ' ' + figure.url if figure else 'none'}")
    lines.append(f"References: {len(doc.references)}")
    return "\n".join(lines)
