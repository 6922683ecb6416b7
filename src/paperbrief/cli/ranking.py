"""`paperbrief eval ranking`: measuring the ranking against what the reader picked."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from paperbrief.cli.common import CONTEXT, console, get_profile, get_store, handle_errors
from paperbrief.rank.evaluate import CUTOFFS, evaluate_ranking
from paperbrief.rank.judge import load_replay
from paperbrief.services import Services
from paperbrief.store import temporary_store


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


COMMANDS: list[click.Command] = [eval_group]
