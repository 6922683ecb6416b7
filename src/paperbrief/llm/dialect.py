"""How one wire format asks for a chat completion and reads the answer.

A ``Dialect`` is the wire format only: the request's payload, the URL it is posted to, the
authentication header, and the answer text and token usage read from a reply. Everything
else — retries, the budget, the answer cache, concurrency, deadlines, the size cap — is the
client's policy (``client.py``), the same for every dialect. ``OpenAIChat`` is the one
every provider paperbrief is used with speaks (OpenAI, DeepSeek, Qwen, Moonshot, Zhipu,
OpenRouter, vLLM, Ollama, llama.cpp); a second one is one small class with these methods.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

Message = dict[str, str]


@dataclass(frozen=True)
class Reading:
    """What a reply says: the answer text, and the token counts it reports (None when it
    reports none, or nonsense: negative, not a number)."""

    text: str
    prompt_tokens: int | None
    completion_tokens: int | None


class Dialect(Protocol):
    def url(self, base_url: str) -> str:
        """Where a request is posted."""
        ...

    def headers(self, api_key: str | None) -> dict[str, str]:
        """The headers of every request (the key, when there is one)."""
        ...

    def payload(
        self,
        model: str,
        messages: Sequence[Message],
        *,
        temperature: float,
        max_tokens: int | None,
        json_mode: bool,
    ) -> dict[str, object]:
        """The request body (also what the answer cache is keyed by)."""
        ...

    def with_messages(
        self, payload: dict[str, object], messages: Sequence[Message]
    ) -> dict[str, object]:
        """The same request with other messages (the one repair)."""
        ...

    def without_json_mode(self, payload: dict[str, object]) -> dict[str, object] | None:
        """The same request without JSON mode, for an endpoint that refused it; None when
        it asked for none."""
        ...

    def read(self, content: bytes) -> Reading | None:
        """The answer in a reply body; None when the body is not an answer."""
        ...


class OpenAIChat:
    """The OpenAI chat-completions format (``POST {base}/chat/completions``)."""

    def url(self, base_url: str) -> str:
        return f"{base_url.rstrip('/')}/chat/completions"

    def headers(self, api_key: str | None) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        return headers

    def payload(
        self,
        model: str,
        messages: Sequence[Message],
        *,
        temperature: float,
        max_tokens: int | None,
        json_mode: bool,
    ) -> dict[str, object]:
        payload: dict[str, object] = {
            "model": model,
            "messages": list(messages),
            "temperature": temperature,
        }
        if max_tokens:
            payload["max_tokens"] = max_tokens
        if json_mode:
            payload["response_format"] = {"type": "json_object"}
        return payload

    def with_messages(
        self, payload: dict[str, object], messages: Sequence[Message]
    ) -> dict[str, object]:
        return {**payload, "messages": list(messages)}

    def without_json_mode(self, payload: dict[str, object]) -> dict[str, object] | None:
        if "response_format" not in payload:
            return None
        return {key: value for key, value in payload.items() if key != "response_format"}

    def read(self, content: bytes) -> Reading | None:
        try:
            data = json.loads(content)
            text = data["choices"][0]["message"].get("content") or ""
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            return None
        usage = data.get("usage") if isinstance(data, dict) else None
        usage = usage if isinstance(usage, dict) else {}
        return Reading(
            str(text), _tokens(usage.get("prompt_tokens")), _tokens(usage.get("completion_tokens"))
        )


def _tokens(value: object) -> int | None:
    """A usage count as reported, or None when it is missing, negative or not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or value < 0:
        return None
    return int(value)
