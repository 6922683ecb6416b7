"""`paperbrief read`: show the structured full text of one paper."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import click

from paperbrief.cli.common import CONTEXT, get_store, handle_errors
from paperbrief.errors import FullTextError
from paperbrief.fulltext import (
    Document,
    choose_figure,
    load_or_read_paper,
    read_local_file,
    table_to_markdown,
)
from paperbrief.fulltext.fetch import AR5IV_BASE, HTML_BASE, PDF_BASE
from paperbrief.http import PoliteClient
from paperbrief.models import Paper, split_arxiv_id


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


def document_outline(doc: Document) -> str:
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


@click.command("read", context_settings=CONTEXT)
@click.argument("target")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print the whole text as Markdown.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary (stable keys).")
@click.option("--html-base", default=HTML_BASE, show_default=True, help="arXiv HTML endpoint.")
@click.option("--ar5iv-base", default=AR5IV_BASE, show_default=True, help="ar5iv endpoint.")
@click.option("--pdf-base", default=PDF_BASE, show_default=True, help="arXiv PDF endpoint.")
@handle_errors
def read_command(
    target: str, as_markdown: bool, as_json: bool, html_base: str, ar5iv_base: str, pdf_base: str
) -> None:
    """Read one paper's full text: an arXiv id (e.g. 2501.11120v1) or a local .html/.pdf.

    For an arXiv id the sources are tried in order (arXiv HTML, ar5iv, PDF) and the
    result is cached in the store, so a paper is fetched once. Prints the outline, tables,
    figures, the source used and quality flags; --json prints {"source", "title",
    "sections": [{"title", "level"}], "tables": [{"caption", "rows"}], "figures":
    [{"caption", "url"}], "flags": [...]} and more.
    """
    path = Path(target)
    if path.suffix.lower() in (".html", ".htm", ".pdf") or path.exists():
        doc = read_local_file(path)
    else:
        paper_id, version = split_arxiv_id(target)
        with get_store() as store:
            paper = store.get_paper(paper_id) or Paper(
                id=paper_id,
                title="",
                authors=(),
                abstract="",
                categories=(),
                primary_category="",
            )
            if version is not None:
                paper = replace(paper, version=version)
            with PoliteClient() as client:
                doc = load_or_read_paper(
                    store,
                    paper,
                    client,
                    html_base=html_base,
                    ar5iv_base=ar5iv_base,
                    pdf_base=pdf_base,
                )
        if doc.source == "abstract" and not doc.abstract:
            raise FullTextError(
                f"no full text for {target}: " + "; ".join(doc.attempts),
                "check the id (e.g. 2501.11120v1), or rerun later",
            )
    if as_json:
        click.echo(json.dumps(document_summary(doc), ensure_ascii=False, indent=2))
    elif as_markdown:
        click.echo(document_markdown(doc))
    else:
        click.echo(document_outline(doc))


COMMANDS: list[click.Command] = [read_command]
