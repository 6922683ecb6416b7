"""`paperbrief eval ranking`: measuring the ranking against what the reader picked."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from paperbrief.cli.common import PaperbriefGroup, console, get_profile, get_store
from paperbrief.rank.evaluate import EvaluationReport, ViewReport, evaluate_ranking
from paperbrief.rank.judge import load_replay
from paperbrief.rank.metrics import CUTOFFS
from paperbrief.services import Services
from paperbrief.store import temporary_store


@click.group("eval", cls=PaperbriefGroup)
def eval_group() -> None:
    """Measure paperbrief against what the reader really picked."""


# Recall cutoffs shown per view: among the ~50 papers a reader saw, recall@50 says nothing.
SHOWN_CUTOFFS = (5, 10, 20)


def _row(name: str, metrics: dict[str, object], cutoffs: tuple[int, ...]) -> list[str]:
    recall = metrics["recall"]
    assert isinstance(recall, dict)
    return [
        name,
        *(f"{recall[str(k)]:.3f}" for k in cutoffs),
        f"{metrics['ndcg@10']:.3f}",
        f"{metrics['mrr']:.3f}",
    ]


def _table(title: str, view: ViewReport, cutoffs: tuple[int, ...]) -> Table:
    table = Table(title=title)
    for header in ("ranker", *(f"R@{k}" for k in cutoffs), "nDCG@10", "MRR"):
        table.add_column(header, justify="left" if header == "ranker" else "right")
    table.add_row(*_row("paperbrief", view.system, cutoffs))
    for name, metrics in view.baselines.items():
        table.add_row(*_row(name, metrics, cutoffs))
    return table


def _ci_line(view: ViewReport, cutoffs: tuple[int, ...]) -> str:
    ci = view.system["ci95"]
    assert isinstance(ci, dict)
    keys = [f"recall@{k}" for k in cutoffs] + ["ndcg@10", "mrr"]
    return "[dim]95% bootstrap CI over listing days (paperbrief):[/] " + ", ".join(
        f"{k} [{ci[k][0]:.3f}, {ci[k][1]:.3f}]" for k in keys if k in ci
    )


def print_report(report: EvaluationReport, learn: bool) -> None:
    """Both views as tables: within shown first (the primary figure), then whole listing."""
    output = Console()
    heading = f"{report.posts} posts, {report.picks} picks" + (" (--learn)" if learn else "")
    if report.within_shown is not None:
        output.print(_table(f"within shown · {heading}", report.within_shown, SHOWN_CUTOFFS))
        output.print(_ci_line(report.within_shown, SHOWN_CUTOFFS), highlight=False)
    title = "whole listing, ids shuffled · " + heading
    output.print(_table(title, report.whole_listing, CUTOFFS))
    output.print(_ci_line(report.whole_listing, CUTOFFS), highlight=False)
    output.print(
        f"[dim]{report.days} listing days, {report.seconds_per_day:.2f} s per day to rank"
        + (" and learn" if learn else "")
        + " (with any embedding the cache did not hold yet)[/]",
        highlight=False,
    )


@eval_group.command("ranking", short_help="Ranking quality against the reader's picks.")
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
    help="Picks file: {posts: [{digest_date, listing_day, picks: [{id, stars}], shown}]};"
    " shown (optional) lists the ids the reader saw that day.",
)
@click.option(
    "--profile",
    "profile_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Profile TOML to rank with.",
)
@click.option(
    "--learn",
    is_flag=True,
    help="Before each listing day, replay the posts of earlier days as feedback (picked,"
    " and shown but not picked) and rank with the learned taste.",
)
@click.option(
    "--since",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    help="Only evaluate posts with digest_date on or after this day (YYYY-MM-DD).",
)
@click.option(
    "--until",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    help="Only evaluate posts with digest_date on or before this day (YYYY-MM-DD).",
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
    help="Recorded LLM judge verdicts (the file `paperbrief judge export` writes) to"
    " apply to each day's ranking, so a judged ranking is evaluated offline.",
)
def eval_ranking(
    listings_dir: Path,
    picks_path: Path,
    profile_path: Path,
    learn: bool,
    since: object,
    until: object,
    json_out: Path | None,
    judge_replay_path: Path | None,
) -> None:
    """Rank each post's listing and report recall@k, nDCG@10 and MRR with 95% bootstrap
    intervals over listing days, next to random, BM25 and embedding baselines.

    With `shown` in the picks file there are two tables: within shown (the papers the
    reader saw, the primary figure) and the whole listing. Every day's papers are shuffled
    and given opaque ids first, so only content and feedback can rank. Embeddings are
    cached in the store under $PAPERBRIEF_HOME, so reruns are fast.
    """
    profile = get_profile(profile_path)
    since_day = since.date() if since is not None else None  # type: ignore[attr-defined]
    until_day = until.date() if until is not None else None  # type: ignore[attr-defined]
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
                until=until_day,
                judge_replay=load_replay(judge_replay_path) if judge_replay_path else None,
                progress=lambda message: status.update(f"ranking {message} …"),
            )
    print_report(report, learn)
    if json_out is not None:
        json_out.write_text(json.dumps(report.to_json(), indent=2), encoding="utf-8")
        console.print(f"wrote {json_out}")


COMMANDS: list[click.Command] = [eval_group]
