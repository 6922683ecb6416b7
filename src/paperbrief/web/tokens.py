"""The web UI's access token: where it comes from, how strong it must be, the session cookie
it signs, and the throttle on wrong guesses.

* **Where it comes from** (``Token``): ``$PAPERBRIEF_WEB_TOKEN`` when set, else the file
  ``$PAPERBRIEF_HOME/web-token`` (mode 0600, made on first use), so a bookmark on the
  phone survives restarts until `paperbrief token rotate` writes a new one (a running UI
  reads the file again when it changes: ``web.security.AccessMiddleware``).
* **Strength** (``weakness``): at least 16 characters and about 64 bits by its alphabet; a
  16-character token of one repeated letter is refused.
* **The cookie** (``session_cookie`` / ``session_valid``): never the token itself, but
  ``<issued>.<HMAC-SHA256(token, issued)>``. It expires on the server after
  ``SESSION_DAYS`` whatever the browser keeps, and rotating the token ends every session.
* **Throttle** (``Throttle``): after a few wrong tokens from one client address its next
  tries wait, doubling up to ``MAX_LOCKOUT`` seconds; and at most ``GLOBAL_PER_SECOND``
  wrong tries a second are checked across all clients. A throttled try is not checked at
  all (answered 429), so guessing faster learns nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import math
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from paperbrief.environment import WEB_TOKEN_ENV
from paperbrief.errors import ServeError

TOKEN_FILE = "web-token"
MIN_LENGTH = 16
MIN_BITS = 64
SESSION_DAYS = 30
FREE_FAILURES = 5  # wrong tries from one address before it must wait
MAX_LOCKOUT = 300.0
GLOBAL_PER_SECOND = 10


def weakness(token: str) -> str:
    """Why ``token`` is too weak to guard the UI ('' when it is strong enough)."""
    if len(token) < MIN_LENGTH:
        return f"it has {len(token)} characters; use at least {MIN_LENGTH} random ones"
    distinct = len(set(token))
    bits = len(token) * math.log2(distinct) if distinct > 1 else 0.0
    if bits < MIN_BITS or distinct < 6:
        return (
            f"it is too predictable ({distinct} distinct characters, about {bits:.0f} bits);"
            " use a random one (`paperbrief token rotate` makes one)"
        )
    return ""


@dataclass(frozen=True)
class Token:
    """The token the UI is served with, and where it came from (said on the login page)."""

    value: str
    source: str  # "env" | "file"
    path: Path | None = None

    def where(self) -> str:
        return f"${WEB_TOKEN_ENV}" if self.source == "env" else str(self.path)


def token_path(home: Path) -> Path:
    return home / TOKEN_FILE


def _write_private(path: Path, value: str) -> None:
    """``value`` into ``path`` atomically, readable by its owner only (0600 from creation)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(value + "\n")
        stream.flush()
        os.fsync(stream.fileno())
    os.replace(temporary, path)


def load_token(home: Path, environ: dict[str, str] | None = None) -> Token:
    """The env token, else the stored one (made and stored when there is none yet).

    Raises ``ServeError`` for a weak token, or when the stored one cannot be read or written.
    """
    env = os.environ if environ is None else environ
    if env.get(WEB_TOKEN_ENV):
        token = Token(env[WEB_TOKEN_ENV], "env")
    else:
        path = token_path(home)
        try:
            value = path.read_text(encoding="utf-8").strip() if path.is_file() else ""
            if not value:
                value = secrets.token_urlsafe(32)
                _write_private(path, value)
        except OSError as error:
            raise ServeError(
                f"cannot keep the web UI's token in {path}: {error.strerror or error}",
                f"make {home} writable, or export {WEB_TOKEN_ENV}",
            ) from error
        token = Token(value, "file", path)
    problem = weakness(token.value)
    if problem:
        raise ServeError(
            f"the web UI's token from {token.where()} is too weak: {problem}",
            "`paperbrief token rotate` makes a strong one"
            if token.source == "file"
            else f"export a stronger {WEB_TOKEN_ENV}",
        )
    return token


def rotate_token(home: Path) -> Token:
    """A new random token in the home's token file; every session of the old one ends."""
    path = token_path(home)
    value = secrets.token_urlsafe(32)
    try:
        _write_private(path, value)
    except OSError as error:
        raise ServeError(
            f"cannot write {path}: {error.strerror or error}", f"make {home} writable"
        ) from error
    return Token(value, "file", path)


def _signature(token: str, issued: int) -> str:
    key = hashlib.sha256(b"paperbrief-session\0" + token.encode("utf-8")).digest()
    return hmac.new(key, str(issued).encode(), hashlib.sha256).hexdigest()


def session_cookie(token: str, now: float | None = None) -> str:
    """A session value signed by ``token``: its issue time and the signature, not the token."""
    issued = int(time.time() if now is None else now)
    return f"{issued}.{_signature(token, issued)}"


def session_valid(token: str, cookie: str, now: float | None = None) -> bool:
    """Whether ``cookie`` was signed by ``token`` less than ``SESSION_DAYS`` ago."""
    issued_text, _, signature = cookie.partition(".")
    if not issued_text.isdigit() or not signature:
        return False
    issued = int(issued_text)
    age = (time.time() if now is None else now) - issued
    if age < -60 or age > SESSION_DAYS * 86400:
        return False
    return hmac.compare_digest(signature.encode(), _signature(token, issued).encode())


class Throttle:
    """Wrong-token tries: per client address, and across all (module docstring)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._failures: dict[str, tuple[int, float]] = {}  # address -> (count, wait until)
        self._second = 0
        self._checked = 0

    def wait(self, address: str) -> float:
        """Seconds ``address`` must wait before its token is checked (0: check it now)."""
        now = self._clock()
        _, until = self._failures.get(address, (0, 0.0))
        if until > now:
            return until - now
        second = int(now)
        if second != self._second:
            self._second, self._checked = second, 0
        if self._checked >= GLOBAL_PER_SECOND:
            return 1.0
        return 0.0

    def failed(self, address: str) -> None:
        """A wrong token from ``address``: count it, and make it wait once past the free tries."""
        now = self._clock()
        self._checked += 1
        count, _ = self._failures.get(address, (0, 0.0))
        count += 1
        lockout = 0.0
        if count > FREE_FAILURES:
            lockout = min(MAX_LOCKOUT, 2.0 ** (count - FREE_FAILURES - 1))
        if len(self._failures) > 10_000:  # bounded memory under many addresses
            self._failures.clear()
        self._failures[address] = (count, now + lockout)

    def passed(self, address: str) -> None:
        self._failures.pop(address, None)
