"""`paperbrief read`: show the structured full text of one paper."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import click

from paperbrief.cli.common import CONTEXT, get_store, handle_errors
from paperbrief.errors import FullTextError
from paperbrief.fulltext import read_local_file
from paperbrief.fulltext.fetch import AR5IV_BASE, HTML_BASE, PDF_BASE
from paperbrief.fulltext.present import document_markdown, document_report, document_summary
from paperbrief.models import Paper, split_arxiv_id
from paperbrief.pipeline import read_fulltext
from paperbrief.services import ArxivEndpoints, Services


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
        endpoints = ArxivEndpoints(html=html_base, ar5iv=ar5iv_base, pdf=pdf_base)
        with (
            get_store() as store,
            Services.build(None, store, offline=False, arxiv=endpoints) as services,
        ):
            paper = store.listings.paper(paper_id) or Paper(
                id=paper_id,
                title="",
                authors=(),
                abstract="",
                categories=(),
                primary_category="",
            )
            if version is not None:
                paper = replace(paper, version=version)
            fetched = read_fulltext(store, paper, services)
        assert fetched is not None  # online, a Document always comes back
        doc = fetched
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
        click.echo(document_report(doc))


COMMANDS: list[click.Command] = [read_command]
