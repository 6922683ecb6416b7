"""The one LLM boundary: any OpenAI-compatible chat endpoint, plus cost accounting.

* ``config.py``: model per role, retry policy (the endpoint and key: ``environment.py``);
* ``repair.py``: the schema in the prompt, tolerant parsing, the one repair message;
* ``ledger.py``: the day's budget, usage per role, the record of every call;
* ``dialect.py``: the wire format (payload, URL, auth, answer and usage): ``OpenAIChat``;
* ``client.py``: ``LLMClient``, whose only public call is ``complete_json`` (the policy:
  retries, budget, cache, concurrency, deadlines).

Stages never import the client: they take ``CompletesJSON`` (the judge) or
``StructuredLLM`` (the writers), which ``LLMClient`` implements.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, TypeVar

from pydantic import BaseModel

from paperbrief.llm.client import LLMClient
from paperbrief.llm.config import model_for
from paperbrief.llm.ledger import CallRecords, RoleUsage

T = TypeVar("T", bound=BaseModel)


class CompletesJSON(Protocol):
    """The one call a stage makes to the LLM boundary."""

    def complete_json(
        self,
        role: str,
        messages: Sequence[dict[str, str]],
        schema: type[T],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> T: ...


class StructuredLLM(CompletesJSON, Protocol):
    """``complete_json`` plus what a writer reports in the digest's provenance."""

    def model_for(self, role: str) -> str: ...

    def usage(self) -> Mapping[str, RoleUsage]: ...


__all__ = [
    "CallRecords",
    "CompletesJSON",
    "LLMClient",
    "RoleUsage",
    "StructuredLLM",
    "model_for",
]
