"""The judge's tokens on one real listing day, through a loopback OpenAI-compatible server.

Used by ``benchmarks/llm_bench.py --judge-day``: the day's listing is ranked for the example
profile with the reader as the picks file says they stood before that day (their picks and
passed-over papers recorded as ``paperbrief feedback import`` records them), and the real
judge (``rank.judge.judge_ranking`` through the LLM client) screens, chooses its head and
reads it. The server answers every request with an answer of realistic length and counts,
as a provider's prefix cache does, the prompt tokens each request shares with an earlier
one: the longest common prefix of the serialised messages, counted from 1,024 tokens on in
blocks of 128 (OpenAI's documented rule).
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass
from datetime import date
from os.path import commonprefix
from pathlib import Path
from typing import Any

from paperbrief.llm import LLMClient
from paperbrief.models import Listing
from paperbrief.profile import LLMSettings, Profile
from paperbrief.rank import Embedder, rank_papers
from paperbrief.rank.evaluate import find_listing, load_listing_file
from paperbrief.rank.imported import load_posts, record_posts
from paperbrief.rank.judge import JudgeResult, LLMAnswers, judge_ranking
from paperbrief.rank.reader import reader_of_day
from paperbrief.store import Store, open_store
from paperbrief.text import estimate_tokens
from tests.support.openai_server import OpenAIServer, Reply

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
                earlier = reader_of_day(store.feedback, store.listings, store.rankings,
                                        store.verdicts, embedder, profile, listing_day,
                                        before=listing_day.isoformat())  # fmt: skip
                store.rankings.save(listing_day, "bench", rank_papers(
                    listing.papers, profile, embedder, reference=earlier.reference,
                    feedback=earlier.taste if earlier.taste.ready else None,
                    calibration=earlier.reader.calibrations.cheap))  # fmt: skip
            reader = reader_of_day(store.feedback, store.listings, store.rankings,
                                   store.verdicts, embedder, profile, day)  # fmt: skip
            cheap = rank_papers(papers, profile, embedder, reference=reader.reference,
                                feedback=reader.taste if reader.taste.ready else None,
                                calibration=reader.reader.calibrations.cheap)  # fmt: skip
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
