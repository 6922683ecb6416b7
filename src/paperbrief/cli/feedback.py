"""`paperbrief feedback`: tell the ranking what you think, or bring a reading history."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from paperbrief.cli.common import (
    PaperbriefGroup,
    console,
    get_profile,
    get_store,
    json_text,
    profile_option,
    resolve_profile_path,
    say,
)
from paperbrief.cli.library_io import read_with_progress
from paperbrief.errors import InputFileError, PaperbriefError
from paperbrief.files import read_text_bounded
from paperbrief.models import Signal
from paperbrief.profile import load_profile
from paperbrief.rank.imported import MAX_PICKS_BYTES, load_posts, record_posts
from paperbrief.records import FeedbackEvent
from paperbrief.store import Store
from paperbrief.text import shorten
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
      paperbrief feedback list                (everything, newest first; --json)
      paperbrief feedback undo                (the last signal you gave)
      paperbrief feedback start               (rate 20 papers to start)

    Signals are stored with the time and teach the learned scorer. They belong to the
    profile (--profile, as for `run`; without a profile file they count for every profile
    of the data home). A signal that repeats the paper's standing one is kept once.
    """


@feedback.command("record", hidden=True)
@click.argument("paper_id")
@click.option("--up", is_flag=True, help="👍 more like this.")
@click.option("--down", is_flag=True, help="👎 less like this.")
@click.option("--save", is_flag=True, help="Saved for later (a strong 👍).")
@click.option("--hide", is_flag=True, help="Not interested (a strong 👎).")
@click.option("--read", is_flag=True, help="I read it (a mild 👍).")
@click.option("--note", default=None, help="A free-text note kept with the signal.")
@profile_option
def feedback_record(
    paper_id: str,
    up: bool,
    down: bool,
    save: bool,
    hide: bool,
    read: bool,
    note: str | None,
    profile_path: Path | None,
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
    reader = _reader(profile_path)
    with get_store() as store:
        added = store.feedback.of(reader.key).add(arxiv_id, Signal(signal), note, source="cli")
        paper = store.listings.paper(arxiv_id)
    flag = SIGNAL_FLAGS.get(signal, signal)
    title = f" ({say(shorten(paper.title, 80))})" if paper is not None else ""
    if added:
        console.print(f"recorded {flag} for {arxiv_id}{title}{reader.said()}", highlight=False)
    else:
        console.print(
            f"{arxiv_id}{title} is already {flag}: kept once, dated now{reader.said()}",
            highlight=False,
        )
    if paper is None:
        console.print(
            "[dim]note:[/] this paper is not in the store yet; it will teach the ranking once"
            " a listing containing it has been fetched",
            highlight=False,
        )


def _import_picks(path: Path, store: Store, profile: str) -> None:
    """A picks file (format of picks-dev.json): picks as accepted, each post's `shown` ids
    that were not picked as passed over, dated by listing day."""
    posts = load_posts(path)
    ids = {pid for post in posts for pid in (*(p for p, _ in post.picks), *(post.shown or ()))}
    added = record_posts(store.feedback.of(profile), posts, source=f"import:{path.name}")
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


def _import_liked(path: Path, store: Store, profile: str) -> None:
    """A library export (BibTeX, CSL JSON, RIS, arXiv ids, PDF folder): each paper with an
    arXiv id as 👍 (with its title, for `feedback list`), once: a paper already liked is
    folded into its 👍, whatever file liked it."""
    papers = read_with_progress(path)
    source = f"import:{path.name}"
    titles = {p.arxiv_id: p.title for p in papers if p.arxiv_id}
    log = store.feedback.of(profile)
    fresh = [
        paper_id
        for paper_id, title in titles.items()
        if log.add(paper_id, Signal.UP, source=source, title=title)
    ]
    without_id = len(papers) - len(titles)
    console.print(
        f"imported {len(fresh)} liked papers (👍) from {path.name}"
        f" ({len(titles) - len(fresh)} already there)"
    )
    if without_id:
        console.print(
            f"[dim]note:[/] {without_id} entries have no arXiv id (no eprint, arXiv DOI or"
            " URL) and were skipped",
            highlight=False,
        )


IMPORTERS: dict[str, Callable[[Path, Store, str], None]] = {
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
@click.argument("path", type=click.Path(path_type=Path))
@profile_option
def feedback_import(path: Path, profile_path: Path | None) -> None:
    """Import a reading history: a picks file, or papers you liked.

    A picks file (format of picks-dev.json) gives accepted picks and each post's `shown`
    ids that were not picked (passed over), dated by listing day. Anything else is read
    as liked papers (👍): a BibTeX, CSL JSON or RIS export (Zotero), a list of arXiv ids,
    a folder of PDFs, or your Zotero library live (zotero:users/ID[?collection=NAME
    &exclude=NAME], key in $ZOTERO_API_KEY). Re-importing adds only what is new, so an
    import before each day's run keeps the ranking in step with the library.
    """
    reader = _reader(profile_path)
    with get_store() as store:
        IMPORTERS[import_format(path)](path, store, reader.key)


@dataclass(frozen=True)
class Reader:
    """Whose feedback a command records or lists: the profile's key ('' = every profile of
    the home, when there is no profile file) and the time zone its times are shown in."""

    key: str
    zone: tzinfo

    def said(self) -> str:
        return f" — profile {say(self.key)}" if self.key else " — every profile"


def _reader(profile_path: Path | None) -> Reader:
    """The reader of ``--profile`` (which must load), else of the default profile file if
    there is one; without a profile, feedback counts for every profile of the home."""
    path = resolve_profile_path(profile_path)
    if profile_path is None and not path.exists():
        return Reader("", datetime.now().astimezone().tzinfo or UTC)
    profile = load_profile(path)
    return Reader(profile.key, ZoneInfo(profile.timezone))


def _local(stamp: str, zone: tzinfo) -> str:
    """A stored UTC timestamp in the reader's time zone, to the minute."""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp[:16]
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M")


@dataclass(frozen=True)
class Listed:
    """One row of `feedback list`: an event, its title, and how many repeats it folds."""

    event: FeedbackEvent
    title: str
    when: str
    repeats: int = 1

    def to_json(self) -> dict[str, object]:
        event = self.event
        return {
            "id": event.id,
            "paper_id": event.paper_id,
            "signal": event.signal.value,
            "note": event.note,
            "source": event.source,
            "created_at": event.created_at,
            "local_time": self.when,
            "title": self.title,
            "profile": event.profile,
            "repeats": self.repeats,
        }


def fold_repeats(events: Sequence[FeedbackEvent]) -> list[tuple[FeedbackEvent, int]]:
    """Newest-first events with each run of the same signal on the same paper (stored
    before repeats were folded at the source) shown once, with its count."""
    folded: list[tuple[FeedbackEvent, int]] = []
    for event in events:
        if folded:
            last, count = folded[-1]
            same = (last.paper_id, last.signal, last.note or "") == (
                event.paper_id,
                event.signal,
                event.note or "",
            )
            if same:
                folded[-1] = (last, count + 1)
                continue
        folded.append((event, 1))
    return folded


@feedback.command("list", short_help="Every signal, newest first, with titles.")
@click.option("--limit", default=50, show_default=True, help="How many, newest first.")
@click.option("--given", is_flag=True, help="Only the signals you gave (CLI and web UI).")
# Everything is listed now; `--all` (which once added imported and pipeline signals) is kept
# so that scripts written for it still run.
@click.option("--all", "_everything", is_flag=True, hidden=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (stable keys).")
@profile_option
def feedback_list(
    limit: int, given: bool, _everything: bool, as_json: bool, profile_path: Path | None
) -> None:
    """List every signal of the profile, newest first: given in the CLI or the web UI,
    imported (liked papers, picks) and the pipeline's, with titles, in the profile's time
    zone (without a profile file: every profile's, in this machine's). Repeats are shown
    once with their count.

    --json prints [{"id", "paper_id", "signal", "note", "source", "created_at",
    "local_time", "title", "profile", "repeats"}].
    """
    reader = _reader(profile_path)
    with get_store(reading=True) as store:
        log = store.feedback.of(reader.key) if reader.key else store.feedback  # no profile: all
        events = log.recent(limit, READER_SOURCES if given else ())
        known = store.listings.papers(e.paper_id for e in events)
    rows = [
        Listed(
            event,
            known[event.paper_id].title if event.paper_id in known else event.title,
            _local(event.created_at, reader.zone),
            repeats,
        )
        for event, repeats in fold_repeats(events)
    ]
    if as_json:
        click.echo(json_text([row.to_json() for row in rows]))
        return
    if not rows:
        console.print(
            f"no feedback yet{reader.said()}: `paperbrief feedback <id> --up` records some"
        )
        return
    table = Table(show_lines=False, title=f"{len(rows)} signals{reader.said()}")
    when = f"when ({getattr(reader.zone, 'key', None) or reader.zone})"  # whose clock
    for column in ("id", when, "signal", "from", "paper", "title", "note"):
        table.add_column(column, overflow="fold")
    for row in rows:
        event = row.event
        flag = SIGNAL_FLAGS.get(event.signal.value, event.signal.value)
        table.add_row(
            str(event.id),
            row.when,
            flag + (f" ×{row.repeats}" if row.repeats > 1 else ""),
            say(event.source),
            say(event.paper_id),
            say(row.title),
            say(event.note or ""),
        )
    Console().print(table)


READER_SOURCES = ("cli", "web")

START_ANSWERS = {"y": Signal.UP, "n": Signal.DOWN}


@feedback.command("start", short_help="Rate a short selection of papers to start.")
@profile_option
@click.option("--count", default=20, show_default=True, help="How many papers to ask about.")
@click.option("--list", "list_only", is_flag=True, help="Print the selection; ask nothing.")
@click.option("--json", "as_json", is_flag=True, help="With --list: print JSON (stable keys).")
def feedback_start(profile_path: Path | None, count: int, list_only: bool, as_json: bool) -> None:
    """Rate a short selection of recent papers, chosen to teach the ranking the most: spread
    over your research lines and from where the ranking is least sure. Answer y (👍), n
    (👎), s (skip) or q (stop); the next ranking uses the ratings at once.

    --list prints the selection instead (rate with `paperbrief feedback ID --up`); with
    --json: [{"id", "title", "line", "stars", "relevance", "abstract"}].
    """
    from datetime import date

    from paperbrief.rank import papers_to_rate
    from paperbrief.services import Services
    from paperbrief.text import shorten

    profile = get_profile(profile_path)
    with get_store() as store:
        embedder = Services.build(profile, store, offline=True).embedder
        with console.status("choosing papers to rate …"):
            log = store.feedback.of(profile.key)
            own = store.history_of(profile.key)  # the reader's own judge records
            chosen = papers_to_rate(own, embedder, profile, date.today(), count, log=log)
        if not chosen:
            console.print("nothing left to rate: every recent paper has a rating")
            return
        if list_only:
            rows = [
                {
                    "id": s.paper.id,
                    "title": s.paper.title,
                    "line": s.line,
                    "stars": s.stars,
                    "relevance": s.components.get("relevance", s.score),
                    "abstract": s.paper.abstract,
                }
                for s in chosen
            ]
            if as_json:
                click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
                return
            for n, row in enumerate(rows, 1):
                console.print(f"{n:2d}. {escape(str(row['id']))}  {escape(str(row['title']))}")
            return
        given: dict[Signal, int] = {Signal.UP: 0, Signal.DOWN: 0}
        for n, scored in enumerate(chosen, 1):
            console.print(
                f"\n[bold]{n}/{len(chosen)}[/]  {escape(scored.paper.title)}"
                f"  [dim]{escape(scored.paper.id)} · {escape(scored.line or '')}[/]"
            )
            console.print(escape(shorten(scored.paper.abstract, 420)), highlight=False)
            answer = click.prompt(
                "want papers like this? y / n / s(kip) / q(uit)",
                type=click.Choice(["y", "n", "s", "q"]),
                default="s",
                show_choices=False,
            )
            if answer == "q":
                break
            if answer in START_ANSWERS:
                log.add(scored.paper.id, START_ANSWERS[answer], source="cli")
                given[START_ANSWERS[answer]] += 1
    total = sum(given.values())
    console.print(
        f"recorded {total} ratings ({given[Signal.UP]} 👍, {given[Signal.DOWN]} 👎);"
        " the next `paperbrief rank` or `run` ranks with them"
    )


@feedback.command("undo", short_help="Remove your last signal (or one by id).")
@click.argument("event_id", type=int, required=False)
@profile_option
def feedback_undo(event_id: int | None, profile_path: Path | None) -> None:
    """Remove your last signal (CLI or web UI), or the one with EVENT_ID (see `list`)."""
    reader = _reader(profile_path)
    with get_store() as store:
        log = store.feedback.of(reader.key) if reader.key else store.feedback  # no profile: all
        if event_id is None:
            latest = log.recent(1, READER_SOURCES)
            if not latest:
                raise FeedbackError("there is no signal to undo", "`paperbrief feedback list`")
            event_id = latest[0].id
        removed = log.remove(event_id)
    if removed is None:
        raise FeedbackError(
            f"no signal has id {event_id}", "`paperbrief feedback list` shows the ids"
        )
    signal = SIGNAL_FLAGS.get(removed.signal.value, removed.signal.value)
    console.print(
        f"undone: {signal} for {removed.paper_id} ({_local(removed.created_at, reader.zone)})"
    )


COMMANDS: list[click.Command] = [feedback]
