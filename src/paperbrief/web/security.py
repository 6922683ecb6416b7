"""Access control for the web UI: loopback-only hosts, the access token, CSRF, headers.

Contract:

* Without a token the app only answers requests whose ``Host`` is a loopback name, so a
  web page elsewhere cannot reach it through DNS rebinding.
* With a token every request needs it: ``Authorization: Bearer <token>``, an
  ``X-Paperbrief-Token`` header, or the session cookie set after visiting any page with
  ``?token=<token>`` (the token is then removed from the address bar by a redirect). The
  cookie is signed by the token, not the token (``web.tokens``); wrong tokens are
  throttled; the login page (localised, styled) says where the token comes from. Only
  ``/static/`` (the style sheet and script) is served without it.
* Every POST must come, when the browser says, from an ``Origin`` of this same host
  (checked here), and carry the per-session CSRF token: cookie + hidden form field,
  compared in constant time by ``verified_form``, which every POST handler reads with.
* Every response, refusals (401, 403) and redirects included, gets the security headers:
  a strict Content-Security-Policy (no inline scripts, no framing by other sites, images
  from https only), nosniff, no referrer, same-origin framing, no caching of pages that
  hold the reader's data.

`paperbrief serve` always passes a token, also on loopback (loopback is shared by every
user and process of the machine): ``$PAPERBRIEF_WEB_TOKEN``, or the one kept private in
the data home (``web.tokens``: the same across restarts until rotated). Without a token
(``serve --no-token``, loopback only) the app answers loopback ``Host`` names only.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import math
import secrets
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from starlette.datastructures import URL, FormData
from starlette.exceptions import HTTPException
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp

from paperbrief.environment import is_loopback
from paperbrief.profile import TEMPLATE_NAME, ceiling_settings, line_of, protected_settings
from paperbrief.web.tokens import (
    SESSION_DAYS,
    Throttle,
    session_cookie,
    session_valid,
    weakness,
)

SESSION_COOKIE = "paperbrief_session"  # signed by the token, never the token itself
CSRF_COOKIE = "paperbrief_csrf"
CSRF_FIELD = "csrf"

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' https: data:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self'; frame-src 'self'; frame-ancestors 'self'; form-action 'self'; "
    "base-uri 'none'; object-src 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "SAMEORIGIN",
    "Cache-Control": "no-store",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


def secured(response: Response) -> Response:
    """``response`` with every security header it does not set itself."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


async def verified_form(request: Request) -> FormData:
    """The POSTed form, after checking its CSRF field against the session cookie.

    Raises HTTPException(403) on a missing or wrong token. (Checked here, not in the
    middleware, because a form read in a BaseHTTPMiddleware is gone for the endpoint.)
    """
    cookie = request.cookies.get(CSRF_COOKIE) or ""
    form = await request.form()
    sent = str(form.get(CSRF_FIELD) or "")
    if len(cookie) < 32 or not hmac.compare_digest(sent.encode(), cookie.encode()):
        raise HTTPException(403, "CSRF token missing or wrong; reload the page and try again")
    return form


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_mtime_ns, found.st_ino


def _host_name(header: str) -> str:
    return urlsplit(f"//{header}").hostname or ""


class AccessMiddleware(BaseHTTPMiddleware):
    """Host check, token check, CSRF check and security headers (see module docstring).

    ``token`` is the access token (None: loopback hosts only); ``secure`` marks the session
    cookie ``Secure`` (set when the UI is bound beyond loopback, where it must be behind
    HTTPS); ``where`` says on the login page where the token comes from.
    """

    def __init__(
        self,
        app: ASGIApp,
        token: str | None = None,
        secure: bool = False,
        where: str = "",
        token_file: Path | None = None,
        readers: Callable[[str], Mapping[str, str]] | None = None,
    ) -> None:
        super().__init__(app)
        self.token = token or None
        # Several readers (web.readers): ``readers(owner token)`` maps each reader's token
        # to their label; the owner holds ``token``. ``request.state.reader`` says whose
        # request it is (None: the owner's).
        self._readers_of = readers
        self.readers: dict[str, str] = dict(readers(self.token)) if readers and self.token else {}
        self.secure = secure
        self.where = where
        self.throttle = Throttle()
        self.token_file = token_file if self.token else None
        self._stamp = _stamp(self.token_file) if self.token_file else None

    def _refresh(self) -> None:
        """A token kept in a file is read again when the file changes, so `paperbrief token
        rotate` takes effect at once and every session of the old token ends (a file that
        is gone, unreadable or weak leaves the token as it was)."""
        if self.token_file is None or (stamp := _stamp(self.token_file)) == self._stamp:
            return
        self._stamp = stamp
        with contextlib.suppress(OSError, UnicodeDecodeError):
            value = self.token_file.read_text(encoding="utf-8").strip()
            if value and not weakness(value):
                self.token = value
                if self._readers_of is not None:  # the readers' tokens derive from it
                    self.readers = dict(self._readers_of(value))

    def _login(self, request: Request, reason: str, status: int = 401) -> Response:
        site = request.app.state.site
        page: Response = site.login_page(request, reason, self.where, status)
        return page

    def _offered(self, request: Request) -> str | None:
        """A token the request offers in a header (None: none offered)."""
        authorization = request.headers.get("authorization", "")
        if authorization.lower().startswith("bearer "):
            return authorization[7:].strip()
        return request.headers.get("x-paperbrief-token")

    def _tokens(self) -> list[tuple[str, str]]:
        """(token, who): '' for the owner's token, a reader's label for theirs."""
        assert self.token is not None
        return [(self.token, ""), *self.readers.items()]

    def _identity(self, candidate: str) -> str | None:
        """Whose token ``candidate`` is (see ``_tokens``), None for any other."""
        found = None
        for token, who in self._tokens():  # every token compared: no early exit
            if candidate and hmac.compare_digest(candidate.encode(), token.encode()):
                found = who
        return found

    def _session_of(self, cookie: str) -> str | None:
        """Whose session ``cookie`` is (signed by their token), None for none."""
        found = None
        for token, who in self._tokens():
            if session_valid(token, cookie):
                found = who
        return found

    def _check(self, request: Request, offered: str) -> tuple[Response | None, str]:
        """(None, who) when ``offered`` is a known token; else (the refusal, '')
        (throttled: not checked)."""
        address = request.client.host if request.client else ""
        wait = self.throttle.wait(address)
        if wait > 0:
            refusal = self._login(request, "throttled", 429)
            refusal.headers["Retry-After"] = str(max(1, math.ceil(wait)))
            return refusal, ""
        who = self._identity(offered)
        if who is not None:
            self.throttle.passed(address)
            return None, who
        self.throttle.failed(address)
        return self._login(request, "wrong"), ""

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        return secured(await self._checked(request, call_next))

    async def _checked(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        self._refresh()
        host = _host_name(request.headers.get("host", ""))
        if self.token is None and not is_loopback(host):
            return PlainTextResponse(
                "paperbrief serves loopback hosts only; set PAPERBRIEF_WEB_TOKEN to serve"
                " other hosts",
                status_code=403,
            )
        # The style sheet and script hold nothing of the reader's: the login page uses them.
        public = request.url.path.startswith("/static/")
        request.state.reader = None
        if self.token is not None and not public:
            offered = request.query_params.get("token")
            if offered is not None:
                refusal, who = self._check(request, offered)
                if refusal is not None:
                    return refusal
                remaining = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
                target = URL(path=request.url.path, query=urlencode(remaining))
                response: Response = RedirectResponse(str(target), status_code=303)
                response.set_cookie(
                    SESSION_COOKIE,
                    session_cookie(offered),
                    httponly=True,
                    samesite="strict",
                    secure=self.secure,
                    max_age=SESSION_DAYS * 86400,
                )
                return response
            header = self._offered(request)
            if header is not None:
                refusal, who = self._check(request, header)
                if refusal is not None:
                    return refusal
            else:
                session = self._session_of(request.cookies.get(SESSION_COOKIE, ""))
                if session is None:
                    return self._login(request, "needed")
                who = session
            request.state.reader = who or None

        csrf = request.cookies.get(CSRF_COOKIE) or ""
        new_csrf = "" if len(csrf) >= 32 else secrets.token_urlsafe(32)
        request.state.csrf = new_csrf or csrf
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            origin = request.headers.get("origin")
            if origin and origin != "null" and _host_name(urlsplit(origin).netloc) != host:
                return PlainTextResponse("cross-origin form rejected", status_code=403)
        response = await call_next(request)
        if new_csrf:
            response.set_cookie(
                CSRF_COOKIE, new_csrf, httponly=True, samesite="strict", secure=self.secure
            )
        return response


# What the web UI's profile editor may not change, declared on the profile's fields
# (``profile.PROTECTED``): where files go, which endpoints are contacted, the names of the
# variables holding secrets, who reads and where the link points, what is published and
# which models are paid for. They are edited in the file and shown read-only. The budgets
# and retries (``profile.CEILING``) may be lowered here, never lifted.
PROTECTED_DEFAULTS: dict[str, object] = protected_settings()
PROTECTED_KEYS: tuple[str, ...] = tuple(PROTECTED_DEFAULTS)
CEILING_KEYS: frozenset[str] = ceiling_settings()


def protected_values(text: str) -> dict[str, str]:
    """The protected settings of a profile's TOML text (defaults where absent), each as
    JSON so two profiles compare exactly; an unparseable text has only the defaults."""
    try:
        data: Any = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        data = {}
    values: dict[str, str] = {}
    for key, default in PROTECTED_DEFAULTS.items():
        node: Any = data
        for part in key.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        values[key] = json.dumps(
            default if node is None else node, sort_keys=True, ensure_ascii=False
        )
    return values


def _limit(encoded: str) -> float:
    """A ceiling's value as a number to compare; 0 (no limit) and nonsense are the highest."""
    value = json.loads(encoded)
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return float("inf")
    return float(value)


@dataclass(frozen=True)
class LockedChange:
    """A protected setting the editor's text changes: ``ceiling`` when only a raise of a
    budget is refused (lowering it is allowed)."""

    key: str
    line: int | None
    ceiling: bool = False
    before: str = ""  # the value it may not exceed, as JSON


def changed_protected(before: str, after: str) -> list[LockedChange]:
    """One change per protected key whose value ``after`` changes (see PROTECTED_KEYS), but
    a ceiling lowered, and the template's placeholder name replaced by a real one (the
    editor creating the first profile)."""
    old, new = protected_values(before), protected_values(after)
    found = []
    for key in PROTECTED_KEYS:
        if old[key] == new[key]:
            continue
        if key in CEILING_KEYS:
            if _limit(new[key]) <= _limit(old[key]):
                continue
            found.append(LockedChange(key, line_of(key, after), True, old[key]))
            continue
        if key == "name" and json.loads(old[key]) in (None, TEMPLATE_NAME):
            continue
        found.append(LockedChange(key, line_of(key, after)))
    return found
