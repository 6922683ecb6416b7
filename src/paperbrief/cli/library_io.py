"""Reading the reader's library for the CLI: the file, then arXiv metadata for bare ids.

Shared by `paperbrief profile init --from FILE` and `paperbrief feedback import FILE`.
"""

from __future__ import annotations

import os
from pathlib import Path

from rich.markup import escape
from rich.progress import Progress

from paperbrief.cli.common import console, terminal_text
from paperbrief.environment import ZOTERO_API_ENV, ZOTERO_KEY_ENV
from paperbrief.errors import PaperbriefError
from paperbrief.library import LibraryError, LibraryPaper, complete, read_library
from paperbrief.library.zotero import DEFAULT_API, ZoteroClient, parse_source
from paperbrief.models import Paper
from paperbrief.services import Services
from paperbrief.sources import fetch_papers
from paperbrief.store import Store

MAX_SKIP_LINES = 20  # then a count: a broken export of 20k items is not 20k lines


def load_library(path: Path, store: Store, services: Services) -> list[LibraryPaper]:
    """The papers of ``path``, completed from the store and (online) the arXiv API.

    A paper with an arXiv id but no title (a bare id list, a thin export) gets its title,
    abstract and categories from the store's listings, else from arXiv when online; one
    that stays without a title is left out, with a note.
    """
    if services.http is None and parse_source(str(path)) is not None:
        raise LibraryError(
            f"{path} is read from Zotero's web API, and --offline forbids the network",
            "drop --offline, or export the library (BibTeX, CSL JSON) and pass the file",
        )
    papers = read_with_progress(path)
    ids = list(dict.fromkeys(p.arxiv_id for p in papers if p.arxiv_id))
    known: dict[str, Paper] = store.listings.papers(ids)
    # Ids the file already gives a title and categories for need no lookup (a set: this
    # was a scan of the library per id, 41 s for 20k ids).
    described = {p.arxiv_id for p in papers if p.arxiv_id and p.title and p.categories}
    wanted = [i for i in ids if i not in known and i not in described]
    if wanted and services.http is not None:
        try:
            known.update(fetch_papers(wanted, services.http, api_base=services.arxiv.api))
        except PaperbriefError as error:
            console.print(f"[dim]note:[/] arXiv lookup failed: {escape(error.message)}")
    completed = complete(papers, known)
    if not completed:
        offline = services.http is None
        raise LibraryError(
            f"none of the {len(papers)} papers of {path.name} has a title"
            + (
                ": offline, arXiv was not asked, and the store knows none of them"
                if offline
                else ""
            ),
            "run it without --offline (titles come from arXiv), or export the papers with their"
            " titles (BibTeX, CSL JSON or RIS); nothing was written",
        )
    if len(completed) < len(papers):
        console.print(
            f"[dim]note:[/] {len(papers) - len(completed)} entries have no title"
            + (" (offline: arXiv was not asked)" if services.http is None else "")
            + " and are left out",
            highlight=False,
        )
    return completed


def read_with_progress(path: Path) -> list[LibraryPaper]:
    """``read_library`` with a progress bar (a PDF folder reads each file) and one line
    per item it skips."""
    skipped: list[str] = []

    def skip(line: str) -> None:
        skipped.append(line)
        if len(skipped) <= MAX_SKIP_LINES:
            console.print(f"[yellow]skipped:[/] {escape(terminal_text(line))}", highlight=False)

    def note(line: str) -> None:
        console.print(f"[dim]note:[/] {escape(terminal_text(line))}", highlight=False)

    with Progress(console=console, transient=True) as bar:
        task = bar.add_task(f"reading {escape(path.name)}", total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        zotero = parse_source(str(path))
        if zotero is None:
            papers = read_library(path, skip, advance, note)
        else:
            key = os.environ.get(ZOTERO_KEY_ENV) or None
            base = os.environ.get(ZOTERO_API_ENV) or DEFAULT_API
            with ZoteroClient(key, base) as client:
                papers = client.papers(zotero, skip, advance)
            if not papers:
                raise LibraryError(
                    f"no papers in {path} (its collections as chosen)",
                    "check the collection names; `?collection=` takes a name or a key",
                )
    if len(skipped) > MAX_SKIP_LINES:
        console.print(f"[yellow]skipped:[/] {len(skipped) - MAX_SKIP_LINES} more", highlight=False)
    return papers
