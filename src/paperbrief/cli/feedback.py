"""`paperbrief feedback`: tell the ranking what you think, or bring a reading history."""

from __future__ import annotations

import re
from pathlib import Path

import click

from paperbrief.cli.common import CONTEXT, console, get_store, handle_errors
from paperbrief.errors import PaperbriefError
from paperbrief.models import Signal, split_arxiv_id
from paperbrief.rank.imported import load_posts, record_posts


class FeedbackError(PaperbriefError):
    """A feedback command was given an unusable id or signal."""


_ARXIV_ID = re.compile(r"^(\d{4}\.\d{4,5}|[a-z\-]+(\.[A-Z]{2})?/\d{7})$")

SIGNAL_FLAGS = {"up": "👍", "down": "👎", "save": "saved", "hide": "not interested"}


class FeedbackGroup(click.Group):
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


@click.group("feedback", cls=FeedbackGroup, context_settings=CONTEXT)
def feedback() -> None:
    """Tell paperbrief what you think of a paper, or import a history of picks.

    \b
      paperbrief feedback 2605.22817 --up       (also --down, --save, --hide, --read)
      paperbrief feedback 2605.22817 --hide --note "pure theory"
      paperbrief feedback import picks.json

    Signals are stored with the time and teach the learned scorer (recent ones weigh more).
    """


@feedback.command("record", context_settings=CONTEXT, hidden=True)
@click.argument("paper_id")
@click.option("--up", "signal", flag_value="up", help="👍 more like this.")
@click.option("--down", "signal", flag_value="down", help="👎 less like this.")
@click.option("--save", "signal", flag_value="save", help="Saved for later (a strong 👍).")
@click.option("--hide", "signal", flag_value="hide", help="Not interested (a strong 👎).")
@click.option("--read", "signal", flag_value="read", help="I read it (a mild 👍).")
@click.option("--note", default=None, help="A free-text note kept with the signal.")
@handle_errors
def feedback_record(paper_id: str, signal: str | None, note: str | None) -> None:
    """Record one signal for PAPER_ID: paperbrief feedback 2605.22817 --up"""
    if signal is None:
        raise FeedbackError(
            f"no signal given for {paper_id}",
            "add one of --up, --down, --save, --hide, --read",
        )
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


@feedback.command("import", context_settings=CONTEXT)
@click.argument("path", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@handle_errors
def feedback_import(path: Path) -> None:
    """Import a picks file (format of picks-dev.json): the picks as accepted, and each
    post's `shown` ids (what the reader saw) that were not picked as passed over, all
    dated by listing day. Papers never shown teach nothing.

    Re-importing the same file adds nothing twice.
    """
    posts = load_posts(path)
    ids = {pid for post in posts for pid in (*(p for p, _ in post.picks), *(post.shown or ()))}
    with get_store() as store:
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


COMMANDS: list[click.Command] = [feedback]
