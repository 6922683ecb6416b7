"""The daily pipeline end to end on a real (trimmed) listing day, offline, with the real
embedding model and a real SQLite store: publish once, resume after a crash, say why a day
is empty."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from datetime import date
from pathlib import Path
from typing import TypeVar

import pytest
from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.errors import EXIT_FETCH_FAILED, EXIT_NOTHING_PASSED, EmptyDay
from paperbrief.pipeline import QuietReporter, RunOptions, run_day
from paperbrief.profile import load_profile
from paperbrief.services import ArxivEndpoints, Services
from paperbrief.store import open_store
from tests.support import EXAMPLE_PROFILE, FIXTURES
from tests.support.pipeline_llm import kind_of, screen_answer

LISTING = FIXTURES / "pipeline" / "2026-05-22.jsonl"
T = TypeVar("T")
pytestmark = pytest.mark.slow


class CrashAfter(QuietReporter):
    """A reporter that dies after ``count`` papers, like a process killed half way."""

    def __init__(self, count: int) -> None:
        self.count = count

    def track(self, items: Sequence[T], description: str) -> Iterable[T]:
        for index, item in enumerate(items):
            if index == self.count:
                raise KeyboardInterrupt("killed half way")
            yield item


def _run(store, tmp_path: Path, vectors, reporter=None, **options):
    """The offline pipeline on the fixture listing; the store's vector cache is seeded."""
    vectors.seed(store)
    profile = load_profile(EXAMPLE_PROFILE)
    return run_day(
        store,
        profile,
        RunOptions(listing_file=LISTING, out_dir=tmp_path / "out", **options),
        Services.build(profile, store, offline=True, encoder=vectors.encoder),
        today=date(2026, 5, 23),
        reporter=reporter,
    )


def test_run_publishes_once_and_a_rerun_reuses_everything(tmp_path: Path, pipeline_vectors):
    with open_store(tmp_path / "db.sqlite") as store:
        first = _run(store, tmp_path, pipeline_vectors)
        assert first.listing_day == date(2026, 5, 22)
        assert first.digest_date == date(2026, 5, 23)
        assert 3 <= len(first.picks) <= 4
        markdown = first.files["markdown"]
        assert markdown.name == "2026-05-23.md" and first.files["html"].exists()
        text = markdown.read_text(encoding="utf-8")
        for pick in first.picks:
            assert f"### {pick.paper.title.split(':')[0]}" in text
        mtime = markdown.stat().st_mtime_ns

        again = _run(store, tmp_path, pipeline_vectors)
        assert again.reused and markdown.stat().st_mtime_ns == mtime
        assert len(store.digests.entries()) == 1

        forced = _run(store, tmp_path, pipeline_vectors, force=True)
        assert not forced.reused
        assert [p.paper.id for p in forced.picks] == [p.paper.id for p in first.picks]


def test_crash_half_way_then_resume_keeps_what_was_done(tmp_path: Path, pipeline_vectors):
    with open_store(tmp_path / "db.sqlite") as store:
        with pytest.raises(KeyboardInterrupt):
            _run(store, tmp_path, pipeline_vectors, reporter=CrashAfter(2))
        picks = store.picks.ids(date(2026, 5, 23))
        assert len(picks) >= 3
        key = load_profile(EXAMPLE_PROFILE).key
        written = [
            pid for pid in picks if store.briefs.load(date(2026, 5, 23), pid, "zh", "offline", key)
        ]
        assert written == picks[:2]  # the two finished briefs survived the crash
        assert store.rankings.load(date(2026, 5, 22))  # and so did the ranking
        assert store.digests.load(date(2026, 5, 23)) is None

        resumed = _run(store, tmp_path, pipeline_vectors)
        assert [p.paper.id for p in resumed.picks] == picks
        assert resumed.files["markdown"].exists()
        assert [run.status for run in store.runs.all()] == ["interrupted", "ok"]


def test_day_with_nothing_in_the_profiles_categories_is_empty(tmp_path: Path, pipeline_vectors):
    listing = tmp_path / "2026-05-22.jsonl"
    rows = [json.loads(line) for line in LISTING.read_text(encoding="utf-8").splitlines()]
    foreign = [
        {**row, "categories": ["q-bio.GN"], "listings": {"q-bio.GN": "new"}} for row in rows[:3]
    ]
    listing.write_text("\n".join(json.dumps(r) for r in foreign), encoding="utf-8")
    profile = load_profile(EXAMPLE_PROFILE)
    with open_store(tmp_path / "db.sqlite") as store, pytest.raises(EmptyDay) as caught:
        run_day(
            store,
            profile,
            RunOptions(listing_file=listing, out_dir=tmp_path / "out"),
            Services.build(profile, store, offline=True, encoder=pipeline_vectors.encoder),
            today=date(2026, 5, 23),
        )
    assert caught.value.exit_code == EXIT_NOTHING_PASSED
    assert not (tmp_path / "out").exists()  # publishes nothing


def test_cli_run_offline_without_listing_says_fetch_failed(tmp_path: Path):
    result = CliRunner().invoke(
        cli,
        [
            "run",
            "--offline",
            "--date",
            "2026-05-23",
            "--profile",
            str(EXAMPLE_PROFILE),
            "--out",
            str(tmp_path / "out"),
        ],
    )
    assert result.exit_code == EXIT_FETCH_FAILED, result.output
    assert "nothing published" in result.output
    assert not (tmp_path / "out").exists()


def test_cli_run_writes_the_digest_and_prints_where(tmp_path: Path, embedded_home):
    out = tmp_path / "out"
    args = [
        "run",
        "--listing",
        str(LISTING),
        "--profile",
        str(EXAMPLE_PROFILE),
        "--out",
        str(out),
        "--offline",
    ]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert f"markdown: {out / '2026-05-23.md'}" in result.output
    html = (out / "2026-05-23.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "今日全览" in html


def test_online_run_reads_full_text_once_and_the_digest_gains_figure_and_table(
    tmp_path: Path, httpserver, pipeline_vectors
):
    """Full text comes from a loopback 'arXiv': native HTML for one pick, a 'No HTML' page
    and a PDF for the others. The digest shows the paper's figure and its own results
    table; a rerun with --force reads nothing again."""
    from paperbrief.http import PoliteClient
    from paperbrief.retry import RetryPolicy

    html = (FIXTURES / "fulltext" / "arxiv_html_2501.11120v1.html").read_bytes()
    pdf = (FIXTURES / "fulltext" / "arxiv_pdf_2304.02623v1.pdf").read_bytes()
    no_html = (
        b"<html><body><h1>No HTML for '%s'</h1>"
        b"<p>HTML is not available for the source.</p></body></html>"
    )
    with open_store(tmp_path / "db.sqlite") as store:
        profile = load_profile(EXAMPLE_PROFILE)
        ranking_run = _run(
            store, tmp_path / "first", pipeline_vectors
        )  # offline: decides the picks
        picks = [p.paper.id for p in ranking_run.picks]
        httpserver.expect_request(f"/html/{picks[0]}").respond_with_data(
            html, content_type="text/html"
        )
        for pid in picks[1:]:
            httpserver.expect_request(f"/html/{pid}").respond_with_data(
                no_html % pid.encode(), status=404, content_type="text/html"
            )
            httpserver.expect_request(f"/ar5iv/{pid}").respond_with_data("gone", status=404)
            httpserver.expect_request(f"/pdf/{pid}").respond_with_data(
                pdf, content_type="application/pdf"
            )
        endpoints = ArxivEndpoints(
            html=httpserver.url_for("/html"),
            ar5iv=httpserver.url_for("/ar5iv"),
            pdf=httpserver.url_for("/pdf"),
        )
        client = PoliteClient(delay_seconds=0, retry=RetryPolicy(max_retries=0))
        with Services.build(
            profile,
            store,
            offline=False,
            arxiv=endpoints,
            http=client,
            encoder=pipeline_vectors.encoder,
        ) as services:
            options = RunOptions(listing_file=LISTING, out_dir=tmp_path / "out", force=True)
            result = run_day(store, profile, options, services, today=date(2026, 5, 23))
            requests_after_first = len(httpserver.log)
            run_day(store, profile, options, services, today=date(2026, 5, 23))
        assert len(httpserver.log) == requests_after_first  # full texts came from the store
    markdown = result.files["markdown"].read_text(encoding="utf-8")
    first = markdown.split(f"[arXiv:{picks[0]}]")[1].split("\n---\n")[0]
    assert "![" in first and "(https://arxiv.org/html/2501.11120v1/" in first
    assert "#### 关键结果" in first and "| --- |" not in first and "|---|" in first
    assert "仅依据摘要" not in first and "离线模式" not in first
    second = markdown.split(f"[arXiv:{picks[1]}]")[1].split("\n---\n")[0]
    # arXiv answered 404 for the HTML: it has none, so the digest says so (not a failure)
    assert "该论文没有 arXiv HTML 版本，全文取自 PDF" in second
    assert result.files["html"].read_text(encoding="utf-8").count("<figure>") == 1


def test_llm_run_writes_the_deep_read_and_a_forced_rerun_pays_nothing_twice(
    tmp_path: Path, pipeline_vectors
):
    """`run` with an LLM endpoint (a real OpenAI-compatible server on 127.0.0.1): the judge
    re-orders the cheap ranking's head, every pick gets the deep-read sections, the footer
    names the model, and regenerating the same day is served from the content-hash cache
    without a single new request."""
    from paperbrief.llm import LLMClient
    from paperbrief.profile import LLMSettings
    from tests.support.openai_server import OpenAIServer, Reply

    def read(title: str) -> dict[str, object]:
        return {
            "reason": f"服务于 Agent 边际价值主线：{title[:20]}",
            "tldr": "作者提出一个方法并在摘要中报告了改进。",
            "problem": "现有方法成本高。",
            "insight": "把定位与修复分开。",
            "steps": ["收集数据", "训练模型", "评估"],
            "difference": "不再端到端运行 agent。",
            "results": [],
            "result_notes": ["摘要未给出可核对的数字（以下为推断）。"],
            "limitations": ["仅在摘要层面可见。"],
            "open_questions": ["能否迁移到 ArkTS？"],
            "technique": "在 HomeCheck 中复用其定位思路。",
            "experiment": "用 OpenHarmony 兼容性缺陷数据集做对照实验，预计 1–2 周。",
            "trend": "分工式 agent 会更常见。",
            "direction": "程序修复",
            "contribution": "分工式修复",
        }

    promoted: list[str] = []  # the title the judge rates highest

    def judge(user: str) -> Reply:
        keys = re.findall(r'<paper key="(P\d+)">\nTitle: (.*)', user)
        if not promoted:  # the paper of the first reading becomes the must-read
            promoted.append(keys[-1][1])
        verdicts = [
            {
                "key": key,
                "stars": 5 if title in promoted else 2,
                "relevance": 95 if title in promoted else 45,
                "line": "Agent 边际价值实证",
                "reason": "judge",
                "must_read": title in promoted,
            }
            for key, title in keys
        ]
        return Reply(content=json.dumps({"papers": verdicts}, ensure_ascii=False))

    def route(body: dict) -> Reply:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        if kind_of(body) == "screen":
            return Reply(content=screen_answer(body))
        if kind_of(body) == "judge":
            return judge(user)
        if user.startswith("<paper>\nTitle: "):  # which sentences address the model: none
            return Reply(content='{"sentences": []}')
        if "<picks>" in user:
            names = [f"P{n}" for n in range(1, user.count("<pick ") + 1)]
            day = {
                "summary": "今天的几篇都与我们的主线相关。",
                "theme_title": "分工",
                "theme": "它们都把 LLM 放在窄角色里。",
                "short_names": names,
                "comparison": [{"dimension": "核心方法", "cells": ["x"] * len(names)}],
                "closing": "先读第一篇。",
            }
            return Reply(content=json.dumps(day, ensure_ascii=False))
        title = user.split("<title>")[1].split("</title>")[0] if "<title>" in user else "paper"
        return Reply(content=json.dumps(read(title), ensure_ascii=False))

    profile = load_profile(EXAMPLE_PROFILE)
    settings = LLMSettings(model="loopback-writer", max_retries=0, backoff_base=0)
    with OpenAIServer(route) as server, open_store(tmp_path / "db.sqlite") as store:
        # An offline run first: its cheap ranking and offline digest must not stand in for
        # the judged ranking and the LLM digest (the digest is upgraded, not reused).
        _run(store, tmp_path, pipeline_vectors)
        client = LLMClient(settings, store.llm, api_key=None, day="2026-05-23", base_url=server.url)
        # No arXiv here: the LLM writes from the listing's abstracts.
        services = Services(
            embedder=Services.build(
                profile, store, offline=True, encoder=pipeline_vectors.encoder
            ).embedder,
            llm=client,
        )
        options = RunOptions(listing_file=LISTING, out_dir=tmp_path / "out")
        result = run_day(store, profile, options, services, today=date(2026, 5, 23))
        first_requests = server.request_count
        # The 36 papers are screened (25 to a request), then every one is read (the budget
        # reaches them all), the question about the sentences of each paper that rose two
        # stars or more above its cheap stars, each pick read deeply, the day's synthesis.
        batches = 2 + 36
        asked = [r for r in server.requests if kind_of(r) == "addresses"]
        assert first_requests == batches + len(asked) + len(result.picks) + 1
        assert result.picks[0].paper.title == promoted[0]  # the judge re-ordered the head
        assert result.picks[0].stars == 5
        forced = RunOptions(listing_file=LISTING, out_dir=tmp_path / "out", force=True)
        run_day(store, profile, forced, services, today=date(2026, 5, 23))
        assert server.request_count == first_requests  # the cache answered everything
    markdown = result.files["markdown"].read_text(encoding="utf-8")
    assert result.writer == "loopback-writer"
    assert markdown.count("#### 💡 对我们的启发") == len(result.picks)
    assert "## 今日主题：分工" in markdown and "## 方法对比" in markdown
    assert "loopback-writer" in markdown  # the provenance footer names the model


def test_cli_run_survives_markup_in_titles_and_reports_a_failed_channel(
    tmp_path: Path, httpserver, embedded_home
):
    """A title full of rich-markup brackets prints verbatim; a webhook answering 500 makes
    `run` exit 7 after the digest is written (the channel is retried on the next run)."""
    from paperbrief.errors import EXIT_DELIVERY_FAILED

    rows = [json.loads(line) for line in LISTING.read_text(encoding="utf-8").splitlines()]
    rows[0]["title"] = "Repairing [/] agents with [bold]static[/bold] analysis [cls]"
    listing = tmp_path / "2026-05-22.jsonl"
    listing.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    httpserver.expect_request("/hook", method="POST").respond_with_data("boom", status=500)
    profile = tmp_path / "profile.toml"
    profile.write_text(
        EXAMPLE_PROFILE.read_text(encoding="utf-8")
        + f'\n[[delivery.webhooks]]\nkind = "generic"\nurl = "{httpserver.url_for("/hook")}"\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    args = ["run", "--listing", str(listing), "--profile", str(profile), "--out", str(out)]
    offline = CliRunner().invoke(cli, [*args, "--offline"])  # writes, sends nothing
    assert offline.exit_code == 0, offline.output
    assert "Repairing [/] agents" in offline.output  # printed verbatim, no MarkupError
    assert not httpserver.log
    result = CliRunner().invoke(cli, args)  # reuses the digest, then delivers
    assert result.exit_code == EXIT_DELIVERY_FAILED, result.output
    assert len(httpserver.log) == 1
    assert (out / "2026-05-23.md").exists()
    assert "delivery not done" in result.output and "generic" in result.output
    ranked = CliRunner().invoke(
        cli, ["rank", "--listing", str(listing), "--profile", str(profile), "--top", "40"]
    )
    assert ranked.exit_code == 0, ranked.output
    assert "[cls]" in ranked.output


def test_a_listing_already_published_is_not_published_again_under_another_date(
    tmp_path: Path, pipeline_vectors
):
    """A catch-up run on Saturday and the Monday run both cover Friday's listing: the second
    one publishes nothing unless forced."""
    with open_store(tmp_path / "db.sqlite") as store:
        first = _run(store, tmp_path, pipeline_vectors)
        monday = _run(store, tmp_path, pipeline_vectors, digest_date=date(2026, 5, 25))
        assert monday.reused and monday.digest_date == first.digest_date
        assert "already published as the digest of 2026-05-23" in monday.notes[0]
        assert not (tmp_path / "out" / "2026-05-25.md").exists()
        forced = _run(store, tmp_path, pipeline_vectors, digest_date=date(2026, 5, 25), force=True)
        assert forced.files["markdown"].name == "2026-05-25.md"
