"""LLMClient against a real OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from pydantic import BaseModel

from paperbrief.environment import llm_configured, resolve_api_key
from paperbrief.errors import BudgetExhausted, LLMError
from paperbrief.llm import LLMClient
from paperbrief.profile import LLMSettings, ModelPrice
from paperbrief.store import Store, open_store
from tests.support.openai_server import OpenAIServer, Reply


class Verdict(BaseModel):
    score: int
    why: str


GOOD = json.dumps({"score": 4, "why": "close to line 1"})
ASK = [{"role": "system", "content": "You rate papers."}, {"role": "user", "content": "rate X"}]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with open_store(tmp_path / "paperbrief.db") as opened:
        yield opened


@pytest.fixture
def server() -> OpenAIServer:
    with OpenAIServer() as running:
        yield running


def make_client(server: OpenAIServer, store: Store | None, waits: list[float], **overrides):
    settings = LLMSettings(model="m-default", **{"backoff_base": 0.5, **overrides})
    return LLMClient(
        settings,
        store.llm if store is not None else None,
        api_key="sk-test",
        day="2026-05-24",
        sleep=waits.append,
        base_url=server.url,
    )


def test_returns_validated_object_and_records_usage(server, store):
    server.push(Reply(content=GOOD, prompt_tokens=1000, completion_tokens=200))
    client = make_client(server, store, [], prices={"m-default": ModelPrice(input=1, output=2)})
    verdict = client.complete_json("judge", ASK, Verdict)
    assert verdict == Verdict(score=4, why="close to line 1")
    body = server.requests[0]
    assert body["model"] == "m-default"
    assert body["response_format"] == {"type": "json_object"}
    assert '"score"' in body["messages"][0]["content"]  # the schema travels in the prompt
    assert server.headers[0]["Authorization"] == "Bearer sk-test"
    (call,) = store.llm.calls("2026-05-24")
    assert (call.role, call.outcome) == ("judge", "ok")
    assert (call.prompt_tokens, call.completion_tokens) == (1000, 200)
    assert call.cost == pytest.approx((1000 * 1 + 200 * 2) / 1e6)


def test_a_second_wire_format_is_one_small_dialect_class(server, store):
    """The client's policy (budget, cache, ledger) is the same for any dialect: here one
    that sends the key in an ``api-key`` header, as Azure OpenAI does."""
    from paperbrief.llm.dialect import OpenAIChat

    class KeyHeaderChat(OpenAIChat):
        def headers(self, api_key: str | None) -> dict[str, str]:
            return {"Content-Type": "application/json", "api-key": api_key or ""}

    server.push(Reply(content=GOOD, prompt_tokens=10, completion_tokens=5))
    settings = LLMSettings(model="m-default")
    client = LLMClient(
        settings, store.llm, api_key="sk-az", day="2026-05-24", base_url=server.url,
        dialect=KeyHeaderChat(),
    )  # fmt: skip
    assert client.complete_json("judge", ASK, Verdict) == Verdict(score=4, why="close to line 1")
    assert server.headers[0]["api-key"] == "sk-az" and "Authorization" not in server.headers[0]
    (call,) = store.llm.calls("2026-05-24")
    assert (call.outcome, call.prompt_tokens, call.completion_tokens) == ("ok", 10, 5)


def test_repairs_broken_json_with_the_validation_error(server, store):
    server.push('{"score": "four", "why": ', Reply(content=GOOD))
    verdict = make_client(server, store, []).complete_json("judge", ASK, Verdict)
    assert verdict.score == 4
    repair = server.requests[1]["messages"]
    assert repair[-2]["role"] == "assistant" and repair[-2]["content"].startswith('{"score"')
    assert "could not be used" in repair[-1]["content"]
    assert [r.outcome for r in store.llm.calls()] == ["ok", "repair-ok"]


def test_gives_up_when_the_repair_is_still_invalid(server, store):
    server.push('{"score": "four"}', '{"why": 3}')
    with pytest.raises(LLMError, match="even after one repair"):
        make_client(server, store, []).complete_json("judge", ASK, Verdict)
    assert server.request_count == 2


def test_retries_429_honouring_retry_after(server, store):
    server.push(Reply(status=429, headers={"Retry-After": "7"}, body=b"{}"), GOOD)
    waits: list[float] = []
    assert make_client(server, store, waits).complete_json("judge", ASK, Verdict).score == 4
    assert waits == [7.0]
    assert [r.outcome for r in store.llm.calls()] == ["http-429", "ok"]


def test_the_llm_and_arxiv_share_one_retry_policy(server, store):
    # 409 Conflict is a refusal, not a transient fault; backoff is capped like arXiv's.
    server.push(Reply(status=409, body=b"{}"))
    with pytest.raises(LLMError, match="HTTP 409"):
        make_client(server, store, []).complete_json("judge", ASK, Verdict)
    server.push(Reply(status=408, body=b"{}"), Reply(status=503, body=b"{}"), GOOD)
    waits: list[float] = []
    client = make_client(server, store, waits, backoff_base=50.0, max_retries=2)
    assert client.complete_json("judge", ASK, Verdict).score == 4
    assert waits == [50.0, 60.0]  # doubling, capped at the shared max_backoff


def test_retries_5xx_with_exponential_backoff_then_fails(server, store):
    server.push(*[Reply(status=503, body=b"{}") for _ in range(3)])
    waits: list[float] = []
    with pytest.raises(LLMError, match="failed after 3 attempts: HTTP 503"):
        make_client(server, store, waits, max_retries=2).complete_json("judge", ASK, Verdict)
    assert waits == [0.5, 1.0]


def test_times_out_and_retries(server, store):
    server.push(Reply(content=GOOD, delay=1.5), GOOD)
    client = make_client(server, store, [], timeout=0.4)
    assert client.complete_json("judge", ASK, Verdict).score == 4
    assert [r.outcome for r in store.llm.calls()] == ["timeout", "ok"]


def test_blank_answer_is_retried(server, store):
    server.push("", "   ", GOOD)
    assert make_client(server, store, []).complete_json("judge", ASK, Verdict).score == 4
    assert server.request_count == 3
    assert [r.outcome for r in store.llm.calls()] == ["blank", "blank", "ok"]


def test_refuses_to_spend_past_the_daily_budget(server, store):
    server.push(Reply(content=GOOD, prompt_tokens=900, completion_tokens=100), GOOD)
    client = make_client(server, store, [], daily_token_budget=1200)
    client.complete_json("judge", ASK, Verdict)
    other = [{"role": "user", "content": "rate Y " * 200}]
    with pytest.raises(BudgetExhausted, match="budget is spent"):
        client.complete_json("judge", other, Verdict)
    assert server.request_count == 1
    # A new client the same day sees what the store says was spent.
    with pytest.raises(BudgetExhausted):
        make_client(server, store, [], daily_token_budget=1200).complete_json(
            "judge", other, Verdict
        )
    assert server.request_count == 1


def test_cost_budget_also_stops_spending(server, store):
    server.push(Reply(content=GOOD, prompt_tokens=10_000, completion_tokens=0))
    client = make_client(
        server,
        store,
        [],
        daily_cost_budget=0.01,
        prices={"m-default": ModelPrice(input=1.0, output=1.0)},
    )
    client.complete_json("judge", ASK, Verdict)  # costs exactly 0.01
    with pytest.raises(BudgetExhausted):
        client.complete_json("judge", [{"role": "user", "content": "again"}], Verdict)


def test_same_prompt_is_served_from_the_cache_across_clients(server, store):
    server.push(Reply(content=GOOD, prompt_tokens=300, completion_tokens=20))
    make_client(server, store, []).complete_json("judge", ASK, Verdict)
    second = make_client(server, store, [])
    assert second.complete_json("judge", ASK, Verdict).score == 4
    assert server.request_count == 1
    assert [r.outcome for r in store.llm.calls()] == ["ok", "cached"]
    assert store.llm.calls()[1].prompt_tokens == 0  # the budget is not charged twice
    use = second.usage()["judge"]
    assert (use.calls, use.cached, use.prompt_tokens) == (0, 1, 0)
    assert (use.cached_prompt_tokens, use.cached_completion_tokens) == (300, 20)


def test_roles_use_their_own_model(server, store):
    server.push(GOOD, GOOD)
    client = make_client(server, store, [], judge_model="small", writer_model="big")
    client.complete_json("judge", ASK, Verdict)
    client.complete_json("writer-paper", ASK, Verdict)
    assert [r["model"] for r in server.requests] == ["small", "big"]
    assert set(client.usage()) == {"judge", "writer-paper"}


def test_json_mode_can_be_turned_off(server):
    server.push(f"```json\n{GOOD}\n```")
    client = make_client(server, None, [], json_mode=False)
    assert client.complete_json("judge", ASK, Verdict).score == 4
    assert "response_format" not in server.requests[0]


def test_never_exceeds_the_concurrency_limit(store):
    with OpenAIServer(lambda body: GOOD, delay=0.2) as slow:
        client = make_client(slow, store, [], concurrency=2)
        prompts = [[{"role": "user", "content": f"rate paper {n}"}] for n in range(6)]
        with ThreadPoolExecutor(max_workers=6) as pool:
            list(pool.map(lambda m: client.complete_json("judge", m, Verdict), prompts))
        assert slow.request_count == 6
        assert slow.max_in_flight == 2


def test_unauthorised_is_not_retried_and_hints_at_the_key(server, store):
    server.push(Reply(status=401, body=b'{"error": "bad key"}'))
    with pytest.raises(LLMError) as caught:
        make_client(server, store, []).complete_json("judge", ASK, Verdict)
    assert "PAPERBRIEF_LLM_API_KEY" in caught.value.hint
    assert server.request_count == 1


def test_configured_only_with_an_endpoint_or_key(monkeypatch):
    for name in ("PAPERBRIEF_LLM_BASE_URL", "PAPERBRIEF_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert not llm_configured(LLMSettings())
    assert llm_configured(LLMSettings(base_url="http://127.0.0.1:11434/v1"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    assert llm_configured(LLMSettings())
    assert resolve_api_key(LLMSettings()) == "sk-x"
    with pytest.raises(LLMError):
        monkeypatch.delenv("OPENAI_API_KEY")
        LLMClient(LLMSettings(), None, api_key=None)


def test_configuration_can_be_read_from_a_given_environment():
    environ = {"PAPERBRIEF_LLM_BASE_URL": "http://127.0.0.1:8000/v1/", "MY_KEY": "sk-mine"}
    settings = LLMSettings(api_key_env="MY_KEY")
    assert llm_configured(settings, environ)
    assert resolve_api_key(settings, environ) == "sk-mine"
    assert not llm_configured(settings, {})


def test_endpoint_refusing_json_mode_is_asked_again_without_it(server, store):
    server.push(Reply(status=400, body=b'{"error": "response_format not supported"}'), GOOD)
    client = make_client(server, store, [], max_retries=0)
    assert client.complete_json("judge", ASK, Verdict).score == 4
    assert "response_format" in server.requests[0]
    assert "response_format" not in server.requests[1]
    assert [r.outcome for r in store.llm.calls()] == ["json-mode-refused", "ok"]


def test_parallel_calls_cannot_overshoot_the_budget_together(store):
    with OpenAIServer(lambda body: GOOD, delay=0.3) as slow:
        client = make_client(slow, store, [], daily_token_budget=250, concurrency=4)
        prompts = [[{"role": "user", "content": f"rate paper {n} " * 20}] for n in range(4)]

        def ask(messages):
            try:
                return client.complete_json("judge", messages, Verdict)
            except BudgetExhausted:
                return None

        with ThreadPoolExecutor(max_workers=4) as pool:
            answers = list(pool.map(ask, prompts))
        assert slow.request_count == 1
        assert sum(answer is not None for answer in answers) == 1
