"""`paperbrief run`, `paperbrief fetch` and `paperbrief rank`: the daily job."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import TypeVar
from zoneinfo import ZoneInfo

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.status import Status
from rich.table import Table

from paperbrief import rank
from paperbrief.cli.common import (
    console,
    get_profile,
    get_store,
    json_text,
    profile_option,
    report_empty,
    say,
    stopping,
    terminal_text,
)
from paperbrief.cli.lab import check_all_options, report_lab, run_all
from paperbrief.errors import EXIT_DELIVERY_FAILED, EXIT_FALLBACKS, EmptyDay, exit_code_help
from paperbrief.labels import stars_text
from paperbrief.models import Fallback
from paperbrief.pipeline import (
    QuietReporter,
    RunOptions,
    RunResult,
    acquire_listing,
    rank_day,
    resolve_day,
    run_day,
)
from paperbrief.profile import Profile
from paperbrief.services import Services, Stop

T = TypeVar("T")


class RichReporter:
    """Progress on stderr: a spinner per stage (embedding 500 papers takes a while) and a
    bar for per-paper work. Use as a context manager so the last spinner is stopped."""

    def __init__(self) -> None:
        self._status: Status | None = None

    def __enter__(self) -> RichReporter:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop()

    def _stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    def stage(self, message: str) -> None:
        self._stop()
        console.print(f"[dim]•[/] {say(message)}", highlight=False)
        self._status = console.status(say(message) + " …")
        self._status.start()

    def track(self, items: Sequence[T], description: str) -> Iterable[T]:
        self._stop()
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=console, transient=True) as progress:
            yield from progress.track(items, description=description)


def _today(profile: Profile) -> date:
    return datetime.now(ZoneInfo(profile.timezone)).date()


def _date(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date; use YYYY-MM-DD") from None


listing_option = click.option(
    "--listing",
    "listing_file",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    help="A local listing snapshot (JSONL or JSONL.gz) instead of live arXiv.",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON (stable keys).")
date_option = click.option(
    "--date", "date_text", metavar="YYYY-MM-DD", help="Digest date (default: today)."
)


def fallback_lines(fallbacks: Sequence[Fallback]) -> list[str]:
    """One terminal line per part and reason, its papers grouped, the first error shown."""
    grouped: dict[tuple[str, str], list[Fallback]] = {}
    for fallback in fallbacks:
        grouped.setdefault((fallback.part, fallback.reason), []).append(fallback)
    lines = []
    for (part, reason), items in grouped.items():
        papers = ", ".join(item.paper_id for item in items if item.paper_id)
        lines.append(f"{part} {papers}".strip() + f" ({reason}): {items[0].detail}")
    return lines


def report_run(result: RunResult) -> None:
    """What a run did: notes and picks on stderr, the files written on stdout; exits 7 when a
    delivery channel failed or is unknown, 8 when the digest was published with fallbacks."""
    for note in result.notes:
        console.print(f"[dim]note:[/] {say(note)}", highlight=False)
    if not result.reused:
        console.print(
            f"listing {result.listing_day}: {result.papers_considered} papers considered,"
            f" {len(result.picks)} picked, written by {say(result.writer)}",
            highlight=False,
        )
        for pick in result.picks:
            console.print(
                f"  {stars_text(pick.stars)} {say(pick.paper.id)} {say(pick.paper.title)}"
                f" [dim]({say(pick.line or '-')})[/]",
                highlight=False,
            )
    for line in fallback_lines(result.fallbacks):
        console.print(f"[yellow]fell back:[/] {say(line)}", highlight=False, important=True)
    for kind, path in result.files.items():
        click.echo(terminal_text(f"{kind}: {path}"))
    for outcome in result.deliveries:
        style = "green" if outcome.ok else ("red" if outcome.status == "failed" else "yellow")
        day = f"{outcome.digest_date} " if outcome.digest_date != result.digest_date else ""
        console.print(
            f"  [{style}]{say(day + outcome.channel)}[/]: {outcome.status} {say(outcome.detail)}",
            highlight=False,
            important=not outcome.ok,
        )
    if result.failed_channels:
        console.print(
            f"[red]delivery not done:[/] {say(', '.join(result.failed_channels))} — the digest"
            " is written; failed channels are retried on the next run, unknown ones are not"
            " sent again unless you run `paperbrief send --retry-unknown`",
            highlight=False,
            important=True,
        )
        raise SystemExit(EXIT_DELIVERY_FAILED)
    if result.fallbacks:
        console.print(
            "[yellow]published, with fallbacks:[/] the digest says which parts and why",
            highlight=False,
            important=True,
        )
        raise SystemExit(EXIT_FALLBACKS)


@click.command(
    short_help="Run the day: fetch, rank, read, write, publish.", epilog=exit_code_help()
)
@date_option
@listing_option
@profile_option
@click.option("--out", "out_dir", type=click.Path(path_type=Path, file_okay=False), help="Folder.")
@click.option("--force", is_flag=True, help="Regenerate scores, briefs and the digest.")
@click.option("--offline", is_flag=True, help="No network: no full text, no LLM, no delivery.")
@click.option("--no-deliver", is_flag=True, help="Write files only; send nothing.")
@click.option(
    "--strict", is_flag=True, help="Drop LLM-written claims whose numbers the paper lacks."
)
@click.option(
    "--all", "every", is_flag=True, help="Every reader of the readers folder (one listing fetch)."
)
@click.option(
    "--readers",
    "readers_folder",
    type=click.Path(path_type=Path, file_okay=False),
    help="The folder of --all: one profile per reader (default $PAPERBRIEF_HOME/readers).",
)
@json_option
def run(
    date_text: str | None,
    listing_file: Path | None,
    profile_path: Path | None,
    out_dir: Path | None,
    force: bool,
    offline: bool,
    no_deliver: bool,
    strict: bool,
    every: bool,
    readers_folder: Path | None,
    as_json: bool,
) -> None:
    """Run the daily pipeline and publish the digest (Markdown + HTML, then delivery).

    Without --listing it fetches the listing that today's digest covers from arXiv. A rerun
    of the same day reuses what is stored and publishes nothing twice. A part that fails
    (LLM endpoint down, no network, budget spent, the [run] deadline) falls back to the
    offline writer; the digest says which part and why, and the exit code is 8. Ctrl-C or
    SIGTERM stops it within seconds (exit 130 / 143; calls in flight are abandoned) and the
    next run resumes what it had done.

    --all runs every reader of the readers folder: one listing fetch and one embedding
    pass for all, then each reader's own day; one reader's failure never stops the others.
    It shows each reader as they start and end, then one line per reader, and exits with
    the most serious reader's code (--json: the per-reader report alone; with --out each
    reader's files go to OUT/<reader>/). Ctrl-C or SIGTERM stops the reader under way as
    it stops one run, starts no other, names them and exits 130 / 143; a rerun of --all
    finishes them and sends the finished readers nothing again.
    """
    check_all_options(every, profile_path, readers_folder, as_json)
    if every:
        lab_options = RunOptions(
            digest_date=_date(date_text), listing_file=listing_file, out_dir=out_dir,
            force=force, deliver=not (offline or no_deliver), strict=strict,
        )  # fmt: skip
        lab_stop = Stop()
        with stopping(lab_stop):  # as for one run: the reader under way stops, no other starts
            with RichReporter() as reporter:  # --json: the report alone
                lab = run_all(readers_folder, lab_options, offline,
                              QuietReporter() if as_json else reporter, stop=lab_stop)  # fmt: skip
            report_lab(lab, as_json)
        return
    profile = get_profile(profile_path)
    options = RunOptions(
        digest_date=_date(date_text),
        listing_file=listing_file,
        out_dir=out_dir,
        force=force,
        deliver=not (offline or no_deliver),
        strict=strict,
    )
    today = _today(profile)
    day = resolve_day(options, today)  # the LLM budget is scoped to the digest date
    stop = Stop()
    with (
        stopping(stop),
        get_store() as store,
        Services.build(profile, store, offline=offline, day=day.digest_date, stop=stop) as services,
    ):
        try:
            with RichReporter() as reporter:
                result = run_day(store, profile, options, services, today=today, reporter=reporter)
        except EmptyDay as empty:
            report_empty("nothing published", empty)
    report_run(result)


@click.command(short_help="Fetch the day's listing and print its counts.")
@date_option
@listing_option
@profile_option
@json_option
def fetch(
    date_text: str | None, listing_file: Path | None, profile_path: Path | None, as_json: bool
) -> None:
    """Fetch (or import) the day's listing into the store and print its counts.

    --json prints {"listing_day", "source", "papers", "in_categories", "kinds": {kind: n},
    "notes"}.
    """
    profile = get_profile(profile_path)
    options = RunOptions(digest_date=_date(date_text), listing_file=listing_file, force=True)
    listing_day = resolve_day(options, _today(profile)).listing_day
    with get_store() as store, Services.build(profile, store, offline=False) as services:
        try:
            listing = acquire_listing(store, profile, options, listing_day, services)
        except EmptyDay as empty:
            report_empty("no listing", empty)
    kept = rank.candidates(listing, profile)
    kinds: dict[str, int] = {}
    for paper in kept:
        for kind in set(paper.listings.values()) or {"new"}:
            kinds[kind] = kinds.get(kind, 0) + 1
    if as_json:
        summary = {
            "listing_day": listing.day.isoformat(),
            "source": listing.source,
            "papers": len(listing.papers),
            "in_categories": len(kept),
            "kinds": dict(sorted(kinds.items())),
            "notes": list(listing.notes),
        }
        click.echo(json_text(summary))
        return
    detail = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    click.echo(
        terminal_text(
            f"{listing.day}: {len(listing.papers)} papers from {listing.source};"
            f" {len(kept)} in your categories ({detail})"
        )
    )
    for note in listing.notes:
        click.echo(terminal_text(f"note: {note}"))


@click.command("rank", short_help="The day's ranking with scores and reasons.")
@date_option
@listing_option
@profile_option
@click.option("--top", default=20, show_default=True, help="How many rows to show.")
@json_option
def rank_command(
    date_text: str | None,
    listing_file: Path | None,
    profile_path: Path | None,
    top: int,
    as_json: bool,
) -> None:
    """Rank the day's papers against the profile and print the top ones with reasons.

    --json prints {"listing_day", "papers", "ranking": [{"rank", "id", "title", "score",
    "stars", "line", "reason", "matched_terms", "pick"}]} for the top rows.
    """
    profile = get_profile(profile_path)
    options = RunOptions(digest_date=_date(date_text), listing_file=listing_file)
    listing_day = resolve_day(options, _today(profile)).listing_day
    with get_store() as store, Services.build(profile, store, offline=True) as services:
        listing = acquire_listing(store, profile, options, listing_day, services)
        papers = rank.candidates(listing, profile)
        with RichReporter() as reporter:
            reporter.stage(f"ranking {len(papers)} papers of {listing.day}")
            ranking = rank_day(store, profile, papers, listing.day, services, force=False).ranking
        picks = {p.paper.id for p in rank.select_picks(ranking, profile)}
    if as_json:
        rows = [
            {
                "rank": item.rank,
                "id": item.paper.id,
                "title": item.paper.title,
                "score": round(item.score, 6),
                "stars": item.stars,
                "line": item.line,
                "reason": item.reason,
                "matched_terms": list(item.matched_terms),
                "pick": item.paper.id in picks,
            }
            for item in ranking[:top]
        ]
        result = {"listing_day": listing.day.isoformat(), "papers": len(ranking), "ranking": rows}
        click.echo(json_text(result))
        return
    table = Table(title=f"{listing.day}: top {top} of {len(ranking)}", show_lines=False)
    for column in ("#", "pick", "stars", "relevance", "id", "title", "line / reason"):
        table.add_column(column, overflow="fold")
    for item in ranking[:top]:
        table.add_row(
            str(item.rank),
            "✔" if item.paper.id in picks else "",
            stars_text(item.stars),
            f"{item.score:.1f}",
            say(item.paper.id),
            say(item.paper.title),
            say(f"{item.line or '-'}: {item.reason}"),
        )
    from rich.console import Console

    Console().print(table)


COMMANDS: list[click.Command] = [run, fetch, rank_command]
