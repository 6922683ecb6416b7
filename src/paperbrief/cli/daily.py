"""`paperbrief run`, `paperbrief fetch` and `paperbrief rank`: the daily job."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import TypeVar
from zoneinfo import ZoneInfo

import click
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.status import Status
from rich.table import Table

from paperbrief import rank
from paperbrief.cli.common import (
    CONTEXT,
    console,
    get_profile,
    get_store,
    handle_errors,
    profile_option,
)
from paperbrief.errors import EXIT_DELIVERY_FAILED, EmptyDay
from paperbrief.http import PoliteClient
from paperbrief.labels import stars_text
from paperbrief.pipeline import (
    RunOptions,
    RunResult,
    Services,
    acquire_listing,
    filter_papers,
    rank_day,
    resolve_days,
    run_day,
)
from paperbrief.profile import Profile
from paperbrief.store import Store

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
        console.print(f"[dim]•[/] {escape(message)}", highlight=False)
        self._status = console.status(message + " …")
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


def _build_services(
    store: Store, profile: Profile, offline: bool, digest_date: date | None = None
) -> Services:
    services = Services(embedder=rank.Embedder(cache=store.embeddings))
    if offline:
        return services
    services.http = PoliteClient()
    from paperbrief import llm

    if llm.llm_configured(profile.llm, os.environ):
        # The daily budget is scoped to the digest date (today when not given).
        day = (digest_date or _today(profile)).isoformat()
        services.llm = llm.LLMClient(
            profile.llm, store.llm, api_key=llm.resolve_api_key(profile.llm), day=day
        )
    return services


def _deliverer(store: Store, profile: Profile, failed: list[str]) -> Callable[[RunResult], None]:
    """Delivery after the files are written; failed channel names are appended to
    ``failed`` (they are retried on the next run)."""
    from paperbrief.deliver import deliver_digest

    def deliver(result: RunResult) -> None:
        # Channels already sent for this date are skipped; failed ones are retried.
        stored = store.digests.load(result.digest_date, profile.language)
        if stored is None:
            return
        for outcome in deliver_digest(stored, profile, store.deliveries, store.digests):
            style = "green" if outcome.ok else "red"
            channel, detail = escape(outcome.channel), escape(outcome.detail)
            console.print(f"  [{style}]{channel}[/]: {outcome.status} {detail}", highlight=False)
            if not outcome.ok:
                failed.append(outcome.channel)

    return deliver


listing_option = click.option(
    "--listing",
    "listing_file",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    help="A local listing snapshot (JSONL or JSONL.gz) instead of live arXiv.",
)
date_option = click.option(
    "--date", "date_text", metavar="YYYY-MM-DD", help="Digest date (default: today)."
)


@click.command(context_settings=CONTEXT)
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
@handle_errors
def run(
    date_text: str | None,
    listing_file: Path | None,
    profile_path: Path | None,
    out_dir: Path | None,
    force: bool,
    offline: bool,
    no_deliver: bool,
    strict: bool,
) -> None:
    """Run the daily pipeline and publish the digest (Markdown + HTML, then delivery).

    Without --listing it fetches the listing that today's digest covers from arXiv. A rerun
    of the same day reuses what is stored and publishes nothing twice.
    """
    profile = get_profile(profile_path)
    options = RunOptions(
        digest_date=_date(date_text),
        listing_file=listing_file,
        out_dir=out_dir,
        force=force,
        offline=offline,
        deliver=not (offline or no_deliver),
        strict=strict,
    )
    failed_channels: list[str] = []
    with get_store() as store:
        services = _build_services(store, profile, offline, options.digest_date)
        try:
            with RichReporter() as reporter:
                result = run_day(
                    store,
                    profile,
                    options,
                    services,
                    today=_today(profile),
                    reporter=reporter,
                    deliver=_deliverer(store, profile, failed_channels),
                )
        except EmptyDay as empty:
            console.print(f"[yellow]nothing published:[/] {escape(empty.message)}", highlight=False)
            if empty.hint:
                console.print(f"[dim]hint:[/] {escape(empty.hint)}", highlight=False)
            raise SystemExit(empty.exit_code) from None
        finally:
            if services.http is not None:
                services.http.close()
    for note in result.notes:
        console.print(f"[dim]note:[/] {escape(note)}", highlight=False)
    if not result.reused:
        console.print(
            f"listing {result.listing_day}: {result.papers_considered} papers considered,"
            f" {len(result.picks)} picked, written by {result.writer}"
        )
        for pick in result.picks:
            console.print(
                f"  {stars_text(pick.stars)} {escape(pick.paper.id)} {escape(pick.paper.title)}"
                f" [dim]({escape(pick.line or '-')})[/]",
                highlight=False,
            )
    for kind, path in result.files.items():
        click.echo(f"{kind}: {path}")
    if failed_channels:
        console.print(
            f"[red]delivery failed:[/] {escape(', '.join(failed_channels))} — the digest is"
            " written; these channels are retried on the next run",
            highlight=False,
        )
        raise SystemExit(EXIT_DELIVERY_FAILED)


@click.command(context_settings=CONTEXT)
@date_option
@listing_option
@profile_option
@handle_errors
def fetch(date_text: str | None, listing_file: Path | None, profile_path: Path | None) -> None:
    """Fetch (or import) the day's listing into the store and print its counts."""
    profile = get_profile(profile_path)
    options = RunOptions(digest_date=_date(date_text), listing_file=listing_file, force=True)
    listing_day, _ = resolve_days(options, _today(profile))
    with get_store() as store, PoliteClient() as client:
        try:
            listing = acquire_listing(store, profile, options, listing_day, Services(http=client))
        except EmptyDay as empty:
            console.print(f"[yellow]no listing:[/] {escape(empty.message)}", highlight=False)
            if empty.hint:
                console.print(f"[dim]hint:[/] {escape(empty.hint)}", highlight=False)
            raise SystemExit(empty.exit_code) from None
    kept = filter_papers(listing, profile)
    kinds: dict[str, int] = {}
    for paper in kept:
        for kind in set(paper.listings.values()) or {"new"}:
            kinds[kind] = kinds.get(kind, 0) + 1
    detail = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    click.echo(
        f"{listing.day}: {len(listing.papers)} papers from {listing.source};"
        f" {len(kept)} in your categories ({detail})"
    )
    for note in listing.notes:
        click.echo(f"note: {note}")


@click.command("rank", context_settings=CONTEXT)
@date_option
@listing_option
@profile_option
@click.option("--top", default=20, show_default=True, help="How many rows to show.")
@handle_errors
def rank_command(
    date_text: str | None, listing_file: Path | None, profile_path: Path | None, top: int
) -> None:
    """Rank the day's papers against the profile and print the top ones with reasons."""
    profile = get_profile(profile_path)
    options = RunOptions(digest_date=_date(date_text), listing_file=listing_file, offline=True)
    listing_day, _ = resolve_days(options, _today(profile))
    with get_store() as store:
        services = Services(embedder=rank.Embedder(cache=store.embeddings))
        listing = acquire_listing(store, profile, options, listing_day, services)
        papers = filter_papers(listing, profile)
        with RichReporter() as reporter:
            reporter.stage(f"ranking {len(papers)} papers of {listing.day}")
            ranking = rank_day(store, profile, papers, listing.day, services, force=False)
        picks = {p.paper.id for p in rank.select_picks(ranking, profile)}
    table = Table(title=f"{listing.day}: top {top} of {len(ranking)}", show_lines=False)
    for column in ("#", "pick", "stars", "score", "id", "title", "line / reason"):
        table.add_column(column, overflow="fold")
    for item in ranking[:top]:
        table.add_row(
            str(item.rank),
            "✔" if item.paper.id in picks else "",
            stars_text(item.stars),
            f"{item.score:.3f}",
            escape(item.paper.id),
            escape(item.paper.title),
            escape(f"{item.line or '-'}: {item.reason}"),
        )
    from rich.console import Console

    Console().print(table)


COMMANDS: list[click.Command] = [run, fetch, rank_command]
