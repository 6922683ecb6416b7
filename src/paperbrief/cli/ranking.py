"""`paperbrief eval ranking` and `paperbrief feedback`: measuring and teaching the ranking."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from paperbrief.cli.common import CONTEXT, console, get_profile, get_store, handle_errors
from paperbrief.errors import PaperbriefError
from paperbrief.models import Signal, split_arxiv_id
from paperbrief.rank.evaluate import CUTOFFS, evaluate_ranking, load_posts
from paperbrief.rank.judge import load_replay
from paperbrief.services import Services
from paperbrief.store import temporary_store


class FeedbackError(PaperbriefError):
    """A feedback command was given an unusable id or signal."""


@click.group("eval", context_settings=CONTEXT)
def eval_group() -> None:
    """Measure paperbrief against what the reader really picked."""


def _row(name: str, metrics: dict[str, object]) -> list[str]:
    recall = metrics["recall"]
    assert isinstance(recall, dict)
    return [
        name,
        *(f"{recall[str(k)]:.3f}" for k in CUTOFFS),
        f"{metrics['ndcg@10']:.3f}",
        f"{metrics['mrr']:.3f}",
    ]


@eval_group.command("ranking", context_settings=CONTEXT)
@click.option(
    "--listings",
    "listings_dir",
    required=True,
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Folder of listing files named YYYY-MM-DD.jsonl.gz (or .jsonl).",
)
@click.option(
    "--picks",
    "picks_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Picks file: {posts: [{digest_date, listing_day, picks: [{id, stars}]}]}.",
)
@click.option(
    "--profile",
    "profile_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Profile TOML to rank with.",
)
@click.option("--learn", is_flag=True, help="Replay earlier posts as feedback before each day.")
@click.option(
    "--since",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    help="Only evaluate posts with digest_date on or after this day (YYYY-MM-DD).",
)
@click.option(
    "--json",
    "json_out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Also write the figures as JSON to this file.",
)
@click.option(
    "--judge-replay",
    "judge_replay_path",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="Recorded LLM judge verdicts ({day: {id: {stars, line, reason, must_read}}}) to"
    " apply to each day's ranking, so a judged ranking is evaluated offline.",
)
@handle_errors
def eval_ranking(
    listings_dir: Path,
    picks_path: Path,
    profile_path: Path,
    learn: bool,
    since: object,
    json_out: Path | None,
    judge_replay_path: Path | None,
) -> None:
    """Rank each post's listing and report recall@5/10/20/50/100, nDCG@10 and MRR with 95%
    bootstrap intervals over days, next to random, BM25 and embedding baselines.

    Embeddings are cached in the store under $PAPERBRIEF_HOME, so reruns are fast.
    """
    profile = get_profile(profile_path)
    since_day = since.date() if since is not None else None  # type: ignore[attr-defined]
    with get_store() as store, temporary_store() as scratch:
        embedder = Services.build(profile, store, offline=True).embedder
        with console.status("ranking …") as status:
            report = evaluate_ranking(
                listings_dir,
                picks_path,
                profile,
                embedder,
                replay=scratch if learn else None,
                since=since_day,
                judge_replay=load_replay(judge_replay_path) if judge_replay_path else None,
                progress=lambda message: status.update(f"ranking {message} …"),
            )
    table = Table(
        title=f"{report.posts} posts, {report.picks} picks" + (" (--learn)" if learn else "")
    )
    for header in ("ranker", *(f"R@{k}" for k in CUTOFFS), "nDCG@10", "MRR"):
        table.add_column(header, justify="left" if header == "ranker" else "right")
    table.add_row(*_row("paperbrief", report.system))
    for name, metrics in report.baselines.items():
        table.add_row(*_row(name, metrics))
    ci = report.system["ci95"]
    assert isinstance(ci, dict)
    output = Console()
    output.print(table)
    output.print(
        "[dim]95% bootstrap CI (paperbrief):[/] "
        + ", ".join(f"{k} [{lo:.3f}, {hi:.3f}]" for k, (lo, hi) in ci.items()),
        highlight=False,
    )
    if json_out is not None:
        json_out.write_text(json.dumps(report.to_json(), indent=2), encoding="utf-8")
        console.print(f"wrote {json_out}")


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
    """Import a picks file (format of picks-dev.json) as accepted picks, dated by listing day.

    Re-importing the same file adds nothing twice.
    """
    posts = load_posts(path)
    added = skipped = 0
    with get_store() as store:
        existing = {
            (e.paper_id, e.created_at[:10])
            for e in store.feedback.events()
            if e.signal == Signal.PICKED
        }
        for post in posts:
            when = post.listing_day.isoformat() + "T12:00:00+00:00"
            for paper_id, _stars in post.picks:
                if (paper_id, when[:10]) in existing:
                    skipped += 1
                    continue
                store.feedback.add(
                    paper_id, Signal.PICKED, source=f"import:{path.name}", created_at=when
                )
                existing.add((paper_id, when[:10]))
                added += 1
    console.print(f"imported {added} picks from {len(posts)} posts ({skipped} already there)")


COMMANDS: list[click.Command] = [eval_group, feedback]
