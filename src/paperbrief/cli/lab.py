"""`paperbrief run --all`: every reader of the home's readers folder (``paperbrief.lab``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import click

from paperbrief.cli.common import console, get_store, say, terminal_text
from paperbrief.lab import LabResult, lab_services, load_readers, reader_files, run_lab
from paperbrief.pipeline import Reporter, RunOptions, resolve_day
from paperbrief.profile import Profile, home_dir
from paperbrief.services import Stop

READERS_FOLDER = "readers"  # under $PAPERBRIEF_HOME, one profile per reader

_STYLE = {
    "published": "green",
    "fell-back": "yellow",
    "not-delivered": "red",
    "empty": "yellow",
    "failed": "red",
    "interrupted": "yellow",
    "not-started": "yellow",
}


def default_readers_folder() -> Path:
    return home_dir() / READERS_FOLDER


def run_all(
    folder: Path | None,
    options: RunOptions,
    offline: bool,
    reporter: Reporter,
    stop: Stop | None = None,
) -> LabResult:
    """Run every reader's day, telling ``reporter`` as each reader starts and ends (the
    caller reports the result: ``report_lab``). ``stop`` is the one the caller's signal
    handler sets (``cli.common.stopping``): every reader's services see it."""
    readers = load_readers(reader_files(folder or default_readers_folder()))
    profiles = [r.profile for r in readers if r.profile is not None]
    today = lab_today(profiles)
    day = resolve_day(options, today).digest_date
    with lab_services(profiles, offline=offline, day=day, stop=stop) as build, get_store() as store:
        return run_lab(store, readers, options, build, today=today, reporter=reporter)


def lab_today(profiles: Sequence[Profile]) -> date:
    """Today in the first reader's time zone (UTC without one)."""
    zone = profiles[0].timezone if profiles else "UTC"
    return datetime.now(ZoneInfo(zone)).date()


def lab_summary(result: LabResult) -> dict[str, object]:
    """The lab's report as JSON (stable keys)."""
    return {
        "digest_date": result.digest_date.isoformat() if result.digest_date else None,
        "listing_day": result.listing_day.isoformat() if result.listing_day else None,
        "papers_listed": result.papers_listed,
        "papers_embedded": result.papers_embedded,
        "exit_code": result.exit_code,
        "stopped_by": result.stopped_by or None,
        "readers": [
            {
                "reader": o.reader,
                "name": o.name,
                "status": o.status,
                "exit_code": o.exit_code,
                "detail": o.detail,
                "hint": o.hint,
                "picks": [p.paper.id for p in o.result.picks] if o.result else [],
                "files": {k: str(v) for k, v in o.result.files.items()} if o.result else {},
                "seconds": round(o.seconds, 2),
            }
            for o in result.outcomes
        ],
    }


def report_lab(result: LabResult, as_json: bool) -> None:
    """One line per reader on stderr (the files on stdout, or the JSON report), then exit."""
    if as_json:
        click.echo(json.dumps(lab_summary(result), ensure_ascii=False, indent=2))
    for note in result.notes:
        console.print(f"[dim]note:[/] {say(note)}", highlight=False)
    day = f"listing {result.listing_day}" if result.listing_day else "no listing"
    done = sum(1 for o in result.outcomes if o.result is not None)
    console.print(
        f"{day}: {result.papers_listed} papers listed, {result.papers_embedded} embedded once"
        f" for {len(result.outcomes)} readers; {done} digests published",
        highlight=False,
    )
    for outcome in result.outcomes:
        style = _STYLE[outcome.status]
        console.print(
            f"  [{style}]{say(outcome.reader)}[/] ({outcome.exit_code}) {outcome.status}:"
            f" {say(outcome.detail)}"
            + (f" [dim]hint: {say(outcome.hint)}[/]" if outcome.hint else ""),
            highlight=False,
            important=outcome.status != "published",
        )
        if not as_json and outcome.result is not None:
            for kind, path in outcome.result.files.items():
                click.echo(terminal_text(f"{outcome.reader} {kind}: {path}"))
    if result.stopped_by:
        left = [o.reader for o in result.outcomes if o.status in ("interrupted", "not-started")]
        published = [o.reader for o in result.outcomes if o.result is not None]
        console.print(
            f"[yellow]interrupted[/] ({say(result.stopped_by)}): published"
            f" {say(', '.join(published) or 'none')}; left {say(', '.join(left) or 'none')} — rerun"
            " `paperbrief run --all` with the same options to finish them (exit"
            f" {result.exit_code}; what was sent is not sent again)",
            highlight=False,
            important=True,
        )
        raise SystemExit(result.exit_code)
    if result.exit_code:
        failing = [o.reader for o in result.outcomes if o.status != "published"]
        console.print(
            f"[red]not every reader's day is clean:[/] {say(', '.join(failing))}"
            f" (exit {result.exit_code}: the most serious reader's code)",
            highlight=False,
            important=True,
        )
        raise SystemExit(result.exit_code)


def check_all_options(
    every: bool, profile_path: Path | None, readers: Path | None, as_json: bool
) -> None:
    if as_json and not every:
        raise click.UsageError("--json prints the per-reader report of --all; add --all")
    if every and profile_path is not None:
        raise click.UsageError("--all runs every profile of the readers folder; drop --profile")
    if readers is not None and not every:
        raise click.UsageError("--readers names the folder of --all; add --all")
