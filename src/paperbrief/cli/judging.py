"""`paperbrief judge export`: the LLM judge's recorded verdicts, for offline evaluation."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import click

from paperbrief.cli.common import PaperbriefGroup, console, get_store
from paperbrief.errors import PaperbriefError
from paperbrief.files import write_atomic
from paperbrief.rank.judge import replay_record


class NoVerdicts(PaperbriefError):
    """Nothing to export: no judge verdict is recorded in the asked range."""


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
def judge_export(
    out_path: Path | None, since: datetime | None, until: datetime | None, model: str | None
) -> None:
    """Write the recorded judge verdicts and first screens as {listing day: {arXiv id:
    verdict}}, the file `paperbrief eval ranking --judge-replay` reads. When several models
    judged a paper and no --model is given, the newest verdict is kept.
    """
    first, last = since.date() if since else None, until.date() if until else None
    with get_store() as store:
        by_day = store.verdicts.by_day(first, last, model)
        screens = store.verdicts.screens_by_day(first, last, model)
        models = store.verdicts.models()
    if not by_day:
        raise NoVerdicts(
            "no judge verdicts recorded" + (f" for model {model}" if model else ""),
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
        f"wrote {papers} verdicts and {screened} screens of {len(by_day)} listing days"
        f" to {out_path}"
    )


COMMANDS: list[click.Command] = [judge_group]
