"""`paperbrief judge export`: the LLM judge's recorded verdicts, for offline evaluation."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import click

from paperbrief.cli.common import (
    PaperbriefGroup,
    console,
    get_profile,
    get_store,
    profile_option,
    resolve_profile_path,
    say,
)
from paperbrief.errors import PaperbriefError, ProfileError
from paperbrief.files import write_atomic
from paperbrief.rank.judge import replay_record
from paperbrief.store.judging import Verdicts


class NoVerdicts(PaperbriefError):
    """Nothing to export: no judge verdict is recorded in the asked range."""


def _readers_verdicts(verdicts: Verdicts, profile_path: Path | None) -> Verdicts:
    """The verdicts of the reader of ``--profile`` (else of the default profile file, if
    there is one). Without a profile, the home's, unless they are several readers': one
    file mixing them would replay one reader's ranking with another's judge."""
    path = resolve_profile_path(profile_path)
    if profile_path is not None or path.exists():
        return verdicts.of(get_profile(path).key)
    readers = verdicts.readers()
    if len(readers) > 1:
        names = ", ".join(say(r) if r else "(no reader named)" for r in readers)
        raise ProfileError(
            f"this home's judge verdicts are several readers': {names}",
            "name whose to export: --profile PROFILE.toml (a lab's are in"
            " $PAPERBRIEF_HOME/readers)",
        )
    return verdicts


@click.group("judge", cls=PaperbriefGroup, short_help="The LLM judge's recorded verdicts.")
def judge_group() -> None:
    """The LLM judge's verdicts: every `paperbrief run` with an LLM records them."""


@judge_group.command("export", short_help="Write the recorded verdicts as JSON.")
@click.option(
    "--out",
    "out_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="File to write (default: print to standard output).",
)
@click.option("--since", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="First listing day to export (YYYY-MM-DD).")  # fmt: skip
@click.option("--until", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="Last listing day to export (YYYY-MM-DD).")  # fmt: skip
@click.option("--model", default=None, help="Only this judge model's verdicts.")
@profile_option
def judge_export(
    out_path: Path | None,
    since: datetime | None,
    until: datetime | None,
    model: str | None,
    profile_path: Path | None,
) -> None:
    """Write one reader's recorded judge verdicts and first screens as {listing day: {arXiv
    id: verdict}}, the file `paperbrief eval ranking --judge-replay` reads. The reader is the
    profile's (--profile, else the default profile); without one, a home whose verdicts are
    one reader's exports those. When several models judged a paper and no --model is given,
    the newest verdict is kept.
    """
    first, last = since.date() if since else None, until.date() if until else None
    with get_store() as store:
        verdicts = _readers_verdicts(store.verdicts, profile_path)
        by_day = verdicts.by_day(first, last, model)
        screens = verdicts.screens_by_day(first, last, model)
        models = verdicts.models()
    whose = f" for {say(verdicts.reader)}" if verdicts.reader else ""
    if not by_day:
        raise NoVerdicts(
            "no judge verdicts recorded" + (f" for model {model}" if model else "") + whose,
            "run `paperbrief run` with an LLM endpoint configured"
            + (f" (recorded models: {', '.join(models)})" if models and model else ""),
        )
    text = json.dumps(
        {
            day: replay_record(by_day.get(day, {}), screens.get(day, {}))
            for day in sorted(set(by_day) | set(screens))
        },
        ensure_ascii=False,
        indent=1,
    )
    if out_path is None:
        click.echo(text)
        return
    write_atomic(out_path, text + "\n")
    papers = sum(len(v) for v in by_day.values())
    screened = sum(len(v) for v in screens.values())
    console.print(
        f"wrote {papers} verdicts and {screened} screens of {len(by_day)} listing days{whose}"
        f" to {out_path}"
    )


COMMANDS: list[click.Command] = [judge_group]
