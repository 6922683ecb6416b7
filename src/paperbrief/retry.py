"""The one retry policy of every network client (arXiv, full text, the LLM endpoint).

A transient failure (a retryable status, a timeout, a dropped connection, an unusable
answer) is retried at most ``max_retries`` times. The wait before retry ``n`` (0-based) is
``backoff_base * 2**n`` capped at ``max_backoff``; a server's ``Retry-After`` (seconds or an
HTTP date) replaces it, capped at ``max_retry_after``.
"""

from __future__ import annotations

import email.utils
from dataclasses import dataclass, field
from datetime import UTC, datetime

# 408 Request Timeout, 429 Too Many Requests and the 5xx a proxy or an overloaded server
# sends. Anything else in 4xx means the request itself is wrong: retrying cannot help.
RETRYABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long a client retries (see the module docstring)."""

    max_retries: int = 4
    backoff_base: float = 2.0
    max_backoff: float = 60.0
    max_retry_after: float = 120.0
    retryable_statuses: frozenset[int] = field(default=RETRYABLE_STATUSES)

    def __post_init__(self) -> None:
        if self.max_retries < 0 or self.backoff_base < 0 or self.max_backoff < 0:
            raise ValueError("max_retries, backoff_base and max_backoff must be >= 0")

    @property
    def attempts(self) -> int:
        """Attempts in total: the first plus the retries."""
        return self.max_retries + 1

    def retryable(self, status: int) -> bool:
        return status in self.retryable_statuses

    def wait(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt ``attempt`` (0-based)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        return min(self.backoff_base * (2**attempt), self.max_backoff)


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date)."""
    if not value:
        return None
    text = value.strip()
    try:
        return max(float(text), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    reference = now or datetime.now(UTC)
    return max((when - reference).total_seconds(), 0.0)
