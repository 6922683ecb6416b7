"""Which endpoint, key, model and retry policy the LLM client uses.

Providers (OpenAI, DeepSeek, Qwen/DashScope, Moonshot, Zhipu, OpenRouter, vLLM, Ollama,
llama.cpp server) differ only by configuration: base URL, model and the name of the
environment variable holding the key (``LLMSettings`` in ``profile.py``). Secrets come
from the environment only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from paperbrief.profile import LLMSettings
from paperbrief.retry import RetryPolicy

BASE_URL_ENV = "PAPERBRIEF_LLM_BASE_URL"
MODEL_ENV = "PAPERBRIEF_LLM_MODEL"
FALLBACK_KEY_ENV = "OPENAI_API_KEY"
OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini"


def resolve_api_key(settings: LLMSettings, environ: Mapping[str, str] | None = None) -> str | None:
    """The key from ``settings.api_key_env``, else ``$OPENAI_API_KEY``; None when unset."""
    env = os.environ if environ is None else environ
    return env.get(settings.api_key_env) or env.get(FALLBACK_KEY_ENV) or None


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
