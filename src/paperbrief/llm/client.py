"""``LLMClient``: one OpenAI-compatible chat endpoint behind one public call.

The client is the policy; the wire format is its ``dialect`` (``dialect.py``: the payload,
URL, authentication and the reading of an answer and its usage; ``OpenAIChat`` by default).

Contract of ``LLMClient.complete_json(role, messages, schema)``:

* appends the schema's JSON Schema to the system message and asks for one JSON object
  (``response_format={"type": "json_object"}`` when ``settings.json_mode``);
* returns an instance of ``schema`` validated by pydantic; an invalid answer is repaired
  ONCE by sending the validation error back (``repair.py``); still invalid -> ``LLMError``;
* bounds each attempt as a whole by ``settings.timeout`` (a server that drips bytes cannot
  hold it longer) and reads at most ``settings.max_answer_bytes`` of (decompressed) answer;
* retries the shared policy's statuses (408, 429, 5xx), timeouts, dropped connections and
  blank answers as ``paperbrief.retry.RetryPolicy`` says, honouring ``Retry-After``;
* fails fast on a DNS failure, a refused connection or no route to the endpoint
  (``LLMUnreachable``), and after that, or after every attempt of a call failed to connect
  or ran out of time (``LLMTimeout``), makes no further request for its lifetime (cache
  hits still answer): with the endpoint down or hanging a run falls back to the offline
  writer after one call's attempts, not after every call's;
* never starts an attempt, or waits for a retry, past the run's ``deadline``
  (``LLMDeadline``); an undecodable (bad gzip) or oversized answer is ``LLMInvalidAnswer``;
* charges the budget with the endpoint's ``usage``, or with its own token estimate when
  usage is missing, negative or not a number (outcome ``ok-estimated``);
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
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from paperbrief.environment import BASE_URL_ENV, FALLBACK_KEY_ENV, resolve_base_url
from paperbrief.errors import (
    LLMDeadline,
    LLMError,
    LLMInvalidAnswer,
    LLMRefused,
    LLMTimeout,
    LLMUnreachable,
)
from paperbrief.llm.config import model_for, retry_policy
from paperbrief.llm.dialect import Dialect, Message, OpenAIChat
from paperbrief.llm.ledger import NO_ANSWER, Answer, CallRecords, Ledger, RoleUsage
from paperbrief.llm.repair import parse_answer, repair_messages, with_schema
from paperbrief.profile import LLMSettings
from paperbrief.records import CachedAnswer
from paperbrief.retry import parse_retry_after
from paperbrief.text import estimate_tokens
from paperbrief.transport import Deadline, Failure, bounded_client, describe, within

T = TypeVar("T", bound=BaseModel)


class LLMClient:
    """A chat-completions client for one endpoint; thread-safe; see the module docstring.

    Args:
        settings: the profile's ``llm`` section.
        records: where calls are recorded and answers cached (``store.llm``; None: neither).
        api_key: the secret (``environment.resolve_api_key``); None for keyless local servers.
        run_id, day: stamped on every recorded call; ``day`` (ISO date, default today in
            UTC) scopes the daily budget, which counts every call recorded for it.
        sleep: waits between retries (default: the deadline's, which a stopped run cuts
            short; tests may pass a recorder).
        base_url: overrides ``environment.resolve_base_url(settings)``.
        deadline: the run's deadline; no attempt starts or runs past it.
        dialect: the wire format (``dialect.OpenAIChat``).
    """

    def __init__(
        self,
        settings: LLMSettings,
        records: CallRecords | None,
        *,
        api_key: str | None,
        run_id: int | None = None,
        day: str | None = None,
        sleep: Callable[[float], None] | None = None,
        base_url: str | None = None,
        deadline: Deadline | None = None,
        dialect: Dialect | None = None,
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
        self._sleep = sleep or (deadline.sleep if deadline is not None else time.sleep)
        self.deadline = deadline
        self._slots = threading.BoundedSemaphore(settings.concurrency)
        self._down: LLMError | None = None  # set once the endpoint proved down: no more calls
        self.dialect = dialect or OpenAIChat()
        self._http = bounded_client(
            timeout=settings.timeout,
            connect_timeout=min(settings.timeout, 20.0),
            max_connections=settings.concurrency,
            headers=self.dialect.headers(api_key),
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
        payload = self.dialect.payload(
            model,
            prepared,
            temperature=self.settings.temperature if temperature is None else temperature,
            max_tokens=max_tokens,
            json_mode=self.settings.json_mode,
        )
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
        answer = self._request(role, model, key, payload, prepared)
        try:
            result = parse_answer(answer.content, schema)
        except (ValueError, ValidationError) as error:
            repairing = repair_messages(prepared, answer.content, error)
            repair = self.dialect.with_messages(payload, repairing)
            answer = self._request(role, model, key, repair, repairing, outcome_prefix="repair-")
            try:
                result = parse_answer(answer.content, schema)
            except (ValueError, ValidationError) as second:
                self.ledger.record(role, model, key, NO_ANSWER, 0, "invalid-after-repair")
                raise LLMInvalidAnswer(
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
        self,
        role: str,
        model: str,
        key: str,
        payload: dict[str, object],
        messages: Sequence[Message],
        outcome_prefix: str = "",
    ) -> Answer:
        body = json.dumps(payload, ensure_ascii=False)
        estimate = estimate_tokens(json.dumps(list(messages), ensure_ascii=False))
        last, last_kind = "", ""
        attempt = made = 0
        while attempt < self.retry.attempts:
            self._refuse_if_down_or_late(role)
            self.ledger.reserve(role, model, estimate)
            started = time.monotonic()
            try:
                with self._slots:
                    self._refuse_if_down_or_late(role)
                    reply = self._post(role, body)
            finally:
                self.ledger.release(estimate)
            latency = int((time.monotonic() - started) * 1000)
            made += 1
            retry_after: float | None = None
            answer = NO_ANSWER
            outcome = reply.outcome
            if reply.failure is not None:
                last, last_kind = reply.failure.description, reply.failure.kind
                if not reply.failure.transient:
                    self.ledger.record(role, model, key, answer, latency, outcome_prefix + outcome)
                    raise self._fatal(role, reply.failure.kind, last)
            elif reply.status == 400 and self.dialect.without_json_mode(payload) is not None:
                # Some endpoints (older vLLM, llama.cpp builds) reject JSON mode: the
                # schema is in the prompt anyway, so ask again without it (not a retry).
                self.ledger.record(role, model, key, answer, latency, "json-mode-refused")
                payload = self.dialect.without_json_mode(payload) or payload
                body = json.dumps(payload, ensure_ascii=False)
                continue
            elif self.retry.retryable(reply.status):
                last, last_kind, outcome = f"HTTP {reply.status}", "http", f"http-{reply.status}"
                retry_after = parse_retry_after(reply.headers.get("retry-after"))
            elif reply.status >= 300:
                # Redirects are not followed: a POST must not be replayed elsewhere.
                self.ledger.record(role, model, key, answer, latency, "http-error")
                refused = LLMRefused(
                    f"{self.base_url} refused the {role} request with HTTP"
                    f" {reply.status}: {reply.text[:200]}",
                    _status_hint(reply.status, self.settings),
                )
                if reply.status in (401, 403):
                    # The key is the run's, not the request's: every other call would be
                    # refused the same way, so none is made (they fall back at once).
                    self._down = refused
                raise refused
            else:
                answer, estimated = self._answer(reply.content, estimate)
                if answer.content.strip():
                    ok = "ok-estimated" if estimated else "ok"
                    self.ledger.record(role, model, key, answer, latency, outcome_prefix + ok)
                    return answer
                last, last_kind, outcome = "blank answer", "blank", "blank"
            self.ledger.record(role, model, key, answer, latency, outcome_prefix + outcome)
            if attempt < self.retry.max_retries:
                wait = self.retry.wait(attempt, retry_after)
                if self.deadline is not None and wait >= self.deadline.remaining():
                    break  # the wait alone would outlast the run
                self._sleep(wait)
            attempt += 1
        tried = f"{made} attempt" + ("s" if made != 1 else "")
        message = f"{role} call to {self.base_url} failed after {tried}: {last}"
        if self.deadline is not None and self.deadline.expired:
            raise LLMDeadline(
                f"{role} call cut short: {self.deadline.ended} ({last})",
                "raise [run] deadline_minutes in the profile if runs are regularly cut short",
            )
        if last_kind == "connect-timeout":
            raise self._fatal(role, last_kind, last)
        if last_kind == "timeout":
            # Every attempt ran its whole limit: the next calls would too. Say so once.
            self._down = LLMTimeout(
                f"the LLM endpoint {self.base_url} did not answer {tried} of"
                f" {self.settings.timeout:g} s",
                "the endpoint is too slow or hangs: raise [llm] timeout, or rerun later"
                " (finished calls are cached)",
            )
            raise LLMTimeout(message, self._down.hint)
        raise LLMError(
            message,
            "the endpoint is down or rate-limiting; rerun later (finished calls are cached),"
            " or raise [llm] timeout / max_retries",
        )

    def _answer(self, content: bytes, prompt_estimate: int) -> tuple[Answer, bool]:
        """The answer text and its tokens, and whether the tokens are our own estimate.

        An endpoint that reports no usage (or nonsense: negative, not a number) is charged
        the client's estimate, so the day's budget still counts it and can never be credited.
        """
        reading = self.dialect.read(content)
        if reading is None:
            return NO_ANSWER, False
        prompt, completion = reading.prompt_tokens, reading.completion_tokens
        answer = Answer(
            reading.text,
            prompt_estimate if prompt is None else prompt,
            estimate_tokens(reading.text) if completion is None else completion,
        )
        return answer, prompt is None or completion is None

    def _refuse_if_down_or_late(self, role: str) -> None:
        if self._down is not None:
            down = type(self._down)
            raise down(f"{role} call not made: {self._down.message}", self._down.hint)
        if self.deadline is not None and self.deadline.expired:
            raise LLMDeadline(
                f"{role} call not made: {self.deadline.ended}",
                "raise [run] deadline_minutes in the profile if runs are regularly cut short",
            )

    def _fatal(self, role: str, kind: str, description: str) -> LLMError:
        """The error for a failure no retry can help; an unreachable endpoint stays down."""
        if kind in ("dns", "refused", "unreachable", "connect-timeout", "protocol"):
            self._down = LLMUnreachable(
                f"the LLM endpoint {self.base_url} is unreachable ({description})",
                f"check [llm] base_url / ${BASE_URL_ENV} and the network; the digest is"
                " written offline until it is back",
            )
            return LLMUnreachable(f"{role} call failed: {self._down.message}", self._down.hint)
        return LLMInvalidAnswer(
            f"{role} answer from {self.base_url} is unusable: {description}",
            "the endpoint (or a proxy before it) sent a broken answer; rerun later",
        )

    def _post(self, role: str, body: str) -> _Reply:
        """One HTTP attempt, bounded as a whole by ``settings.timeout`` and the deadline."""
        limit = Deadline.after(self.settings.timeout, f"the {role} request")
        try:
            with (
                within(limit, self.deadline) as deadline,
                self._http.stream(
                    "POST", self.dialect.url(self.base_url), content=body.encode()
                ) as response,
            ):
                content = _read_capped(response, self.settings.max_answer_bytes)
                return _Reply(response.status_code, dict(response.headers), content, "ok")
        except _TooLarge as error:
            failure = Failure("too-large", str(error), True, False, answered=True)
            return _Reply(0, {}, b"", "too-large", failure)
        except httpx.HTTPError as error:
            failure = describe(error, timeout=self.settings.timeout, deadline=deadline)
            outcome = {"timeout": "timeout", "connect-timeout": "timeout"}.get(
                failure.kind, "connection-error" if not failure.answered else failure.kind
            )
            return _Reply(0, {}, b"", outcome, failure)


class _TooLarge(Exception):
    pass


@dataclass(frozen=True)
class _Reply:
    """One attempt's outcome: an HTTP answer (status, headers, body) or a ``failure``."""

    status: int
    headers: dict[str, str]
    content: bytes
    outcome: str
    failure: Failure | None = None

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


def _read_capped(response: httpx.Response, limit: int) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _TooLarge(f"the answer is {declared} bytes, over the {limit}-byte cap")
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():  # decompressed, so a gzip bomb stops here too
        size += len(chunk)
        if size > limit:
            raise _TooLarge(f"the answer is over the {limit}-byte cap ([llm] max_answer_bytes)")
        chunks.append(chunk)
    return b"".join(chunks)


def _cache_key(payload: dict[str, object], schema: type[BaseModel]) -> str:
    blob = json.dumps(
        {"payload": payload, "schema": schema.model_json_schema()},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def _status_hint(status: int, settings: LLMSettings) -> str:
    if status in (401, 403):
        return f"check the key in ${settings.api_key_env} (or ${FALLBACK_KEY_ENV})"
    if status == 404:
        return "check [llm] base_url (it usually ends in /v1) and the model name"
    if status == 400:
        return "check the model name and that the prompt fits its context window"
    if 300 <= status < 400:
        return "the endpoint redirects: set [llm] base_url to the address it redirects to"
    return "see the endpoint's documentation for this status"
