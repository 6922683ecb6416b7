"""`paperbrief eval ranking`: metrics, baselines, JSON contract and the no-leak replay."""

from __future__ import annotations

import json
import shutil
from datetime import date

import pytest
from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.rank.evaluate import PostResult, RecordedPost, evaluate_ranking, summarize
from paperbrief.store import temporary_store
from tests.support.rank import (  # noqa: F401 (rank_embedder and rank_profile are fixtures)
    RANK_FIXTURES,
    rank_embedder,
    rank_profile,
    seeded_store,
)


def test_metrics_count_every_pick_and_grade_by_stars():
    post = RecordedPost(date(2026, 4, 2), date(2026, 4, 1), (("a", 3), ("b", 2), ("c", 5)))
    result = PostResult(post, ranks=[1, 12, None])
    summary = summarize([result])
    assert summary["recall"] == {
        "5": 0.3333,
        "10": 0.3333,
        "20": 0.6667,
        "50": 0.6667,
        "100": 0.6667,
    }
    assert summary["mrr"] == 1.0
    # DCG = 3/log2(2) = 3; ideal = 5 + 3/log2(3) + 2/log2(4) = 7.893
    assert summary["ndcg@10"] == pytest.approx(3 / 7.8928, abs=1e-3)


def test_bootstrap_interval_brackets_the_point_estimate():
    posts = [
        RecordedPost(date(2026, 4, d), date(2026, 4, d), (("a", 2), ("b", 2))) for d in range(1, 9)
    ]
    results = [PostResult(p, [1 if i % 2 else 30, None]) for i, p in enumerate(posts)]
    summary = summarize(results)
    low, high = summary["ci95"]["recall@20"]
    assert low <= summary["recall"]["20"] <= high
    assert low < high


def test_evaluation_reports_within_shown_and_the_whole_listing(profile, embedder):
    report = evaluate_ranking(
        RANK_FIXTURES / "listings", RANK_FIXTURES / "picks.json", profile, embedder
    )
    assert report.posts == 4 and report.picks == 14 and report.days == 3
    assert report.within_shown is not None and report.primary is report.within_shown
    assert set(report.baselines) == {"random", "bm25", "embedding"}
    shown, whole = report.within_shown, report.whole_listing
    assert shown.system["recall"]["5"] > shown.baselines["random"]["recall"]["5"]
    assert whole.system["recall"]["20"] > whole.baselines["random"]["recall"]["20"]
    # Among the few papers the reader saw a pick ranks at least as high as in the listing.
    for inside, outside in zip(shown.per_post, whole.per_post, strict=True):
        assert all(a <= b for a, b in zip(inside.ranks, outside.ranks, strict=True))
        assert max(inside.ranks) <= len(inside.post.shown)
    # The ranked papers carry opaque ids: the arXiv ids (and their order) cannot rank.
    assert all(pid.startswith("202604") for r in whole.per_post for pid, _ in r.post.picks)


def test_learning_replay_never_sees_the_ranked_day_or_later(profile, embedder, tmp_path):
    with temporary_store() as scratch:
        report = evaluate_ranking(
            RANK_FIXTURES / "listings",
            RANK_FIXTURES / "picks.json",
            profile,
            embedder,
            replay=scratch,
        )
    by_day = {}
    for result in report.per_post:
        assert result.latest_feedback < result.post.listing_day.isoformat()
        by_day.setdefault(result.post.listing_day, result)
    assert by_day[date(2026, 4, 21)].learned_from == 0  # nothing earlier exists
    # Learned from what the reader saw on the two earlier days (6 + 9 shown), not from the
    # ~100 listed papers they never saw.
    assert by_day[date(2026, 4, 24)].learned_from == 6 + 9
    # Dropping the later posts from the history changes nothing for an earlier day.
    picks = json.loads((RANK_FIXTURES / "picks.json").read_text(encoding="utf-8"))
    picks["posts"] = [p for p in picks["posts"] if p["listing_day"] <= "2026-04-22"]
    truncated = tmp_path / "picks.json"
    truncated.write_text(json.dumps(picks), encoding="utf-8")
    with temporary_store() as scratch:
        short = evaluate_ranking(
            RANK_FIXTURES / "listings", truncated, profile, embedder, replay=scratch
        )
    full_ranks = {r.post.digest_date: r.ranks for r in report.per_post}
    for result in short.per_post:
        assert result.ranks == full_ranks[result.post.digest_date]


def test_cli_writes_the_json_contract(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERBRIEF_HOME", str(tmp_path / "home"))
    seeded_store(tmp_path / "home" / "paperbrief.db").close()
    listings = tmp_path / "listings"
    shutil.copytree(RANK_FIXTURES / "listings", listings)
    out = tmp_path / "eval.json"
    args = [
        "eval",
        "ranking",
        "--listings",
        str(listings),
        "--picks",
        str(RANK_FIXTURES / "picks.json"),
    ]
    args += ["--profile", str(RANK_FIXTURES / "profile.toml"), "--since", "2026-04-23"]
    result = CliRunner().invoke(cli, [*args, "--until", "2026-04-25", "--json", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["posts"] == 2 and data["picks"] == 7  # 04-23 and 04-25
    keys = {"posts", "picks", "recall", "ndcg@10", "mrr", "ci95", "baselines"}
    assert keys <= set(data) and keys <= set(data["whole_listing"])
    assert set(data["recall"]) == {"5", "10", "20", "50", "100"}
    assert set(data["baselines"]["bm25"]["recall"]) == set(data["recall"])
    assert set(data["whole_listing"]["baselines"]) == set(data["baselines"])
    assert data["whole_listing"]["recall"]["5"] <= data["recall"]["5"]
    assert "within shown" in result.output and "whole listing" in result.output
    assert "R@100" in result.output and "embedding" in result.output
    assert "s per day" in result.output


def test_cli_names_a_missing_listing_day(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERBRIEF_HOME", str(tmp_path / "home"))
    empty = tmp_path / "empty"
    empty.mkdir()
    args = [
        "eval",
        "ranking",
        "--listings",
        str(empty),
        "--picks",
        str(RANK_FIXTURES / "picks.json"),
    ]
    result = CliRunner().invoke(cli, [*args, "--profile", str(RANK_FIXTURES / "profile.toml")])
    assert result.exit_code == 1
    assert "no listing for 2026-04-21" in result.output
