"""``LLMClient``: one OpenAI-compatible chat endpoint behind one public call.

Contract of ``LLMClient.complete_json(role, messages, schema)``:

* appends the schema's JSON Schema to the system message and asks for one JSON object
  (``response_format={"type": "json_object"}`` when ``settings.json_mode``);
* returns an instance of ``schema`` validated by pydantic; an invalid answer is repaired
  ONCE by sending the validation error back (``repair.py``); still invalid -> ``LLMError``;
* retries the shared policy's statuses (408, 429, 5xx), timeouts, connection errors and
  blank answers as ``paperbrief.retry.RetryPolicy`` says, honouring ``Retry-After``;
* never has more than ``settings.concurrency`` requests in flight (a semaphore shared by
  every thread using the client — callers parallelise with threads);
* looks the request up in the content-hash answer cache first (the key covers the model,
  messages, schema and sampling settings), so a rerun or resume never pays twice;
* refuses to call once the day's token or cost budget is spent: ``BudgetExhausted``;
* records every HTTP attempt and every cache hit (``ledger.py``).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from paperbrief.errors import LLMError
from paperbrief.llm.config import (
    BASE_URL_ENV,
    FALLBACK_KEY_ENV,
    model_for,
    resolve_base_url,
    retry_policy,
)
from paperbrief.llm.ledger import NO_ANSWER, Answer, CallRecords, Ledger, RoleUsage
from paperbrief.llm.repair import Message, parse_answer, repair_messages, with_schema
from paperbrief.profile import LLMSettings
from paperbrief.records import CachedAnswer
from paperbrief.retry import parse_retry_after
from paperbrief.text import estimate_tokens

T = TypeVar("T", bound=BaseModel)


class LLMClient:
    """A chat-completions client for one endpoint; thread-safe; see the module docstring.

    Args:
        settings: the profile's ``llm`` section.
        records: where calls are recorded and answers cached (``store.llm``; None: neither).
        api_key: the secret (``config.resolve_api_key``); None for keyless local servers.
        run_id, day: stamped on every recorded call; ``day`` (ISO date, default today in
            UTC) scopes the daily budget, which counts every call recorded for it.
        sleep: waits between retries (tests may pass a recorder).
        base_url: overrides ``config.resolve_base_url(settings)``.
    """

    def __init__(
        self,
        settings: LLMSettings,
        records: CallRecords | None,
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
        self.records = records
        self.retry = retry_policy(settings)
        self.ledger = Ledger(settings, records, day or datetime.now(UTC).date().isoformat(), run_id)
        self._sleep = sleep
        self._slots = threading.BoundedSemaphore(settings.concurrency)
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._http = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(settings.timeout, connect=min(settings.timeout, 20.0)),
            limits=httpx.Limits(max_connections=settings.concurrency),
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def model_for(self, role: str) -> str:
        """The model ``role`` is asked with."""
        return model_for(self.settings, role)

    def usage(self) -> dict[str, RoleUsage]:
        """Spend per role in this client's lifetime (a copy)."""
        return self.ledger.usage()

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
        prepared = with_schema(list(messages), schema)
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
        cached = self.records.cached(key) if self.records is not None else None
        if cached is not None:
            try:
                result = parse_answer(cached.response, schema)
                answer = Answer(cached.response, cached.prompt_tokens, cached.completion_tokens)
                self.ledger.record(role, model, key, answer, 0, "cached")
                return result
            except (ValueError, ValidationError):
                pass  # a stale entry from an older schema: ask again
        answer = self._request(role, model, key, payload)
        try:
            result = parse_answer(answer.content, schema)
        except (ValueError, ValidationError) as error:
            repair = {**payload, "messages": repair_messages(prepared, answer.content, error)}
            answer = self._request(role, model, key, repair, outcome_prefix="repair-")
            try:
                result = parse_answer(answer.content, schema)
            except (ValueError, ValidationError) as second:
                self.ledger.record(role, model, key, NO_ANSWER, 0, "invalid-after-repair")
                raise LLMError(
                    f"{role} answer from {model} did not match {schema.__name__} even after"
                    f" one repair: {str(second)[:300]}",
                    "use a stronger model for this role, or turn json_mode off/on in [llm]",
                ) from second
        if self.records is not None:
            self.records.cache(
                key,
                CachedAnswer(
                    model, result.model_dump_json(), answer.prompt_tokens, answer.completion_tokens
                ),
            )
        return result

    # ---------------------------------------------------------------- transport
    def _request(
        self, role: str, model: str, key: str, payload: dict[str, object], outcome_prefix: str = ""
    ) -> Answer:
        estimate = estimate_tokens(json.dumps(payload["messages"], ensure_ascii=False))
        last = ""
        attempt = 0
        while attempt < self.retry.attempts:
            self.ledger.reserve(role, model, estimate)
            started = time.monotonic()
            try:
                with self._slots:
                    response, last, outcome = self._post(payload)
            finally:
                self.ledger.release(estimate)
            latency = int((time.monotonic() - started) * 1000)
            retry_after: float | None = None
            answer = NO_ANSWER
            if response is not None:
                status = response.status_code
                if status == 400 and "response_format" in payload:
                    # Some endpoints (older vLLM, llama.cpp builds) reject JSON mode: the
                    # schema is in the prompt anyway, so ask again without it (not a retry).
                    self.ledger.record(role, model, key, answer, latency, "json-mode-refused")
                    payload = {k: v for k, v in payload.items() if k != "response_format"}
                    continue
                if self.retry.retryable(status):
                    last, outcome = f"HTTP {status}", f"http-{status}"
                    retry_after = parse_retry_after(response.headers.get("retry-after"))
                elif status >= 400:
                    self.ledger.record(role, model, key, answer, latency, "http-error")
                    raise LLMError(
                        f"{self.base_url} refused the {role} request with HTTP"
                        f" {status}: {response.text[:200]}",
                        _status_hint(status, self.settings),
                    )
                else:
                    answer = _read_answer(response)
                    if answer.content.strip():
                        self.ledger.record(role, model, key, answer, latency, outcome_prefix + "ok")
                        return answer
                    last, outcome = "blank answer", "blank"
            self.ledger.record(role, model, key, answer, latency, outcome_prefix + outcome)
            if attempt < self.retry.max_retries:
                self._sleep(self.retry.wait(attempt, retry_after))
            attempt += 1
        raise LLMError(
            f"{role} call to {self.base_url} failed after {self.retry.attempts} attempts: {last}",
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


def _cache_key(payload: dict[str, object], schema: type[BaseModel]) -> str:
    blob = json.dumps(
        {"payload": payload, "schema": schema.model_json_schema()},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def _read_answer(response: httpx.Response) -> Answer:
    try:
        data = response.json()
        content = data["choices"][0]["message"].get("content") or ""
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return NO_ANSWER
    usage = data.get("usage") or {}
    return Answer(
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
