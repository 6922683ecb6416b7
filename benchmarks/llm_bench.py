"""Tokens, calls, cost and wall time of the LLM's day, on a loopback endpoint: the judge on
real listing days, and the writer on a 4-paper day.

    .venv/bin/python benchmarks/llm_bench.py [--delay 3-8] [--price-in 0.15 --price-out 0.6]
        [--judge-day 2026-04-21 --judge-day 2026-05-22 | --judge-day all]
        [--listings ../shared/data/listings --picks ../shared/data/picks-dev.json]
        [--cache /tmp/paperbrief-bench.db]

A real OpenAI-compatible server on 127.0.0.1 (tests/support/openai_server.py) answers every call
after a random delay in ``--delay`` seconds with an answer of realistic length; prompt and
completion tokens are counted with ``paperbrief.text.estimate_tokens`` (chars/4 for Latin
text, chars/1.5 for Chinese). The day runs with the profile's default ``[llm]`` settings:

* judge: each ``--judge-day`` listing is ranked for the example profile with the reader as
  the picks file says they stood before that day (their picks and passed-over papers, as
  ``paperbrief feedback import`` records them, and the earlier days' rankings), and the real
  judge (``rank.LLMJudge``'s ``judge_ranking``) screens, chooses its head within the day's
  ``[rank] judge_prompt_tokens`` and reads it. The server counts, as a provider's prefix
  cache does, the prompt tokens each request shares with an earlier one: the longest common
  prefix of the serialised messages, from 1,024 tokens on, in blocks of 128 (OpenAI's
  documented rule);
* writer: four real full texts of different lengths — 2501.11120 (HTML, a long appendix),
  2510.14472 (physics HTML), the split-cycle theory paper (HTML, longer than the default
  view, so it is read in two passes: section notes, then the deep read) and 2206.10883
  (PDF) — written by the pipeline's ``write.LLMWriter`` (parallel deep reads, one synthesis
  call), each prompt exactly as the product builds it (``fulltext.plan_reading``).

Answers are as long as the prompts ask (a deep read ≈ 1,500 Chinese characters plus its
table and citations; a part's notes ≈ 2,500; the day ≈ 1,100). It prints tokens, calls and
cost per role, the writing of the day (writer, writer-notes and writer-day) apart from the
judge against the goal of 150k prompt / 40k completion tokens, the wall time and the sum of
call latencies (their ratio shows the concurrency), then reruns the day to show the cache.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import date
from os.path import commonprefix
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from paperbrief.fulltext import read_local_file  # noqa: E402
from paperbrief.llm import LLMClient  # noqa: E402
from paperbrief.models import (  # noqa: E402
    DayFacts,
    Listing,
    Paper,
    ScoredPaper,
)
from paperbrief.profile import (  # noqa: E402
    LLMSettings,
    ModelPrice,
    Profile,
    parse_profile,
)
from paperbrief.rank import Embedder, rank_for, reader_of_day  # noqa: E402
from paperbrief.rank.evaluate import find_listing, load_listing_file  # noqa: E402
from paperbrief.rank.imported import load_posts, record_posts  # noqa: E402
from paperbrief.rank.judge import JudgeResult, LLMAnswers, judge_ranking  # noqa: E402
from paperbrief.store import Store, open_store  # noqa: E402
from paperbrief.text import estimate_tokens  # noqa: E402
from paperbrief.write import Briefs, LLMWriter, OfflineWriter  # noqa: E402
from tests.support.openai_server import OpenAIServer, Reply  # noqa: E402

FULLTEXT = ROOT / "tests" / "fixtures" / "fulltext"
SHARED = (
    next(
        (p for p in (ROOT.parent / "shared", Path("/work/shared")) if p.is_dir()),
        ROOT.parent / "shared",
    )
    / "data"
    / "raw_formats"
)
PAPERS = [
    FULLTEXT / "arxiv_html_2501.11120v1.html",
    FULLTEXT / "arxiv_html_2510.14472v1_no_title_metadata.html",
    SHARED / "html" / "arxiv_html_dev_prototype_2022-11_split_cycle.html",
    SHARED / "pdf" / "arxiv_pdf_2206.10883v3.pdf",
]
WRITING = ("writer", "writer-notes", "writer-day")
GOAL = (150_000, 40_000)
ZH = "我们认为这项工作的关键在于把定位与修复拆开，并用真实数据度量每一步的边际价值。"


def _zh(chars: int) -> str:
    return (ZH * (chars // len(ZH) + 1))[:chars]


def _paper_read() -> dict[str, Any]:
    """A deep read as long as the prompt asks (≈ 1,500 Chinese characters of prose, with
    citations, plus a five-row results table)."""
    row = {
        "benchmark": "SWE-bench Verified",
        "setting": "resolve rate",
        "baseline": "45.2%",
        "theirs": "51.0%",
        "delta": "",
        "source": "Table 2",
        "cite": ["T2.r1.c2", "T2.r2.c2"],
    }
    cited = " [E12, T2.r1.c2]"
    return {
        "reason": _zh(70),
        "tldr": _zh(120) + cited,
        "problem": _zh(180) + cited,
        "insight": _zh(120),
        "steps": [_zh(55) + cited for _ in range(4)],
        "difference": _zh(90),
        "results": [row] * 5,
        "result_notes": [_zh(75) + cited for _ in range(3)],
        "limitations": [_zh(65) + cited for _ in range(3)],
        "open_questions": [_zh(55) for _ in range(2)],
        "technique": _zh(100),
        "experiment": _zh(150),
        "trend": _zh(75),
        "direction": "agent 评测",
        "contribution": _zh(40) + cited,
        "figure_index": 0,
        "figure_caption": _zh(50),
        "source_gaps": _zh(40),
    }


def _notes(sections: int) -> dict[str, Any]:
    """A first-pass part's notes: every section summarised, its findings cited."""
    per = max(1, 2500 // max(sections, 1))
    return {
        "sections": [
            {
                "section": f"{n} section",
                "does": "results",
                "summary": _zh(per // 3),
                "findings": [_zh(per // 6) + " [E12]" for _ in range(4)],
            }
            for n in range(sections)
        ]
    }


def _day(count: int) -> dict[str, Any]:
    """The day-level parts as long as the prompt asks (≈ 1,100 Chinese characters)."""
    return {
        "summary": _zh(220) + " [1:E12, 2:E3]",
        "theme_title": "边际价值",
        "theme": "\n\n".join(_zh(200) for _ in range(3)),
        "short_names": [f"P{n}" for n in range(count)],
        "comparison": [
            {"dimension": d, "cells": [_zh(20)] * count}
            for d in ("核心方法", "数据需求", "计算开销", "适用场景", "主要局限", "对我们的优先级")
        ],
        "closing": _zh(110),
    }


def _route(body: dict[str, Any]) -> Reply:
    messages = body.get("messages", [])
    user = next((m["content"] for m in messages if m.get("role") == "user"), "")
    if "<picks>" in user:
        answer = _day(user.count('"id":'))
    elif user.startswith("Read part"):
        answer = _notes(user.count("\n## ") + user.count("\n### "))
    else:
        answer = _paper_read()
    content = json.dumps(answer, ensure_ascii=False)
    prompt = sum(estimate_tokens(m.get("content", "")) for m in messages)
    return Reply(content=content, prompt_tokens=prompt, completion_tokens=estimate_tokens(content))


def run_day(server: OpenAIServer, home: Path, args: argparse.Namespace) -> tuple[float, LLMClient]:
    profile = parse_profile((ROOT / "examples" / "profile.toml").read_text(encoding="utf-8"))
    settings = LLMSettings(
        model=args.model,
        prices={args.model: ModelPrice(input=args.price_in, output=args.price_out)},
    )
    documents = [read_local_file(path) for path in PAPERS]
    jobs = []
    for rank, document in enumerate(documents, 1):
        paper = Paper(
            id=document.arxiv_id or f"0000.{rank:05d}",
            title=document.title or f"paper {rank}",
            authors=document.authors,
            abstract=document.abstract,
            categories=("cs.SE",),
            primary_category="cs.SE",
        )
        jobs.append(
            (ScoredPaper(paper, 1.0, 4, profile.research_lines[0].name, rank=rank), document)
        )
    with open_store(home / "paperbrief.db") as store:
        client = LLMClient(settings, store.llm, api_key=None, day="2026-05-24", base_url=server.url)
        started = time.monotonic()
        writer = LLMWriter(client, OfflineWriter())
        briefs = [done.brief for done in writer.write_briefs(jobs, profile)]
        documents = {b.paper.id: d for b, (_, d) in zip(briefs, jobs, strict=True) if d}
        day = DayFacts(date(2026, 5, 24), date(2026, 5, 22), 480)
        writer.write_day(Briefs(briefs, documents), profile, day)
        return time.monotonic() - started, client


CACHE_MINIMUM = 1024
CACHE_BLOCK = 128
SCREEN_RE = re.compile(r'<paper key="(S\d+)">')
READ_RE = re.compile(r'<paper key="(P\d+)">')
REASON = (
    "这篇论文与我们的 Agent 边际价值实证方向相关：它在 SWE-bench 上做了消融，"
    "可以直接对照我们的测试执行结论。"
)


def answer(body: dict[str, Any]) -> Reply:
    """A realistic answer: a relevance per screened key, or one full verdict."""
    user = body["messages"][-1]["content"]
    screened = SCREEN_RE.findall(user)
    if screened:
        papers: list[dict[str, Any]] = [
            {"key": k, "relevance": 20 + (7 * i) % 60} for i, k in enumerate(screened)
        ]
    else:
        papers = [
            {
                "key": k,
                "relevance": 48,
                "stars": 2,
                "line": "",
                "reason": REASON,
                "must_read": False,
                "instructions": False,
            }  # fmt: skip
            for k in READ_RE.findall(user)
        ]
    content = json.dumps({"papers": papers}, ensure_ascii=False)
    prompt = sum(estimate_tokens(m.get("content", "")) for m in body["messages"])
    return Reply(content=content, prompt_tokens=prompt, completion_tokens=estimate_tokens(content))


def cached_tokens(requests: list[dict[str, Any]]) -> int:
    """The prompt tokens a provider's prefix cache serves for these requests, in order."""
    seen: list[str] = []
    cached = 0
    for body in requests:
        text = "".join(m["role"] + "\n" + m["content"] + "\n" for m in body["messages"])
        shared = max((len(commonprefix([text, earlier])) for earlier in seen), default=0)
        tokens = estimate_tokens(text[:shared]) if shared else 0
        if tokens >= CACHE_MINIMUM:
            cached += tokens - tokens % CACHE_BLOCK
        seen.append(text)
    return cached


@dataclass
class JudgeDay:
    day: date
    papers: int
    result: JudgeResult
    server_prompt: int
    server_cached: int
    requests: int


def _reader_store(store: Store, listings: Path, picks: Path, day: date) -> None:
    """The reader's history before ``day`` from a picks file, as feedback import records it."""
    posts = [p for p in load_posts(picks) if p.listing_day < day]
    for listing_day in sorted({p.listing_day for p in posts}):
        papers = load_listing_file(find_listing(listings, listing_day))
        store.listings.save(Listing(listing_day, tuple(papers), source="bench"))
    record_posts(store.feedback, posts, source="bench")


def judge_day(
    profile: Profile,
    day: date,
    listings: Path,
    picks: Path,
    embedder_cache: Path,
    *,
    delay: tuple[float, float] = (0.0, 0.0),
) -> JudgeDay:
    """Rank ``day`` and run the real judge against the loopback server (module docstring)."""
    papers = load_listing_file(find_listing(listings, day))
    with tempfile.TemporaryDirectory() as home, open_store(embedder_cache) as cache:
        embedder = Embedder(cache=cache.embeddings, model_name=profile.rank.embedding_model)
        with open_store(Path(home) / "paperbrief.db") as store:
            _reader_store(store, listings, picks, day)
            # The earlier days' cheap rankings are the evidence fusion and calibration learn from.
            for listing_day in store.listings.days():
                listing = store.listings.load(listing_day)
                assert listing is not None
                before = listing_day.isoformat()
                earlier = reader_of_day(store, embedder, profile, listing_day, before=before)
                ranked = rank_for(listing.papers, profile, embedder, earlier)
                store.rankings.save(listing_day, "bench", ranked)
            reader = reader_of_day(store, embedder, profile, day)
            cheap = rank_for(papers, profile, embedder, reader)
            with OpenAIServer(answer, delay=delay) as server:
                settings = LLMSettings(model="bench-judge", backoff_base=0.0)
                client = LLMClient(settings, store.llm, api_key=None, day=day.isoformat(),
                                   base_url=server.url)  # fmt: skip
                with client:
                    result = judge_ranking(cheap, profile, LLMAnswers(client, profile,
                                           profile.llm.concurrency), reader.reader)  # fmt: skip
                requests = list(server.requests)
    prompt = sum(estimate_tokens(m["content"]) for r in requests for m in r["messages"])
    return JudgeDay(day, len(papers), result, prompt, cached_tokens(requests), len(requests))


def report_judge(days: list[JudgeDay], budget: int) -> None:
    print(f"\nthe judge on real listing days (budget {budget:,} prompt tokens a day)")
    print(
        f"{'day':<12}{'papers':>7}{'screens':>8}{'read':>6}{'prompt':>10}{'cached':>10}"
        f"{'cached %':>9}{'judge %':>8}  within budget"
    )
    for d in days:
        t = d.result.tokens
        print(
            f"{d.day!s:<12}{d.papers:>7}{t.screen_requests:>8}{t.judge_requests:>6}"
            f"{d.server_prompt:>10,}{d.server_cached:>10,}{d.server_cached / d.server_prompt:>9.3f}"
            f"{t.prefix_share:>8.3f}  {'yes' if d.server_prompt <= budget else 'NO'}"
        )


def _report(title: str, wall: float, client: LLMClient) -> None:
    usage = client.usage()
    print(f"\n{title}")
    columns = ("calls", 6), ("cached", 8), ("input", 10), ("output", 9), ("cost", 10)
    print(f"{'role':<14}" + "".join(f"{n:>{w}}" for n, w in columns) + f"{'latency s':>11}")
    total_in = total_out = 0
    total_cost = total_latency = 0.0
    for role, use in sorted(usage.items()):
        print(
            f"{role:<14}{use.calls:>6}{use.cached:>8}{use.prompt_tokens:>10}"
            f"{use.completion_tokens:>9}{use.cost:>10.4f}{use.latency_ms / 1000:>11.1f}"
        )
        total_in += use.prompt_tokens
        total_out += use.completion_tokens
        total_cost += use.cost
        total_latency += use.latency_ms / 1000
    calls = sum(u.calls for u in usage.values())
    print(
        f"{'total':<14}{calls:>6}{'':>8}{total_in:>10}{total_out:>9}{total_cost:>10.4f}{total_latency:>11.1f}"
    )
    print(f"wall time {wall:.1f} s; summed call latency {total_latency:.1f} s")
    writing = [usage[role] for role in WRITING if role in usage]
    prompt = sum(u.prompt_tokens for u in writing)
    completion = sum(u.completion_tokens for u in writing)
    if writing:
        verdict = "within" if prompt <= GOAL[0] and completion <= GOAL[1] else "OVER"
        print(
            f"writing the day (deep reads, two-pass notes, day synthesis; judge apart): "
            f"{prompt} prompt / {completion} completion tokens — {verdict} the goal of "
            f"{GOAL[0] // 1000}k / {GOAL[1] // 1000}k"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--delay", default="0.5-1.5", help="seconds per answer, e.g. 3-8")
    parser.add_argument("--model", default="gpt-4o-mini")
    parser.add_argument("--price-in", type=float, default=0.15, help="per million input tokens")
    parser.add_argument("--price-out", type=float, default=0.6, help="per million output tokens")
    shared = ROOT.parent / "shared" / "data"
    parser.add_argument("--listings", type=Path, default=shared / "listings")
    parser.add_argument("--picks", type=Path, default=shared / "picks-dev.json")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/paperbrief-bench.db"))
    parser.add_argument(
        "--judge-day",
        action="append",
        default=None,
        help="listing day to judge (YYYY-MM-DD, repeatable, or 'all' for every day of --picks);"
        " default: 2026-04-21 (the largest development day) and 2026-05-22",
    )
    args = parser.parse_args()
    low, _, high = args.delay.partition("-")
    delay = (float(low), float(high or low))
    profile = parse_profile((ROOT / "examples" / "profile.toml").read_text(encoding="utf-8"))
    if args.listings.exists() and args.picks.exists():
        wanted = args.judge_day or ["2026-04-21", "2026-05-22"]
        days = (
            sorted({p.listing_day for p in load_posts(args.picks)})
            if wanted == ["all"]
            else [date.fromisoformat(d) for d in wanted]
        )
        judged = [
            judge_day(profile, d, args.listings, args.picks, args.cache, delay=delay) for d in days
        ]
        report_judge(judged, profile.rank.judge_prompt_tokens)
    else:
        print(f"no listings at {args.listings}: the judge part needs real listing days")
    with tempfile.TemporaryDirectory() as home, OpenAIServer(_route, delay=delay) as server:
        wall, client = run_day(server, Path(home), args)
        _report(f"4-full-text-pick day, delay {args.delay} s, model {args.model}", wall, client)
        print(f"server: {server.request_count} requests, at most {server.max_in_flight} at once")
        before = server.request_count
        wall, client = run_day(server, Path(home), args)
        _report("rerun of the same day (content-hash cache)", wall, client)
        print(f"server: {server.request_count - before} new requests")


if __name__ == "__main__":
    main()
