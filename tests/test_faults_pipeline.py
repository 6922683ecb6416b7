"""A digest every weekday: the pipeline with upstream parts failing on purpose (see
tests/faults.md). Real loopback LLM and arXiv servers, the real embedding vectors, real
SQLite; every case publishes a digest that says, in its language, what fell back."""

from __future__ import annotations

import json
import time
from datetime import date
from pathlib import Path

import pytest

from paperbrief.http import PoliteClient
from paperbrief.llm import LLMClient
from paperbrief.models import OFFLINE_WRITER
from paperbrief.pipeline import RunOptions, run_day
from paperbrief.profile import LLMSettings, Profile, load_profile
from paperbrief.retry import RetryPolicy
from paperbrief.services import ArxivEndpoints, Services, network_deadline
from paperbrief.store import Store, open_store
from tests.support import EXAMPLE_PROFILE, FIXTURES
from tests.support.faults import closed_port, without_network
from tests.support.openai_server import OpenAIServer, Reply
from tests.support.pipeline_llm import (
    day_answer,
    judge_answer,
    kind_of,
    read_answer,
    screen_answer,
    whole_run,
)

LISTING = FIXTURES / "pipeline" / "2026-05-22.jsonl"
TODAY = date(2026, 5, 23)
pytestmark = pytest.mark.slow


@pytest.fixture
def store(tmp_path: Path, pipeline_vectors) -> Store:
    with open_store(tmp_path / "db.sqlite") as opened:
        pipeline_vectors.seed(opened)
        yield opened


def _profile(**llm: object) -> Profile:
    profile = load_profile(EXAMPLE_PROFILE)
    settings = LLMSettings(
        **{"model": "loopback-writer", "max_retries": 0, "backoff_base": 0, **llm}
    )
    return profile.model_copy(update={"llm": settings})


def _run(store, tmp_path, profile, url, vectors, *, http=None, arxiv=None, deadline=None):
    client = LLMClient(
        profile.llm, store.llm, api_key="k", day="2026-05-23", base_url=url, deadline=deadline
    )
    services = Services(
        embedder=Services.build(profile, store, offline=True, encoder=vectors.encoder).embedder,
        llm=client,
        http=http,
        arxiv=arxiv or ArxivEndpoints(),
        deadline=deadline,
    )
    options = RunOptions(listing_file=LISTING, out_dir=tmp_path / "out")
    with services:
        return run_day(store, profile, options, services, today=TODAY)


def test_llm_endpoint_down_publishes_the_offline_digest_saying_so(
    tmp_path, store, pipeline_vectors
):
    profile = _profile(max_retries=3, backoff_base=2.0)
    started = time.monotonic()
    result = _run(
        store, tmp_path, profile, f"http://127.0.0.1:{closed_port()}/v1", pipeline_vectors
    )
    elapsed = time.monotonic() - started
    assert elapsed < 20  # no retries, no backoff: the endpoint refused at once
    parts = sorted({fallback.part for fallback in result.fallbacks})
    assert parts == ["brief", "day", "ranking"]
    assert {fallback.reason for fallback in result.fallbacks} == {"unreachable"}
    assert len([f for f in result.fallbacks if f.part == "brief"]) == len(result.picks)
    markdown = result.files["markdown"].read_text(encoding="utf-8")
    assert "排序：大语言模型评审未完成（无法连接大语言模型服务），沿用初筛排序。" in markdown
    assert markdown.count("本篇深读未能由大语言模型完成（无法连接大语言模型服务）") == len(
        result.picks
    )
    assert "今日总结与方法对比：大语言模型未能完成" in markdown
    # Nothing the LLM would have written is claimed: the digest is stored as offline, so
    # the next run with the endpoint back upgrades it.
    assert result.writer == OFFLINE_WRITER
    assert store.digests.load(TODAY).writer == OFFLINE_WRITER
    # The judge's failure is not stored as the judged ranking: the next run asks again.
    judged = profile.ranking_fingerprint() + ":judge:loopback-writer"
    assert store.rankings.load(date(2026, 5, 22), judged) == []
    with OpenAIServer(whole_run) as server:
        upgraded = _run(store, tmp_path, profile, server.url, pipeline_vectors)
    assert not upgraded.reused and not upgraded.fallbacks
    assert upgraded.writer == "loopback-writer"


def test_a_401_stops_the_runs_other_llm_calls_at_once(tmp_path, store, pipeline_vectors):
    """A bad key is the run's, not one request's: after the first 401 no other call is made
    (only those already in flight arrive), every LLM part falls back, the hint says the fix."""
    profile = _profile(concurrency=2)
    with OpenAIServer(lambda body: Reply(status=401, body=b'{"error": "invalid key"}')) as server:
        result = _run(store, tmp_path, profile, server.url, pipeline_vectors)
    assert server.request_count <= profile.llm.concurrency  # was 1 per judged paper + writes
    assert {f.part for f in result.fallbacks} == {"ranking", "brief", "day"}
    assert {f.reason for f in result.fallbacks} == {"refused"}
    assert all("PAPERBRIEF_LLM_API_KEY" in f.detail for f in result.fallbacks)
    assert result.files["markdown"].exists()


def test_budget_spent_mid_writing_leaves_later_picks_with_the_offline_brief(
    tmp_path, store, pipeline_vectors
):
    def route(body):
        kind = kind_of(body)
        if kind == "screen":
            return Reply(content=screen_answer(body), prompt_tokens=1, completion_tokens=1)
        if kind == "judge":
            return Reply(content=judge_answer(body), prompt_tokens=1, completion_tokens=1)
        if kind == "day":
            return Reply(content=day_answer(body), prompt_tokens=1, completion_tokens=1)
        if kind == "addresses":
            return Reply(content=whole_run(body).content, prompt_tokens=1, completion_tokens=1)
        return Reply(content=read_answer(), prompt_tokens=100_000, completion_tokens=1)

    profile = _profile(concurrency=1, daily_token_budget=150_000, daily_cost_budget=0)
    with OpenAIServer(route) as server:
        result = _run(store, tmp_path, profile, server.url, pipeline_vectors)
    briefs = [f for f in result.fallbacks if f.part == "brief"]
    assert len(briefs) == len(result.picks) - 2  # two deep reads fit, the rest did not
    assert {f.reason for f in briefs} == {"budget"}
    assert [f.part for f in result.fallbacks if f.part == "day"] == ["day"]
    markdown = result.files["markdown"].read_text(encoding="utf-8")
    assert markdown.count("#### 💡 对我们的启发") == 2  # only the LLM writes implications
    assert "深读改为离线摘录（今日 token / 费用预算已用完）" in markdown
    assert result.writer == "loopback-writer"  # two deep reads are the LLM's


def test_an_answer_invalid_even_after_the_repair_costs_only_that_pick(
    tmp_path, store, pipeline_vectors
):
    broken: list[str] = []

    def route(body):
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        if kind_of(body) == "writer" and (not broken or broken[0] in user):
            if not broken:
                broken.append(user.split('<paper id="')[1].split('"')[0])
            return Reply(content='{"reason": 3}')  # violates the schema, twice
        return whole_run(body)

    profile = _profile()
    with OpenAIServer(route) as server:
        result = _run(store, tmp_path, profile, server.url, pipeline_vectors)
    (fallback,) = result.fallbacks
    assert (fallback.part, fallback.reason, fallback.paper_id) == ("brief", "invalid", broken[0])
    markdown = result.files["markdown"].read_text(encoding="utf-8")
    assert "LLM 写的今日总结。" in markdown  # the day synthesis still came from the LLM
    assert "本篇深读未能由大语言模型完成（大语言模型的回答无法使用）" in markdown


def test_bad_gzip_from_the_endpoint_for_the_day_leaves_the_offline_assembly(
    tmp_path, store, pipeline_vectors
):
    def route(body):
        if kind_of(body) == "day":
            return Reply(body=b"not gzip at all", headers={"Content-Encoding": "gzip"})
        return whole_run(body)

    with OpenAIServer(route) as server:
        result = _run(store, tmp_path, _profile(), server.url, pipeline_vectors)
    (fallback,) = result.fallbacks
    assert (fallback.part, fallback.reason) == ("day", "invalid")
    markdown = result.files["markdown"].read_text(encoding="utf-8")
    assert "今日总结与方法对比：大语言模型未能完成（大语言模型的回答无法使用）" in markdown
    assert markdown.count("#### 💡 对我们的启发") == len(result.picks)
    assert "直接取自论文摘要" not in markdown  # the offline summary would claim that falsely
    assert result.writer == "loopback-writer"


def test_no_network_for_full_text_fails_fast_and_records_why(tmp_path, store, pipeline_vectors):
    client = PoliteClient(delay_seconds=0, retry=RetryPolicy(max_retries=4))
    dead = ArxivEndpoints(
        html="http://arxiv.invalid/html",
        ar5iv="http://ar5iv.invalid/html",
        pdf="http://arxiv.invalid/pdf",
    )
    started = time.monotonic()
    with OpenAIServer(whole_run) as server:
        result = _run(
            store, tmp_path, _profile(), server.url, pipeline_vectors, http=client, arxiv=dead
        )
    assert time.monotonic() - started < 30
    fetches = [f for f in result.fallbacks if f.part == "fulltext"]
    assert len(fetches) == len(result.picks) and {f.reason for f in fetches} == {"fetch"}
    document_flags = [store.documents.load(p.paper.id) for p in result.picks]
    assert document_flags == [None] * len(result.picks)  # abstract-only is never cached
    assert "DNS lookup failed" in fetches[0].detail and "fetch failed" in fetches[0].detail
    markdown = result.files["markdown"].read_text(encoding="utf-8")
    assert "全文获取失败（网络或服务器故障），依据摘要撰写" in markdown


def test_the_run_deadline_cuts_slow_llm_calls_and_the_digest_still_goes_out(
    tmp_path, store, pipeline_vectors
):
    deadline = network_deadline(0.1)  # 6 s, network work stops after 5.4 s
    started = time.monotonic()
    with OpenAIServer(whole_run, delay=2.0) as server:
        result = _run(
            store,
            tmp_path,
            _profile(concurrency=1, timeout=60),
            server.url,
            pipeline_vectors,
            deadline=deadline,
        )
    assert time.monotonic() - started < 6 + 5  # the deadline plus publishing
    reasons = {f.reason for f in result.fallbacks}
    assert "deadline" in reasons
    assert result.files["markdown"].exists()
    assert "已到本次运行的截止时间" in result.files["markdown"].read_text(encoding="utf-8")


def test_published_with_fallbacks_is_exit_code_8_and_recorded(tmp_path, embedded_home):
    import subprocess
    import sys

    from paperbrief.errors import EXIT_FALLBACKS

    profile = tmp_path / "profile.toml"
    dead = f"http://127.0.0.1:{closed_port()}/v1"
    profile.write_text(
        EXAMPLE_PROFILE.read_text(encoding="utf-8")
        + f'\n[llm]\nbase_url = "{dead}"\nmodel = "m"\n',
        "utf-8",
    )
    args = ["run", "--listing", str(LISTING), "--profile", str(profile), "--out", str(tmp_path)]
    command = [sys.executable, "-m", "paperbrief", *args]
    env = {
        "PATH": "/usr/bin:/bin",
        "PAPERBRIEF_HOME": str(embedded_home),
        "PAPERBRIEF_LLM_API_KEY": "k",
        "HF_HUB_OFFLINE": "1",
    }
    # No route to arxiv.org (full text) and nothing on the LLM's port: both fail at once.
    done = subprocess.run(
        without_network(command), env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == EXIT_FALLBACKS, done.stderr
    assert "published, with fallbacks" in done.stderr and "fell back" in done.stderr
    assert "Traceback" not in done.stderr
    with open_store(embedded_home / "paperbrief.db") as store:
        (run,) = store.runs.all()
    assert run.status == "ok" and "fallbacks" in json.loads(run.detail)
