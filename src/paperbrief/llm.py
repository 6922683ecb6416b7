"""The one LLM boundary: any OpenAI-compatible chat endpoint, plus cost accounting.

Providers (OpenAI, DeepSeek, Qwen/DashScope, Moonshot, Zhipu, OpenRouter, vLLM, Ollama,
llama.cpp server) differ only by configuration: base URL, model and the name of the
environment variable holding the key (``LLMSettings`` in ``profile.py``).

Contract of ``LLMClient.complete_json(role, messages, schema)``:

* appends the schema's JSON Schema to the system message and asks for one JSON object
  (``response_format={"type": "json_object"}`` when ``settings.json_mode``);
* returns an instance of ``schema`` validated by pydantic; an invalid answer is repaired
  ONCE by sending the validation error back; still invalid -> ``LLMError``;
* retries 429/5xx, timeouts, connection errors and blank answers at most
  ``settings.max_retries`` times with exponential backoff, honouring ``Retry-After``;
* never has more than ``settings.concurrency`` requests in flight (a semaphore shared by
  every thread using the client — callers parallelise with threads);
* looks the request up in the store's content-hash cache first (the key covers the model,
  messages, schema and sampling settings), so a rerun or resume never pays twice;
* refuses to call once the day's token or cost budget is spent: ``BudgetExhausted``;
* records every HTTP attempt and every cache hit in ``store.llm``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from paperbrief.errors import BudgetExhausted, LLMError
from paperbrief.http import parse_retry_after
from paperbrief.profile import LLMSettings
from paperbrief.records import CachedAnswer, LLMCall, Spend
from paperbrief.text import estimate_tokens

BASE_URL_ENV = "PAPERBRIEF_LLM_BASE_URL"
MODEL_ENV = "PAPERBRIEF_LLM_MODEL"
FALLBACK_KEY_ENV = "OPENAI_API_KEY"
OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini"
RETRYABLE_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})

Message = dict[str, str]
T = TypeVar("T", bound=BaseModel)


class CallRecords(Protocol):
    """Where calls are recorded and answers cached (the store's ``llm`` part)."""

    def record(self, call: LLMCall) -> None: ...

    def spend(self, day: str) -> Spend: ...

    def cached(self, key: str) -> CachedAnswer | None: ...

    def cache(self, key: str, answer: CachedAnswer) -> None: ...


def resolve_api_key(settings: LLMSettings, environ: Mapping[str, str] | None = None) -> str | None:
    """The key from ``settings.api_key_env``, else ``$OPENAI_API_KEY``; None when unset."""
    env = os.environ if environ is None else environ
    return env.get(settings.api_key_env) or env.get(FALLBACK_KEY_ENV) or None


api_key = resolve_api_key  # the name the CLI uses


def resolve_base_url(settings: LLMSettings, environ: Mapping[str, str] | None = None) -> str | None:
    """The endpoint: settings, else ``$PAPERBRIEF_LLM_BASE_URL``, else OpenAI when a key is set."""
    env = os.environ if environ is None else environ
    url = settings.base_url or env.get(BASE_URL_ENV, "")
    if url:
        return url.rstrip("/")
    return OPENAI_BASE_URL if resolve_api_key(settings, env) else None


def llm_configured(settings: LLMSettings, environ: Mapping[str, str] | None = None) -> bool:
    """True when an endpoint is configured (a base URL, or a key for the default endpoint).

    Without one the pipeline uses the offline writer.
    """
    return resolve_base_url(settings, environ) is not None


def model_for(settings: LLMSettings, role: str) -> str:
    """The model a role uses: ``judge_model`` / ``writer_model`` override the default."""
    family = role.split("-", 1)[0]  # "writer-day" uses the writer's model
    override = {"judge": settings.judge_model, "writer": settings.writer_model}.get(family, "")
    return override or settings.model or os.environ.get(MODEL_ENV, "") or DEFAULT_MODEL


@dataclass
class RoleUsage:
    """What one role spent in this client's lifetime (cache hits count calls, not tokens)."""

    calls: int = 0
    cached: int = 0
    cached_prompt_tokens: int = 0  # what the cached answers cost when first asked
    cached_completion_tokens: int = 0
    cached_cost: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    latency_ms: int = 0


@dataclass
class _Answer:
    content: str
    prompt_tokens: int
    completion_tokens: int


@dataclass
class _Spend:
    tokens: int = 0
    cost: float = 0.0
    by_role: dict[str, RoleUsage] = field(default_factory=dict)


class LLMClient:
    """A chat-completions client for one endpoint; thread-safe; see the module docstring.

    Args:
        settings: the profile's ``llm`` section.
        store: where calls are recorded and answers cached (None: no cache, no records).
        api_key: the secret (from ``resolve_api_key``); None for keyless local servers.
        run_id, day: stamped on every recorded call; ``day`` (ISO date, default today in
            UTC) scopes the daily budget, which counts every call the store holds for it.
        sleep: waits between retries (tests may pass a recorder).
        base_url: overrides ``resolve_base_url(settings)``.
    """

    def __init__(
        self,
        settings: LLMSettings,
        store: CallRecords | None,
        *,
        api_key: str | None,
        run_id: int | None = None,
        day: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
        base_url: str | None = None,
    ) -> None:
        url = base_url or resolve_base_url(settings)
        if not url:
            raise LLMError(
                "no LLM endpoint is configured",
                f"set {BASE_URL_ENV} (and {settings.api_key_env}), or [llm] base_url in the"
                " profile; without one the offline writer is used",
            )
        self.settings = settings
        self.base_url = url.rstrip("/")
        self.store = store
        self.run_id = run_id
        self.day = day or datetime.now(UTC).date().isoformat()
        self._sleep = sleep
        self._slots = threading.BoundedSemaphore(settings.concurrency)
        self._lock = threading.Lock()  # guards spend counters and the store connection
        self._spend = _Spend()
        self._reserved = 0  # prompt tokens of calls in flight (see _reserve)
        self._spent_before = self._stored_spend()
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._http = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(settings.timeout, connect=min(settings.timeout, 20.0)),
            limits=httpx.Limits(max_connections=settings.concurrency),
        )

    # ------------------------------------------------------------------ public
    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def model_for(self, role: str) -> str:
        return model_for(self.settings, role)

    @property
    def writer_model(self) -> str:
        """The deep-read model (names the writer in stored briefs and the provenance)."""
        return self.model_for("writer")

    def usage(self) -> dict[str, RoleUsage]:
        """Spend per role in this client's lifetime (a copy)."""
        with self._lock:
            return {role: RoleUsage(**vars(use)) for role, use in self._spend.by_role.items()}

    def complete_json(
        self,
        role: str,
        messages: Sequence[Message],
        schema: type[T],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> T:
        """Ask for one JSON object matching ``schema``; see the module docstring."""
        model = self.model_for(role)
        prepared = _with_schema(list(messages), schema)
        payload: dict[str, object] = {
            "model": model,
            "messages": prepared,
            "temperature": self.settings.temperature if temperature is None else temperature,
        }
        if max_tokens:
            payload["max_tokens"] = max_tokens
        if self.settings.json_mode:
            payload["response_format"] = {"type": "json_object"}
        key = _cache_key(payload, schema)
        cached = self._cache_get(key)
        if cached is not None:
            try:
                result = _parse(cached.content, schema)
                self._record(role, model, key, cached, 0, "cached")
                return result
            except (ValueError, ValidationError):
                pass  # a stale entry from an older schema: ask again
        answer = self._request(role, model, key, payload)
        try:
            result = _parse(answer.content, schema)
        except (ValueError, ValidationError) as error:
            repair = {
                **payload,
                "messages": [
                    *prepared,
                    {"role": "assistant", "content": answer.content[:8000]},
                    {"role": "user", "content": _repair_note(error)},
                ],
            }
            answer = self._request(role, model, key, repair, outcome_prefix="repair-")
            try:
                result = _parse(answer.content, schema)
            except (ValueError, ValidationError) as second:
                self._record(role, model, key, _Answer("", 0, 0), 0, "invalid-after-repair")
                raise LLMError(
                    f"{role} answer from {model} did not match {schema.__name__} even after"
                    f" one repair: {str(second)[:300]}",
                    "use a stronger model for this role, or turn json_mode off/on in [llm]",
                ) from second
        self._cache_put(key, model, result.model_dump_json(), answer)
        return result

    # ---------------------------------------------------------------- transport
    def _request(
        self, role: str, model: str, key: str, payload: dict[str, object], outcome_prefix: str = ""
    ) -> _Answer:
        estimate = estimate_tokens(json.dumps(payload["messages"], ensure_ascii=False))
        last = ""
        attempt = 0
        while attempt <= self.settings.max_retries:
            self._reserve(role, model, estimate)
            started = time.monotonic()
            try:
                with self._slots:
                    response, last, outcome = self._post(payload)
            finally:
                self._release(estimate)
            latency = int((time.monotonic() - started) * 1000)
            retry_after: float | None = None
            answer = _Answer("", 0, 0)
            if response is not None:
                status = response.status_code
                if status == 400 and "response_format" in payload:
                    # Some endpoints (older vLLM, llama.cpp builds) reject JSON mode: the
                    # schema is in the prompt anyway, so ask again without it (not a retry).
                    self._record(role, model, key, answer, latency, "json-mode-refused")
                    payload = {k: v for k, v in payload.items() if k != "response_format"}
                    continue
                if status in RETRYABLE_STATUSES:
                    last, outcome = f"HTTP {status}", f"http-{status}"
                    retry_after = parse_retry_after(response.headers.get("retry-after"))
                elif status >= 400:
                    self._record(role, model, key, answer, latency, "http-error")
                    raise LLMError(
                        f"{self.base_url} refused the {role} request with HTTP"
                        f" {status}: {response.text[:200]}",
                        _status_hint(status, self.settings),
                    )
                else:
                    answer = _read_answer(response)
                    if answer.content.strip():
                        self._record(role, model, key, answer, latency, outcome_prefix + "ok")
                        return answer
                    last, outcome = "blank answer", "blank"
            self._record(role, model, key, answer, latency, outcome_prefix + outcome)
            if attempt < self.settings.max_retries:
                self._sleep(self._backoff(attempt, retry_after))
            attempt += 1
        raise LLMError(
            f"{role} call to {self.base_url} failed after"
            f" {self.settings.max_retries + 1} attempts: {last}",
            "the endpoint is down or rate-limiting; rerun later (finished calls are cached),"
            " or raise [llm] timeout / max_retries",
        )

    def _post(self, payload: dict[str, object]) -> tuple[httpx.Response | None, str, str]:
        """One HTTP attempt: (response or None, failure description, outcome)."""
        try:
            return self._http.post(f"{self.base_url}/chat/completions", json=payload), "", "ok"
        except httpx.TimeoutException:
            return None, f"timed out after {self.settings.timeout:g}s", "timeout"
        except httpx.TransportError as error:
            return None, f"connection error ({error!r})", "connection-error"

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.settings.max_retry_after)
        return self.settings.backoff_base * (2**attempt)

    # -------------------------------------------------------- budget, records
    def _stored_spend(self) -> tuple[int, float]:
        if self.store is None or self.day is None:
            return 0, 0.0
        spent = self.store.spend(self.day)
        return spent.tokens, spent.cost

    def _reserve(self, role: str, model: str, estimate: int) -> None:
        """Claim ``estimate`` prompt tokens of the day's budget, or raise ``BudgetExhausted``.

        Calls in flight hold their reservation, so parallel calls cannot overshoot together.
        """
        token_budget = self.settings.daily_token_budget
        cost_budget = self.settings.daily_cost_budget
        with self._lock:
            tokens = self._spent_before[0] + self._spend.tokens
            cost = self._spent_before[1] + self._spend.cost
            pending = self._reserved + estimate
            over_tokens = token_budget and tokens + pending > token_budget
            over_cost = cost_budget and cost + self._price(model, pending, 0) > cost_budget
            if not (over_tokens or over_cost):
                self._reserved += estimate
                return
        self._record(role, model, None, _Answer("", 0, 0), 0, "budget-exhausted")
        raise BudgetExhausted(
            f"the day's LLM budget is spent ({tokens} tokens, {cost:.4f} cost units;"
            f" limits {token_budget} tokens, {cost_budget} cost units)",
            "raise [llm] daily_token_budget / daily_cost_budget, or rerun tomorrow;"
            " finished calls are cached and will not be paid again",
        )

    def _release(self, estimate: int) -> None:
        with self._lock:
            self._reserved -= estimate

    def _price(self, model: str, prompt_tokens: int, completion_tokens: int) -> float:
        price = self.settings.prices.get(model, self.settings.default_price)
        return (prompt_tokens * price.input + completion_tokens * price.output) / 1_000_000

    def _record(
        self, role: str, model: str, key: str | None, answer: _Answer, latency: int, outcome: str
    ) -> None:
        """Count a call (or cache hit) in memory and in the store.

        A cache hit costs nothing now: the store records it with zero tokens (the daily
        budget is not charged twice) while ``RoleUsage.cached_*`` keeps what it once cost.
        """
        cost = self._price(model, answer.prompt_tokens, answer.completion_tokens)
        with self._lock:
            use = self._spend.by_role.setdefault(role, RoleUsage())
            if outcome == "cached":
                use.cached += 1
                use.cached_prompt_tokens += answer.prompt_tokens
                use.cached_completion_tokens += answer.completion_tokens
                use.cached_cost += cost
                answer, cost = _Answer(answer.content, 0, 0), 0.0
            elif outcome != "budget-exhausted":
                use.calls += 1
            self._spend.tokens += answer.prompt_tokens + answer.completion_tokens
            self._spend.cost += cost
            use.prompt_tokens += answer.prompt_tokens
            use.completion_tokens += answer.completion_tokens
            use.cost += cost
            use.latency_ms += latency
            if self.store is not None:
                self.store.record(
                    LLMCall(
                        role=role,
                        model=model,
                        prompt_tokens=answer.prompt_tokens,
                        completion_tokens=answer.completion_tokens,
                        cost=cost,
                        latency_ms=latency,
                        outcome=outcome,
                        cache_key=key,
                        day=self.day,
                        run_id=self.run_id,
                    )
                )

    def _cache_get(self, key: str) -> _Answer | None:
        """The cached answer and the tokens it cost when it was first asked."""
        if self.store is None:
            return None
        with self._lock:
            cached = self.store.cached(key)
        if cached is None:
            return None
        return _Answer(cached.response, cached.prompt_tokens, cached.completion_tokens)

    def _cache_put(self, key: str, model: str, response: str, answer: _Answer) -> None:
        if self.store is None:
            return
        with self._lock:
            self.store.cache(
                key, CachedAnswer(model, response, answer.prompt_tokens, answer.completion_tokens)
            )


# ---------------------------------------------------------------------- helpers
def _with_schema(messages: list[Message], schema: type[BaseModel]) -> list[Message]:
    """Append the JSON Schema to the system message (adding one when there is none)."""
    note = (
        "Answer with exactly one JSON object and nothing else (no Markdown fence). It must"
        " validate against this JSON Schema:\n"
        + json.dumps(schema.model_json_schema(), ensure_ascii=False, separators=(",", ":"))
    )
    if messages and messages[0].get("role") == "system":
        first = dict(messages[0])
        first["content"] = f"{first['content']}\n\n{note}"
        return [first, *messages[1:]]
    return [{"role": "system", "content": note}, *messages]


def _cache_key(payload: dict[str, object], schema: type[BaseModel]) -> str:
    blob = json.dumps(
        {"payload": payload, "schema": schema.model_json_schema()},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


def _parse(content: str, schema: type[T]) -> T:
    """Validate an answer; tolerates a Markdown fence or prose around one JSON object."""
    text = _FENCE.sub("", content.strip())
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            raise ValueError(f"the answer is not JSON: {text[:120]!r}") from None
        try:
            data = json.loads(text[start : end + 1])
        except json.JSONDecodeError as error:
            raise ValueError(f"the answer is not valid JSON: {error}") from None
    return schema.model_validate(data)


def _repair_note(error: Exception) -> str:
    return (
        "Your previous answer could not be used: "
        + str(error)[:1500]
        + "\nAnswer again with exactly one JSON object that validates against the schema."
        " Keep the content; fix only the structure. If the answer was cut off, write the"
        " long text fields more briefly so the whole object fits."
    )


def _read_answer(response: httpx.Response) -> _Answer:
    try:
        data = response.json()
        content = data["choices"][0]["message"].get("content") or ""
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return _Answer("", 0, 0)
    usage = data.get("usage") or {}
    return _Answer(
        str(content),
        int(usage.get("prompt_tokens") or 0),
        int(usage.get("completion_tokens") or 0),
    )


def _status_hint(status: int, settings: LLMSettings) -> str:
    if status in (401, 403):
        return f"check the key in ${settings.api_key_env} (or ${FALLBACK_KEY_ENV})"
    if status == 404:
        return "check [llm] base_url (it usually ends in /v1) and the model name"
    if status == 400:
        return "check the model name and that the prompt fits its context window"
    return "see the endpoint's documentation for this status"
