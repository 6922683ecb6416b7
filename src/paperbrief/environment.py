"""The environment variables a profile names, and whether each is set.

Secrets live in the environment only; the profile names the variables. ``profile check``
prints this report so a missing secret is found before the morning's run, and warns where
a setting without its secret quietly changes behaviour (an LLM endpoint without a key is
sent requests without one: fine for a local Ollama or vLLM, a 401 anywhere else).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from paperbrief.llm.config import (
    BASE_URL_ENV,
    FALLBACK_KEY_ENV,
    MODEL_ENV,
    resolve_api_key,
    resolve_base_url,
)
from paperbrief.profile import Profile
from paperbrief.transport import is_loopback


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
    mail = profile.delivery.email
    if mail.smtp_host and mail.username:
        found.append(variable(mail.password_env, f"SMTP password for {mail.username}"))
    for hook in profile.delivery.webhooks:
        if hook.url_env:
            found.append(variable(hook.url_env, f"{hook.channel} webhook URL", not hook.url))
        if hook.secret_env:
            found.append(variable(hook.secret_env, f"{hook.channel} webhook signing secret"))
    return found


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
    return notes
