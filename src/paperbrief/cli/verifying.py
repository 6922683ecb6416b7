"""`paperbrief verify`: check every number of a digest against the stored papers."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.markup import escape

from paperbrief.cli.common import (
    console,
    get_profile,
    get_store,
    json_text,
    profile_option,
)
from paperbrief.errors import EXIT_UNVERIFIED, PaperbriefError, ProfileError
from paperbrief.files import read_text_bounded
from paperbrief.fulltext import read_local_file
from paperbrief.models import Document
from paperbrief.prompts import describe_profile
from paperbrief.store import Store
from paperbrief.text.arxiv import split_arxiv_id
from paperbrief.write.claims import covered_papers
from paperbrief.write.verify import VerifyReport, verify_markdown

MAX_DIGEST_BYTES = 20 * 2**20  # a digest is ~50 KB; the verifier is linear up to far more


def load_documents(store: Store, paper_ids: list[str]) -> dict[str, Document]:
    """The stored full text of each paper, else a Document of its stored abstract."""
    documents: dict[str, Document] = {}
    for paper_id in paper_ids:
        document = store.documents.load(paper_id)
        if document is not None:
            documents[paper_id] = document
            continue
        paper = store.listings.paper(paper_id)
        if paper is not None:
            documents[paper_id] = Document(
                arxiv_id=paper.id,
                title=paper.title,
                authors=paper.authors,
                abstract=paper.abstract,
                source="abstract",
            )
    return documents


def local_papers(pairs: tuple[str, ...]) -> dict[str, Document]:
    """``ID=FILE`` pairs read as the full text of paper ID (a saved HTML page or PDF)."""
    documents: dict[str, Document] = {}
    for pair in pairs:
        paper_id, equals, path = pair.partition("=")
        if not equals or not paper_id.strip() or not path.strip():
            raise PaperbriefError(
                f"--paper {pair!r} is not ID=FILE",
                "pass e.g. --paper 2501.11120=paper.html (an arXiv id, '=', a .html/.pdf file)",
            )
        documents[split_arxiv_id(paper_id)[0]] = read_local_file(Path(path.strip()))
    return documents


def _print_report(report: VerifyReport) -> None:
    console.print(
        f"{report.traced}/{report.claims} claims traced to a sentence or table cell of the"
        f" paper they cite, across {len(report.papers)} paper(s)",
        highlight=False,
    )
    for paper in report.missing_papers:
        console.print(
            f"[yellow]not in the store:[/] {escape(paper)} (its claims are checked against"
            " its abstract only; pass --paper ID=FILE for the full text)"
        )
    for check in report.untraced:
        where = check.paper or "day"
        line = f" (line {check.line})" if check.line else ""
        why = "; ".join(f"{f.check}: {f.detail}" for f in check.findings)
        console.print(
            f"[red]not traced[/] {escape(where)} · {escape(check.section)}{line}:"
            f" [bold]{escape(check.text)}[/]  [dim]{escape(why)}[/]",
            highlight=False,
            soft_wrap=True,
        )


@click.command(
    "verify",
    short_help="Check every claim of a digest against the evidence it cites.",
)
@click.argument("digest", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON on stdout.")
@click.option(
    "--paper",
    "papers_from_files",
    multiple=True,
    metavar="ID=FILE",
    help="Check paper ID against a local .html/.pdf file instead of the store (repeatable).",
)
@profile_option
def verify(
    digest: Path, as_json: bool, papers_from_files: tuple[str, ...], profile_path: Path | None
) -> None:
    """Check every claim in DIGEST.md against the evidence units it cites.

    A claim is a sentence (or results row, or table cell) that states a number, a count, a
    direction or a comparison. Its citation links (↗, written by paperbrief) name the paper's
    sentences and table cells it rests on; each claim is checked against those units only:
    the quantity (value, unit, scale, sign, points vs percent; Chinese numerals and scale
    words too), the names it attaches (model, dataset, metric, row, column), the direction
    and the order of a comparison. A claim without a citation, or whose cited units say
    otherwise, is not traced. Numbers the reader's profile states are not claims, when a
    profile is found. Papers come from the store, or from local files with --paper ID=FILE.
    Exits 0 when every claim is traced and 3 when one is not.
    """
    if not digest.exists():
        raise PaperbriefError(
            f"digest {digest} does not exist", "pass the path of a digest Markdown file"
        )
    markdown = read_text_bounded(digest, MAX_DIGEST_BYTES, "digest")
    papers = covered_papers(markdown)
    if not papers:
        raise PaperbriefError(
            f"{digest} covers no papers (no ### heading followed by a 📌 line with arXiv:<id>)",
            "pass a digest written by paperbrief, or keep its 📌 info lines when editing",
        )
    local = local_papers(papers_from_files)
    with get_store() as store:
        documents = load_documents(store, [p for p in papers if p not in local])
    documents.update(local)
    try:
        known = [describe_profile(get_profile(profile_path))]
    except ProfileError:
        known = []  # no profile: check against the papers alone
    report = verify_markdown(markdown, documents, known)
    if as_json:
        click.echo(json_text(report.to_json()))
    else:
        _print_report(report)
    if not report.ok:
        sys.exit(EXIT_UNVERIFIED)


COMMANDS: list[click.Command] = [verify]
