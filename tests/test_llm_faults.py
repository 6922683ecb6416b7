"""The LLM boundary against endpoints that misbehave on purpose (see tests/faults.md):
drip-fed and endless answers, bad gzip, redirects, nonsense usage, a dead endpoint and a
run deadline. Every case ends in one typed LLMError, in bounded time and memory."""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path

import pytest
from pydantic import BaseModel

from paperbrief.errors import (
    LLMDeadline,
    LLMInvalidAnswer,
    LLMRefused,
    LLMTimeout,
    LLMUnreachable,
)
from paperbrief.llm import LLMClient
from paperbrief.profile import LLMSettings
from paperbrief.store import Store, open_store
from paperbrief.transport import Deadline
from tests.support.faults import (
    RawServer,
    bad_gzip,
    chat_completion,
    closed_port,
    drip,
    endless_body,
    response,
)
from tests.support.openai_server import OpenAIServer, Reply


class Verdict(BaseModel):
    score: int


GOOD = json.dumps({"score": 4})
ASK = [{"role": "user", "content": "rate this paper"}]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with open_store(tmp_path / "paperbrief.db") as opened:
        yield opened


def client_for(url: str, store: Store | None, waits: list[float] | None = None, **settings):
    options = {"model": "m", "backoff_base": 0.5, **settings}
    return LLMClient(
        LLMSettings(**options),
        store.llm if store is not None else None,
        api_key="sk-test",
        day="2026-05-24",
        sleep=(waits if waits is not None else []).append,
        base_url=url,
    )


def test_a_drip_fed_answer_is_cut_at_the_whole_request_timeout(store):
    answer = response(chat_completion(GOOD, {"prompt_tokens": 1, "completion_tokens": 1}))
    with RawServer(drip(answer, every=0.05)) as server:
        client = client_for(server.url + "/v1", store, timeout=1.0, max_retries=1)
        started = time.monotonic()
        with pytest.raises(LLMTimeout, match="2 attempts"):
            client.complete_json("judge", ASK, Verdict)
        elapsed = time.monotonic() - started
    # two attempts of at most 1 s each; the drip alone would take len(answer) * 0.05 s
    assert elapsed < 3.5 < len(answer) * 0.05
    assert [call.outcome for call in store.llm.calls()] == ["timeout", "timeout"]
    # A hanging endpoint is not asked again: the next call fails at once.
    started = time.monotonic()
    with pytest.raises(LLMTimeout, match="not made"):
        client.complete_json("writer", [{"role": "user", "content": "another"}], Verdict)
    assert time.monotonic() - started < 0.5


def test_an_endless_answer_stops_at_the_size_cap_in_bounded_memory(store):
    with RawServer(endless_body()) as server:
        client = client_for(server.url + "/v1", store, max_answer_bytes=1_000_000)
        tracemalloc.start()
        with pytest.raises(LLMInvalidAnswer, match="cap"):
            client.complete_json("judge", ASK, Verdict)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert len(server.requests) == 1  # not retried: the next answer would be as big
    assert peak < 20_000_000


def test_a_declared_200_mb_answer_is_refused_before_reading_it(store):
    with RawServer(endless_body(declared=200_000_000)) as server:
        client = client_for(server.url + "/v1", store)
        with pytest.raises(LLMInvalidAnswer, match="200000000 bytes"):
            client.complete_json("judge", ASK, Verdict)


def test_bad_gzip_from_the_endpoint_is_an_invalid_answer_not_a_traceback(store):
    with RawServer(bad_gzip()) as server:
        client = client_for(server.url + "/v1", store)
        with pytest.raises(LLMInvalidAnswer, match="could not be decoded"):
            client.complete_json("judge", ASK, Verdict)
        assert len(server.requests) == 1


def test_a_redirect_is_not_followed_and_says_what_to_set(store):
    redirect = response(status=307, headers={"Location": "/v1/chat/completions"})
    with RawServer(lambda conn, request: conn.sendall(redirect)) as server:
        client = client_for(server.url + "/v1", store)
        with pytest.raises(LLMRefused) as caught:
            client.complete_json("judge", ASK, Verdict)
    assert "307" in caught.value.message and "base_url" in caught.value.hint


@pytest.mark.parametrize(
    "usage",
    [
        None,
        {"prompt_tokens": -5000, "completion_tokens": -1},
        {"prompt_tokens": "many"},
        {"prompt_tokens": float("nan"), "completion_tokens": True},
        "not an object",
    ],
    ids=["missing", "negative", "text", "nan-and-bool", "not-an-object"],
)
def test_usage_that_is_missing_or_nonsense_is_charged_by_the_clients_estimate(store, usage):
    raw = chat_completion(GOOD, usage).replace(b"NaN", b"NaN")  # json.dumps writes NaN
    with OpenAIServer() as server:
        server.push(Reply(body=raw))
        client = client_for(server.url, store)
        assert client.complete_json("judge", ASK, Verdict).score == 4
    [call] = store.llm.calls()
    assert call.outcome == "ok-estimated"
    assert call.prompt_tokens > 20 and call.completion_tokens >= 1  # never zero, never negative
    assert store.llm.spend("2026-05-24").tokens == call.prompt_tokens + call.completion_tokens


def test_a_refused_endpoint_fails_at_once_and_stays_down_but_the_cache_answers(store):
    with OpenAIServer() as server:  # first, a cached answer for ASK
        server.push(GOOD)
        client_for(server.url, store).complete_json("judge", ASK, Verdict)
    dead = f"http://127.0.0.1:{closed_port()}/v1"
    waits: list[float] = []
    client = client_for(dead, store, waits, max_retries=4)
    started = time.monotonic()
    with pytest.raises(LLMUnreachable, match="connection refused"):
        client.complete_json("judge", [{"role": "user", "content": "other"}], Verdict)
    with pytest.raises(LLMUnreachable, match="not made"):
        client.complete_json("writer", [{"role": "user", "content": "third"}], Verdict)
    assert client.complete_json("judge", ASK, Verdict).score == 4  # served from the cache
    assert waits == [] and time.monotonic() - started < 2
    outcomes = [call.outcome for call in store.llm.calls()]
    assert outcomes.count("connection-error") == 1


def test_an_endpoint_whose_name_does_not_resolve_fails_fast(store):
    client = client_for("http://llm.invalid/v1", store, max_retries=4)
    started = time.monotonic()
    with pytest.raises(LLMUnreachable, match="DNS lookup failed"):
        client.complete_json("judge", ASK, Verdict)
    assert time.monotonic() - started < 2


def test_no_call_starts_after_the_run_deadline(store):
    with OpenAIServer() as server:
        server.push(GOOD)
        client = LLMClient(
            LLMSettings(model="m"),
            store.llm,
            api_key="k",
            base_url=server.url,
            deadline=Deadline.after(0, "the run"),
        )
        with pytest.raises(LLMDeadline, match="the run ran out of time"):
            client.complete_json("judge", ASK, Verdict)
        assert server.request_count == 0


def test_a_hanging_endpoint_is_cut_at_the_run_deadline(store):
    with RawServer(lambda conn, request: time.sleep(10)) as server:
        client = LLMClient(
            LLMSettings(model="m", timeout=60, max_retries=3),
            store.llm,
            api_key="k",
            base_url=server.url + "/v1",
            deadline=Deadline.after(1.0, "the run"),
            sleep=lambda seconds: None,
        )
        started = time.monotonic()
        with pytest.raises((LLMTimeout, LLMDeadline)):
            client.complete_json("judge", ASK, Verdict)
    assert time.monotonic() - started < 2.5
