"""Which model and retry policy the LLM client uses.

Providers (OpenAI, DeepSeek, Qwen/DashScope, Moonshot, Zhipu, OpenRouter, vLLM, Ollama,
llama.cpp server) differ only by configuration: base URL, model and the name of the
environment variable holding the key (``LLMSettings`` in ``profile.py``). Secrets come
from the environment only; the endpoint and key are resolved in ``environment.py``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from paperbrief.environment import MODEL_ENV
from paperbrief.profile import LLMSettings
from paperbrief.retry import RetryPolicy

DEFAULT_MODEL = "gpt-4o-mini"


def model_for(settings: LLMSettings, role: str, environ: Mapping[str, str] | None = None) -> str:
    """The model a role uses: ``judge_model`` / ``writer_model`` override the default."""
    env = os.environ if environ is None else environ
    family = role.split("-", 1)[0]  # "writer-day" uses the writer's model
    override = {"judge": settings.judge_model, "writer": settings.writer_model}.get(family, "")
    return override or settings.model or env.get(MODEL_ENV, "") or DEFAULT_MODEL


def retry_policy(settings: LLMSettings) -> RetryPolicy:
    """The shared retry policy with the profile's LLM knobs."""
    return RetryPolicy(
        max_retries=settings.max_retries,
        backoff_base=settings.backoff_base,
        max_retry_after=settings.max_retry_after,
    )
