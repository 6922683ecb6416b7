"""`paperbrief search`: full-text search over stored papers and digests (Chinese too)."""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table

from paperbrief.cli.common import console, get_store, json_text, say
from paperbrief.text.arxiv import abs_url


@click.command("search", short_help="Search stored papers and digests (FTS5).")
@click.argument("words", nargs=-1, required=True)
@click.option("--limit", default=20, show_default=True, help="Most hits of each kind.")
@click.option(
    "--only",
    type=click.Choice(["papers", "digests"]),
    default=None,
    help="Search only papers or only digests.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (stable keys).")
def search(words: tuple[str, ...], limit: int, only: str | None, as_json: bool) -> None:
    """Search the stored papers (title, abstract) and digests, best match first.

    \b
      paperbrief search program repair      both words, any form ("repairs")
      paperbrief search '"program repair"'  the phrase
      paperbrief search 修复                 Chinese: the characters in a row
      paperbrief search agent*              a prefix
      paperbrief search 2605.21930          an arXiv id

    --json prints {"query", "papers": [{"id", "title", "announced", "primary_category",
    "url"}], "digests": [{"digest_date", "language", "title", "snippet"}]}.
    """
    query = " ".join(words)
    with get_store(reading=True) as store:
        papers = store.listings.search(query, limit) if only != "digests" else []
        digests = store.digests.search(query, limit) if only != "papers" else []
    if as_json:
        result = {
            "query": query,
            "papers": [
                {
                    "id": p.id,
                    "title": p.title,
                    "announced": p.announced,
                    "primary_category": p.primary_category,
                    "url": abs_url(p.id),
                }
                for p in papers
            ],
            "digests": [
                {
                    "digest_date": hit.digest_date.isoformat(),
                    "language": hit.language,
                    "title": hit.title,
                    "snippet": hit.snippet,
                }
                for hit in digests
            ],
        }
        click.echo(json_text(result))
        return
    if not papers and not digests:
        console.print(f"nothing found for {say(repr(query))}", highlight=False)
        return
    output = Console()
    for hit in digests:
        output.print(
            f"[bold]{hit.digest_date}[/] {say(hit.title)}\n  [dim]…{say(hit.snippet)}…[/]",
            highlight=False,
        )
    if papers:
        table = Table(title=f"{len(papers)} papers")
        for column in ("id", "announced", "category", "title"):
            table.add_column(column, overflow="fold")
        for paper in papers:
            table.add_row(
                say(paper.id),
                say(paper.announced or ""),
                say(paper.primary_category),
                say(paper.title),
            )
        output.print(table)


COMMANDS: list[click.Command] = [search]
