"""The environment: every variable paperbrief reads, and whether those a profile names are set.

The variables (one name each, here; the data home's ``PAPERBRIEF_HOME`` lives with
``profile.home_dir``):

* ``PAPERBRIEF_LLM_BASE_URL``, ``PAPERBRIEF_LLM_MODEL``: the endpoint and model when the
  profile's ``[llm]`` leaves them empty; the key in ``[llm] api_key_env``, else
  ``OPENAI_API_KEY`` (``resolve_api_key``, ``resolve_base_url``, ``llm_configured``);
* ``PAPERBRIEF_PROFILE``: the profile when ``--profile`` is not given;
* ``PAPERBRIEF_WEB_TOKEN``: the web UI's access token;
* ``PAPERBRIEF_DEBUG``: show the traceback of an unexpected error;
* ``ZOTERO_API_KEY``: the key a ``zotero:`` library source is read with (none for a public
  library), ``PAPERBRIEF_ZOTERO_API``: another address for Zotero's API (a local mirror, tests);
* the secrets the profile names (SMTP password, webhook URLs and signing secrets).

Secrets live in the environment only; the profile names the variables. ``profile check``
prints ``named_variables`` so a missing secret is found before the morning's run, and
``warnings`` where a setting without its secret quietly changes behaviour (an LLM endpoint
without a key is sent requests without one: fine for a local Ollama or vLLM, a 401
anywhere else). ``is_loopback`` tells a local host from the others (the web UI serves
loopback without a token; a keyless endpoint on loopback is expected).
"""

from __future__ import annotations

import importlib.util
import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from paperbrief.profile import CHANNEL_KINDS, LLMSettings, Profile

BASE_URL_ENV = "PAPERBRIEF_LLM_BASE_URL"
MODEL_ENV = "PAPERBRIEF_LLM_MODEL"
FALLBACK_KEY_ENV = "OPENAI_API_KEY"
PROFILE_ENV = "PAPERBRIEF_PROFILE"
WEB_TOKEN_ENV = "PAPERBRIEF_WEB_TOKEN"
DEBUG_ENV = "PAPERBRIEF_DEBUG"  # set to 1 to see the traceback of an unexpected error
ZOTERO_KEY_ENV = "ZOTERO_API_KEY"  # a zotero: library source's read key
ZOTERO_API_ENV = "PAPERBRIEF_ZOTERO_API"  # another address for Zotero's web API

OPENAI_BASE_URL = "https://api.openai.com/v1"  # the endpoint a bare key means
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1"}


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost."""
    name = host.strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


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


@dataclass(frozen=True)
class NamedVariable:
    """One environment variable the profile relies on."""

    name: str
    purpose: str
    is_set: bool
    needed: bool = True  # False: optional (a fallback or an override)


def named_variables(
    profile: Profile, environ: Mapping[str, str] | None = None
) -> list[NamedVariable]:
    """Every variable the profile names (or paperbrief reads for it), set or not."""
    env = os.environ if environ is None else environ

    def variable(name: str, purpose: str, needed: bool = True) -> NamedVariable:
        return NamedVariable(name, purpose, bool(env.get(name)), needed)

    llm = profile.llm
    found = [
        variable(llm.api_key_env, "LLM API key"),
        variable(FALLBACK_KEY_ENV, "LLM API key (fallback)", needed=False),
        variable(BASE_URL_ENV, "LLM endpoint (when [llm] base_url is empty)", needed=False),
        variable(MODEL_ENV, "LLM model (when [llm] model is empty)", needed=False),
    ]
    for kind in CHANNEL_KINDS:  # the secrets each configured channel reads
        for secret in kind.secrets(profile.delivery):
            found.append(variable(secret.variable, secret.purpose, secret.needed))
    return found


def secret_values(profile: Profile, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``{variable: value}`` of every secret the profile names that is set: the LLM key and
    each configured channel's secrets (SMTP password, webhook URLs, signing secrets), so
    that no log line shows them (``cli/redaction.py``)."""
    env = os.environ if environ is None else environ
    names = [profile.llm.api_key_env, FALLBACK_KEY_ENV]
    for kind in CHANNEL_KINDS:
        names += [secret.variable for secret in kind.secrets(profile.delivery)]
    return {name: env[name] for name in dict.fromkeys(names) if env.get(name)}


def warnings(profile: Profile, environ: Mapping[str, str] | None = None) -> list[str]:
    """What will not work as the profile suggests, one line each."""
    env = os.environ if environ is None else environ
    notes: list[str] = []
    base_url = resolve_base_url(profile.llm, env)
    key = resolve_api_key(profile.llm, env)
    if base_url and not key:
        host = urlsplit(base_url).hostname or ""
        where = "a local server" if is_loopback(host) else f"{host}"
        notes.append(
            f"an LLM endpoint is set ({base_url}) but ${profile.llm.api_key_env} is empty:"
            f" requests go to {where} without a key"
            + ("" if is_loopback(host) else ", which most hosted endpoints refuse (HTTP 401)")
        )
    if not base_url:
        notes.append(
            f"no LLM endpoint: digests are written offline (set ${BASE_URL_ENV} and"
            f" ${profile.llm.api_key_env} for the deep read)"
        )
    for item in named_variables(profile, env):
        if item.needed and not item.is_set and item.name != profile.llm.api_key_env:
            notes.append(f"${item.name} ({item.purpose}) is not set: that channel will fail")
    model = profile.rank.embedding_model
    if "@" not in model and importlib.util.find_spec("sentence_transformers") is None:
        notes.append(
            f"[rank] embedding_model {model!r} runs on torch, which is not installed: `run`"
            " will refuse it (`make minilm` installs it, or use the bundled default)"
        )
    return notes
