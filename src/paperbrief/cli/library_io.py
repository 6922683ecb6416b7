"""Reading the reader's library for the CLI: the file, then arXiv metadata for bare ids.

Shared by `paperbrief profile init --from FILE` and `paperbrief feedback import FILE`.
"""

from __future__ import annotations

from pathlib import Path

from rich.markup import escape

from paperbrief.cli.common import console
from paperbrief.errors import PaperbriefError
from paperbrief.library import LibraryPaper, complete, read_library
from paperbrief.models import Paper
from paperbrief.services import Services
from paperbrief.sources import fetch_papers
from paperbrief.store import Store


def load_library(path: Path, store: Store, services: Services) -> list[LibraryPaper]:
    """The papers of ``path``, completed from the store and (online) the arXiv API.

    A paper with an arXiv id but no title (a bare id list, a thin export) gets its title,
    abstract and categories from the store's listings, else from arXiv when online; one
    that stays without a title is left out, with a note.
    """
    papers = read_library(path)
    ids = [p.arxiv_id for p in papers if p.arxiv_id]
    known: dict[str, Paper] = store.listings.papers(ids)
    wanted = [p.arxiv_id for p in papers if p.arxiv_id and p.arxiv_id not in known]
    wanted = [i for i in wanted if i and not _complete(papers, i)]
    if wanted and services.http is not None:
        try:
            known.update(fetch_papers(wanted, services.http, api_base=services.arxiv.api))
        except PaperbriefError as error:
            console.print(f"[dim]note:[/] arXiv lookup failed: {escape(error.message)}")
    completed = complete(papers, known)
    if len(completed) < len(papers):
        console.print(
            f"[dim]note:[/] {len(papers) - len(completed)} entries have no title"
            + (" (offline: arXiv was not asked)" if services.http is None else "")
            + " and are left out",
            highlight=False,
        )
    return completed


def _complete(papers: list[LibraryPaper], arxiv_id: str) -> bool:
    """True when the file itself already gives that paper's title and categories."""
    return any(p.arxiv_id == arxiv_id and p.title and p.categories for p in papers)
