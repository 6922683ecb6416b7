"""`paperbrief feedback`: tell the ranking what you think, or bring a reading history."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from paperbrief.cli.common import PaperbriefGroup, console, get_store, json_text
from paperbrief.errors import InputFileError, PaperbriefError
from paperbrief.files import read_text_bounded
from paperbrief.library import read_library
from paperbrief.models import Signal
from paperbrief.rank.imported import MAX_PICKS_BYTES, load_posts, record_posts
from paperbrief.records import FeedbackEvent
from paperbrief.store import Store
from paperbrief.text.arxiv import ID_PATTERN, split_arxiv_id


class FeedbackError(PaperbriefError):
    """A feedback command was given an unusable id or signal."""


_ARXIV_ID = re.compile(rf"^{ID_PATTERN}$")

SIGNAL_FLAGS = {"up": "👍", "down": "👎", "save": "saved", "hide": "not interested"}


class FeedbackGroup(PaperbriefGroup):
    """`feedback <id> --up` records a signal; `feedback import FILE` is a subcommand.

    Anything that is not a subcommand name is taken as a paper id and handed to the
    hidden ``record`` command.
    """

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            return "record", self.commands["record"], args
        return super().resolve_command(ctx, args)


@click.group(
    "feedback",
    cls=FeedbackGroup,
    short_help="Signals on papers: record, list, undo, import.",
)
def feedback() -> None:
    """Tell paperbrief what you think of papers; list, undo or import signals.

    \b
      paperbrief feedback 2605.22817 --up     (or --down, --save, --hide, --read)
      paperbrief feedback 2605.22817 --hide --note "pure theory"
      paperbrief feedback import picks.json   (or a Zotero export: liked papers)
      paperbrief feedback list                (newest first; --json)
      paperbrief feedback undo                (the last signal you gave)

    Signals are stored with the time and teach the learned scorer.
    """


@feedback.command("record", hidden=True)
@click.argument("paper_id")
@click.option("--up", is_flag=True, help="👍 more like this.")
@click.option("--down", is_flag=True, help="👎 less like this.")
@click.option("--save", is_flag=True, help="Saved for later (a strong 👍).")
@click.option("--hide", is_flag=True, help="Not interested (a strong 👎).")
@click.option("--read", is_flag=True, help="I read it (a mild 👍).")
@click.option("--note", default=None, help="A free-text note kept with the signal.")
def feedback_record(
    paper_id: str, up: bool, down: bool, save: bool, hide: bool, read: bool, note: str | None
) -> None:
    """Record one signal for PAPER_ID: paperbrief feedback 2605.22817 --up"""
    given = [name for name, on in (("up", up), ("down", down), ("save", save),
             ("hide", hide), ("read", read)) if on]  # fmt: skip
    if len(given) > 1:
        raise click.UsageError(
            " and ".join(f"--{name}" for name in given) + " exclude each other; give one signal"
        )
    if not given:
        raise FeedbackError(
            f"no signal given for {paper_id}",
            "add one of --up, --down, --save, --hide, --read",
        )
    signal = given[0]
    arxiv_id, _ = split_arxiv_id(paper_id)
    if not _ARXIV_ID.match(arxiv_id):
        raise FeedbackError(
            f"{paper_id!r} is not an arXiv id", "use an id like 2605.22817 (or an abs URL)"
        )
    with get_store() as store:
        store.feedback.add(arxiv_id, Signal(signal), note=note, source="cli")
        known = store.listings.paper(arxiv_id) is not None
    console.print(f"recorded {SIGNAL_FLAGS.get(signal, signal)} for {arxiv_id}")
    if not known:
        console.print(
            "[dim]note:[/] this paper is not in the store yet; it will teach the ranking once"
            " a listing containing it has been fetched",
            highlight=False,
        )


def _import_picks(path: Path, store: Store) -> None:
    """A picks file (format of picks-dev.json): picks as accepted, each post's `shown` ids
    that were not picked as passed over, dated by listing day."""
    posts = load_posts(path)
    ids = {pid for post in posts for pid in (*(p for p, _ in post.picks), *(post.shown or ()))}
    added = record_posts(store.feedback, posts, source=f"import:{path.name}")
    unknown = len(ids) - len(store.listings.papers(ids))
    console.print(
        f"imported {added.picked} picks and {added.shown} shown-but-not-picked from"
        f" {len(posts)} posts ({added.skipped} already there)"
    )
    if unknown:
        days = sorted({post.listing_day.isoformat() for post in posts})
        console.print(
            f"[dim]note:[/] {unknown} of these {len(ids)} papers are not in the store yet;"
            " they teach the ranking once their listing days are stored (`paperbrief fetch"
            f" --listing FILE` or `--date D`; listing days {days[0]} … {days[-1]})",
            highlight=False,
        )


def _import_liked(path: Path, store: Store) -> None:
    """A library export (BibTeX, CSL JSON, RIS, arXiv ids, PDF folder): each paper with an
    arXiv id as 👍, once per file."""
    papers = read_library(path)
    source = f"import:{path.name}"
    ids = list(dict.fromkeys(p.arxiv_id for p in papers if p.arxiv_id))
    already = {
        e.paper_id for e in store.feedback.events() if e.source == source and e.signal == Signal.UP
    }
    fresh = [paper_id for paper_id in ids if paper_id not in already]
    for paper_id in fresh:
        store.feedback.add(paper_id, Signal.UP, source=source)
    without_id = len(papers) - sum(1 for p in papers if p.arxiv_id)
    console.print(
        f"imported {len(fresh)} liked papers (👍) from {path.name}"
        f" ({len(ids) - len(fresh)} already there)"
    )
    if without_id:
        console.print(
            f"[dim]note:[/] {without_id} entries have no arXiv id (no eprint, arXiv DOI or"
            " URL) and were skipped",
            highlight=False,
        )


IMPORTERS: dict[str, Callable[[Path, Store], None]] = {
    "picks": _import_picks,
    "library": _import_liked,
}


def import_format(path: Path) -> str:
    """``picks`` for a JSON object with ``posts``, else ``library`` (every export format)."""
    if path.is_file() and path.suffix.lower() == ".json":
        try:
            data = json.loads(read_text_bounded(path, MAX_PICKS_BYTES, "picks file"))
        except (InputFileError, ValueError):
            return "library"  # read_library reports what is wrong with it
        if isinstance(data, dict) and "posts" in data:
            return "picks"
    return "library"


@feedback.command("import", short_help="Import picks or liked papers (Zotero export).")
@click.argument("path", type=click.Path(path_type=Path, exists=True))
def feedback_import(path: Path) -> None:
    """Import a reading history: a picks file, or papers you liked.

    A picks file (format of picks-dev.json) gives accepted picks and each post's `shown`
    ids that were not picked (passed over), dated by listing day. Anything else is read
    as liked papers (👍): a BibTeX, CSL JSON or RIS export (Zotero), a list of arXiv ids,
    or a folder of PDFs. Re-importing the same file adds nothing twice.
    """
    with get_store() as store:
        IMPORTERS[import_format(path)](path, store)


def _event_json(event: FeedbackEvent, title: str) -> dict[str, object]:
    return {
        "id": event.id,
        "paper_id": event.paper_id,
        "signal": event.signal.value,
        "note": event.note,
        "source": event.source,
        "created_at": event.created_at,
        "title": title,
    }


@feedback.command("list", short_help="The signals you gave, newest first.")
@click.option("--limit", default=30, show_default=True, help="How many, newest first.")
@click.option("--all", "everything", is_flag=True, help="Also imported and pipeline signals.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (stable keys).")
def feedback_list(limit: int, everything: bool, as_json: bool) -> None:
    """List the signals you gave (CLI and web UI), newest first, with their ids.

    --json prints [{"id", "paper_id", "signal", "note", "source", "created_at",
    "title"}].
    """
    with get_store() as store:
        events = store.feedback.recent(limit, () if everything else READER_SOURCES)
        titles = {p.id: p.title for p in store.listings.papers(e.paper_id for e in events).values()}
    if as_json:
        rows = [_event_json(e, titles.get(e.paper_id, "")) for e in events]
        click.echo(json_text(rows))
        return
    if not events:
        console.print("no feedback yet: `paperbrief feedback <id> --up` records some")
        return
    table = Table(show_lines=False)
    for column in ("id", "when", "signal", "paper", "title", "note"):
        table.add_column(column, overflow="fold")
    for e in events:
        table.add_row(
            str(e.id),
            e.created_at[:16].replace("T", " "),
            SIGNAL_FLAGS.get(e.signal.value, e.signal.value),
            escape(e.paper_id),
            escape(titles.get(e.paper_id, "")),
            escape(e.note or ""),
        )
    Console().print(table)


READER_SOURCES = ("cli", "web")


@feedback.command("undo", short_help="Remove your last signal (or one by id).")
@click.argument("event_id", type=int, required=False)
def feedback_undo(event_id: int | None) -> None:
    """Remove your last signal (CLI or web UI), or the one with EVENT_ID (see `list`)."""
    with get_store() as store:
        if event_id is None:
            latest = store.feedback.recent(1, READER_SOURCES)
            if not latest:
                raise FeedbackError("there is no signal to undo", "`paperbrief feedback list`")
            event_id = latest[0].id
        removed = store.feedback.remove(event_id)
    if removed is None:
        raise FeedbackError(
            f"no signal has id {event_id}", "`paperbrief feedback list --all` shows the ids"
        )
    signal = SIGNAL_FLAGS.get(removed.signal.value, removed.signal.value)
    console.print(f"undone: {signal} for {removed.paper_id} ({removed.created_at[:16]})")


COMMANDS: list[click.Command] = [feedback]
