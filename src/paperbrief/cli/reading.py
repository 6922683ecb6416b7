"""`paperbrief read`: show the structured full text of one paper."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from paperbrief.cli.common import get_profile, get_store, json_text
from paperbrief.errors import FullTextError, ProfileError
from paperbrief.fulltext import read_local_file
from paperbrief.fulltext.present import document_markdown, document_report, document_summary
from paperbrief.fulltext.reading import describe_plan, plan_reading
from paperbrief.models import Document, Paper
from paperbrief.profile import LLMSettings
from paperbrief.services import ArxivEndpoints, Services
from paperbrief.text.arxiv import AR5IV_BASE, HTML_BASE, PDF_BASE, split_arxiv_id
from paperbrief.write.llm_writer import paper_prompt


@click.command("read", short_help="A paper's structured full text (id or file).")
@click.argument("target")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print the whole text as Markdown.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary (stable keys).")
@click.option(
    "--prompt",
    "as_prompt",
    is_flag=True,
    help="Print how the paper is read (section by section, with tokens) and exactly the"
    " paper text the LLM writer is sent.",
)
@click.option(
    "--tokens",
    type=click.IntRange(min=200),
    default=None,
    help="Budget of the --prompt text in tokens (default: [llm] paper_text_tokens).",
)
@click.option("--html-base", default=HTML_BASE, show_default=True, help="arXiv HTML endpoint.")
@click.option("--ar5iv-base", default=AR5IV_BASE, show_default=True, help="ar5iv endpoint.")
@click.option("--pdf-base", default=PDF_BASE, show_default=True, help="arXiv PDF endpoint.")
def read_command(
    target: str,
    as_markdown: bool,
    as_json: bool,
    as_prompt: bool,
    tokens: int | None,
    html_base: str,
    ar5iv_base: str,
    pdf_base: str,
) -> None:
    """Read one paper's full text: an arXiv id (e.g. 2501.11120v1) or a local .html/.pdf.

    For an arXiv id the sources are tried in order (arXiv HTML, ar5iv, PDF) and the
    result is cached in the store, so a paper is fetched once. Prints the outline, tables,
    figures, the source used and quality flags; --json prints {"source", "title",
    "sections": [{"title", "level"}], "tables": [{"caption", "rows"}], "figures":
    [{"caption", "url"}], "flags": [...]} and more. --prompt prints exactly the paper text
    the LLM writer is sent for this paper (--tokens N to try another budget), after a
    header saying how it is read (whole, or two passes) and, section by section, its role,
    the paragraphs sent and their tokens.
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
            fetched = services.fulltext.read(store.documents, paper)
        assert fetched is not None  # online, a Document always comes back
        doc = fetched
        if doc.source == "abstract" and not doc.abstract:
            raise FullTextError(
                f"no full text for {target}: " + "; ".join(doc.attempts),
                "check the id (e.g. 2501.11120v1), or rerun later",
            )
    if as_prompt:
        click.echo(writer_prompt_text(doc, tokens))
    elif as_json:
        click.echo(json_text(document_summary(doc)))
    elif as_markdown:
        click.echo(document_markdown(doc))
    else:
        click.echo(document_report(doc))


def writer_prompt_text(doc: Document, tokens: int | None) -> str:
    """The reading plan, then the paper part of the writer's prompt for ``doc`` (every
    first-pass part of a long paper), at the profile's budget."""
    try:
        settings = get_profile(None).llm
    except ProfileError:
        settings = LLMSettings()
    tokens = tokens or settings.paper_text_tokens
    plan = plan_reading(doc, tokens, settings.reading_chunk_tokens)
    return describe_plan(plan) + "\n\n" + paper_prompt(doc, tokens)


COMMANDS: list[click.Command] = [read_command]
