"""The development judge replay through the real judge (issue 19).

``tests/fixtures/rank/judge-replay-dev.json`` holds what a strong model answered, blind to
the picks, to the real judge prompt for each of the 50 papers the reader was shown on the 16
development listing days (``paperbrief judge export`` format); ``dev-shown.jsonl.gz`` holds
those papers and ``picks-dev.json`` the reader's picks. A loopback OpenAI-compatible server
answers each request the judge sends with the recorded answer for the paper it asks about,
so every answer goes through the client, the schema, the product's reading of the answer
and ``apply_verdicts``, as it would from a provider.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from paperbrief.llm import LLMClient
from paperbrief.models import Paper, ScoredPaper
from paperbrief.profile import LLMSettings, load_profile
from paperbrief.prompts import line_named
from paperbrief.rank.imported import load_posts
from paperbrief.rank.judge import (
    LLMAnswers,
    ReplayAnswers,
    apply_verdicts,
    judge_ranking,
    load_replay,
)
from paperbrief.rank.metrics import PostResult, point_metrics
from paperbrief.rank.reader import Reader
from paperbrief.store import open_store
from tests.support import EXAMPLE_PROFILE
from tests.support.openai_server import OpenAIServer
from tests.support.rank import RANK_FIXTURES

REPLAY = RANK_FIXTURES / "judge-replay-dev.json"
SHOWN = RANK_FIXTURES / "dev-shown.jsonl.gz"
PICKS = RANK_FIXTURES / "picks-dev.json"
TITLE_RE = re.compile(r'<paper key="P01">\nTitle: (.*?)\n', re.S)


def shown_days() -> dict[str, list[Paper]]:
    days: dict[str, list[Paper]] = {}
    with gzip.open(SHOWN, "rt", encoding="utf-8") as lines:
        for line in lines:
            item = json.loads(line)
            days.setdefault(item.pop("listing_day"), []).append(
                Paper(**{**item, "authors": (), "categories": tuple(item["categories"])})
            )
    return days


def unjudged(papers: list[Paper]) -> list[ScoredPaper]:
    """The shown papers with nothing to tell them apart: whatever orders them is the judge."""
    ordered = sorted(papers, key=lambda p: p.id)
    return [ScoredPaper(p, 0.0, 1, None, rank=n + 1) for n, p in enumerate(ordered)]


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    """Each dev day's shown papers judged by the real judge through a loopback endpoint
    that answers from the recording (one request per paper, as the product sends them)."""
    example = load_profile(EXAMPLE_PROFILE)
    # Every shown paper is read in full (no screen): the judge alone decides the order.
    every = {"judge_always": 50, "screen_top_k": 50}
    profile = example.model_copy(update={"rank": example.rank.model_copy(update=every)})
    recorded = json.loads(REPLAY.read_text(encoding="utf-8"))
    days = shown_days()
    by_title: dict[str, dict] = {}
    for day, papers in days.items():
        for paper in papers:
            record = recorded[day][paper.id]
            title = " ".join(paper.title.split())
            assert title not in by_title, title
            by_title[title] = {"key": "P01", **record}

    def route(body: dict) -> str:
        if body["messages"][-1]["content"].startswith("<paper>\n"):
            return json.dumps({"sentences": []})  # the steering check's question: no quotes
        title = TITLE_RE.search(body["messages"][-1]["content"])
        assert title is not None, "one paper per request"
        return json.dumps({"papers": [by_title[" ".join(title.group(1).split())]]})

    home = tmp_path_factory.mktemp("replay")
    settings = LLMSettings(model="dev-replay", backoff_base=0.0)
    results = {}
    with open_store(home / "paperbrief.db") as store, OpenAIServer(route=route) as server:
        for day, papers in sorted(days.items()):
            client = LLMClient(settings, store.llm, api_key="k", day=day, sleep=lambda s: None,
                               base_url=server.url)  # fmt: skip
            answers = LLMAnswers(client, profile)
            results[day] = judge_ranking(unjudged(papers), profile, answers, Reader())
    return profile, days, results


def test_every_recorded_answer_is_accepted_through_the_endpoint(replayed):
    profile, days, results = replayed
    recorded = load_replay(REPLAY)
    for day, result in results.items():
        assert not result.errors, result.errors[:1]
        assert set(result.verdicts) == {p.id for p in days[day]}  # all 50 read in full
        # 50 readings, and those of the papers that rose above their cheap stars read again
        # without the sentences that could address the model: honest papers keep their stars
        assert result.tokens.judge_requests == 50 + result.steering_checks
        assert result.tokens.screen_requests == 0 and result.steered == []
        for paper_id, verdict in result.verdicts.items():
            assert verdict == recorded.verdicts[day][paper_id]
    named = [v.line for r in results.values() for v in r.verdicts.values() if v.line]
    assert len(named) >= 100 and set(named) <= {line.name for line in profile.research_lines}


def test_the_replay_reader_ranks_as_the_live_judge_does(replayed):
    profile, days, results = replayed
    recorded = load_replay(REPLAY)
    for day, result in results.items():
        offline = judge_ranking(
            unjudged(days[day]), profile, ReplayAnswers(recorded.verdicts[day], {}), Reader()
        )
        assert [s.paper.id for s in offline.ranking] == [s.paper.id for s in result.ranking]
        assert offline.tokens == result.tokens


def within_shown(rankings: dict[str, list[ScoredPaper]]) -> dict[str, float]:
    per_post = []
    for post in load_posts(PICKS):
        order = [s.paper.id for s in rankings[post.listing_day.isoformat()]]
        ranks = [order.index(pid) + 1 if pid in order else None for pid, _ in post.picks]
        per_post.append(PostResult(post, ranks))
    return point_metrics(per_post)


def test_the_judge_alone_finds_the_readers_picks_within_shown(replayed):
    """Within the 50 shown papers, the judge alone (a strong model's blind answers, every
    shown paper read) ranks the picks above the cheap ranking's level (R@5 0.53 for the
    profile alone on these days, ``benchmarks/ranking_bench.py``), and its fine relevance
    orders the day better than its stars would (most shown papers are ★1: stars alone
    leave the order to ties)."""
    profile, days, results = replayed
    live = within_shown({day: r.ranking for day, r in results.items()})
    stars_only = within_shown(
        {
            day: apply_verdicts(
                unjudged(days[day]),
                {k: replace(v, relevance=None) for k, v in r.verdicts.items()},
                {},
                Reader(),
                profile,
            )
            for day, r in results.items()
        }
    )
    assert live["recall@5"] >= 0.55 and live["ndcg@10"] >= 0.62, live
    assert live["recall@5"] > stars_only["recall@5"] + 0.05, (live, stars_only)
    assert live["ndcg@10"] > stars_only["ndcg@10"] + 0.05, (live, stars_only)
    picks = {
        (post.listing_day.isoformat(), pid) for post in load_posts(PICKS) for pid, _ in post.picks
    }
    stars = [s.stars for day, r in results.items() for s in r.ranking if (day, s.paper.id) in picks]
    assert sum(1 for s in stars if s >= 4) <= 0.2 * len(stars)  # ★4-5 stay rare


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        ("基准与评测方法学", "基准与评测方法学"),  # what the dev replay's model mostly wrote
        ("Line 5 — 基准与评测方法学", "基准与评测方法学"),  # ... and sometimes, as listed
        ("Line 4 — 小模型与本地推理", "小模型与本地推理"),
        ("  Agent   边际价值实证 [high priority] ", "Agent 边际价值实证"),
        ("line 2", "程序修复与兼容性迁移"),
        ("3", "OpenHarmony 与新生语言工具链"),
        ("", ""),
        ("Line 4 — 基准与评测方法学", None),  # a label and a name that disagree
        ("Line 9", None),
        ("模型评测", None),  # an invented line
    ],
)
def test_a_line_is_read_as_a_model_writes_it(answer: str, line: str | None):
    assert line_named(answer, load_profile(EXAMPLE_PROFILE)) == line


def test_a_line_named_like_a_label_is_still_that_line(tmp_path: Path):
    profile = load_profile(EXAMPLE_PROFILE)
    first, second = profile.research_lines[:2]
    renamed = profile.model_copy(
        update={"research_lines": [first.model_copy(update={"name": "Line 2"}), second]}
    )
    assert line_named("Line 2", renamed) == "Line 2"
    assert line_named("Line 1 — Line 2", renamed) == "Line 2"
