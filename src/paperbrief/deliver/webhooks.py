"""Chat webhooks: Feishu/Lark, Slack, DingTalk, WeCom, Discord and a generic JSON POST.

Each platform gets a short message (``message.compose_message``) inside its own payload
shape, signed where the platform signs, and kept under the platform's size limit.
``WebhookSender`` takes the endpoint as a constructor argument; a clock is injectable so
signatures can be recomputed in tests.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import httpx

from paperbrief import __version__
from paperbrief.deliver.message import (
    MARKDOWN,
    MARKDOWN_BYTES,
    SLACK,
    Announcement,
    Dialect,
    compose_message,
)
from paperbrief.errors import DeliveryError, DeliveryUnknown
from paperbrief.transport import Deadline, bounded_client, describe, within

# Platform limits on the message text, with a margin for the JSON around it:
# Feishu custom bots take 20 KB request bodies, DingTalk 20,000 bytes of markdown,
# WeCom 4,096 bytes of markdown, Discord 2,000 characters of content, and Slack
# truncates a message's text after 4,000 characters.
LIMITS: dict[str, tuple[Dialect, int]] = {
    "feishu": (MARKDOWN_BYTES, 18_000),
    "dingtalk": (MARKDOWN_BYTES, 18_000),
    "wecom": (MARKDOWN_BYTES, 4_000),
    "slack": (SLACK, 3_900),
    "discord": (MARKDOWN, 2_000),
    "generic": (MARKDOWN, 20_000),
}

SIGNATURE_HEADER = "X-Paperbrief-Signature"
IDEMPOTENCY_HEADER = "Idempotency-Key"  # the same on every attempt of one digest's message
MAX_ANSWER_BYTES = 64 * 1024  # a webhook's answer is a few bytes of JSON


def feishu_sign(timestamp: int, secret: str) -> str:
    """Feishu/Lark custom bot signature: HMAC-SHA256 keyed by ``"{timestamp}\\n{secret}"``."""
    key = f"{timestamp}\n{secret}".encode()
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()


def dingtalk_sign(timestamp_ms: int, secret: str) -> str:
    """DingTalk robot signature: HMAC-SHA256 of ``"{timestamp}\\n{secret}"`` keyed by secret."""
    message = f"{timestamp_ms}\n{secret}".encode()
    return base64.b64encode(hmac.new(secret.encode(), message, hashlib.sha256).digest()).decode()


def generic_sign(body: bytes, secret: str) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def build_payload(
    kind: str, announcement: Announcement, limit: int | None = None, key: str = ""
) -> dict[str, Any]:
    """The JSON body a platform expects (unsigned). ``limit`` overrides the platform's cap;
    ``key`` (the idempotency key) is part of the generic payload as ``delivery_id``."""
    if kind not in LIMITS:
        raise DeliveryError(
            f"unknown webhook kind {kind!r}", f"use one of {', '.join(sorted(LIMITS))}"
        )
    dialect, platform_limit = LIMITS[kind]
    text = compose_message(announcement, dialect, min(limit or platform_limit, platform_limit))
    title = announcement.title
    if kind == "feishu":
        return {
            "msg_type": "interactive",
            "card": {
                "config": {"wide_screen_mode": True},
                "header": {"title": {"tag": "plain_text", "content": title}},
                "elements": [{"tag": "markdown", "content": text}],
            },
        }
    if kind == "slack":
        return {"text": text, "unfurl_links": False, "unfurl_media": False}
    if kind == "dingtalk":
        return {"msgtype": "markdown", "markdown": {"title": title, "text": text}}
    if kind == "wecom":
        return {"msgtype": "markdown", "markdown": {"content": text}}
    if kind == "discord":
        return {"content": text, "allowed_mentions": {"parse": []}}
    return {
        "delivery_id": key,
        "date": announcement.digest_date.isoformat(),
        "title": title,
        "summary": announcement.summary,
        "link": announcement.link,
        "papers": [{**asdict(paper), "url": paper.url} for paper in announcement.papers],
        "text": text,
    }


def _platform_error(kind: str, answer: bytes) -> str | None:
    """Feishu, DingTalk and WeCom answer HTTP 200 with an error code in the body."""
    if kind not in ("feishu", "dingtalk", "wecom"):
        return None
    try:
        data = json.loads(answer)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    code = data.get("code", data.get("errcode", data.get("StatusCode", 0)))
    if code in (0, None):
        return None
    message = data.get("msg") or data.get("errmsg") or data.get("StatusMessage") or ""
    return f"{kind} answered error {code}: {message}"


class WebhookSender:
    """Posts one announcement to one webhook.

    ``url`` is the endpoint (a constructor argument, so tests point it at a loopback
    server); ``secret`` signs where the platform signs (Feishu body fields, DingTalk URL
    parameters, generic ``X-Paperbrief-Signature: sha256=<hex>``). Every request carries
    ``Idempotency-Key: <key>`` (the same key on every attempt of one digest's message), so
    a receiver can drop a repeat. ``timeout`` bounds the whole POST, however slowly the
    answer arrives. ``send`` raises ``DeliveryUnknown`` when the POST broke after it may
    have reached the receiver (a timeout waiting for the answer, a dropped connection), and
    ``DeliveryError`` when it certainly did not arrive or was refused (connection errors,
    non-2xx status, platform error code). Redirects are not followed.
    """

    def __init__(
        self,
        kind: str,
        url: str,
        secret: str = "",
        *,
        max_chars: int = 0,
        timeout: float = 15.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not url.startswith(("https://", "http://")):
            raise DeliveryError(
                f"{kind} webhook URL is not an http(s) URL", "check the url or url_env setting"
            )
        self.kind = kind
        self.url = url
        self.secret = secret
        self.max_chars = max_chars
        self.timeout = timeout
        self.clock = clock

    def prepare(
        self, announcement: Announcement, key: str = ""
    ) -> tuple[str, bytes, dict[str, str]]:
        """The signed request: URL, JSON body bytes and headers."""
        payload = build_payload(self.kind, announcement, self.max_chars or None, key)
        url = self.url
        if self.secret and self.kind == "feishu":
            timestamp = int(self.clock())
            payload = {
                "timestamp": str(timestamp),
                "sign": feishu_sign(timestamp, self.secret),
                **payload,
            }
        elif self.secret and self.kind == "dingtalk":
            timestamp_ms = int(self.clock() * 1000)
            query = urllib.parse.urlencode(
                {"timestamp": timestamp_ms, "sign": dingtalk_sign(timestamp_ms, self.secret)}
            )
            url = f"{url}{'&' if '?' in url else '?'}{query}"
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        headers = {
            "Content-Type": "application/json; charset=utf-8",
            "User-Agent": f"paperbrief/{__version__}",
        }
        if self.secret and self.kind == "generic":
            headers[SIGNATURE_HEADER] = generic_sign(body, self.secret)
        if key:
            headers[IDEMPOTENCY_HEADER] = key
        return url, body, headers

    def send(self, announcement: Announcement, key: str = "") -> str:
        url, body, headers = self.prepare(announcement, key)
        limit = Deadline.after(self.timeout, f"the {self.kind} webhook POST")
        try:
            with (
                bounded_client(timeout=self.timeout, max_connections=1, keepalive=False) as client,
                within(limit),
                client.stream("POST", url, content=body, headers=headers) as response,
            ):
                answer = _read_some(response)
        except httpx.HTTPError as error:
            failure = describe(error, timeout=self.timeout, deadline=limit)
            if failure.sent:
                raise DeliveryUnknown(
                    f"{self.kind} webhook: {failure.description} after the message was sent;"
                    " it may have been delivered",
                    "check the chat; `paperbrief send --retry-unknown` sends it again (with the"
                    " same Idempotency-Key)",
                ) from error
            raise DeliveryError(
                f"{self.kind} webhook unreachable: {failure.description}",
                "check the network and the webhook URL; the next run retries",
            ) from error
        if response.status_code >= 300:
            raise DeliveryError(
                f"{self.kind} webhook answered HTTP {response.status_code}:"
                f" {answer.decode('utf-8', 'replace')[:200]}",
                "the next run retries; check the URL and secret if it persists",
            )
        problem = _platform_error(self.kind, answer)
        if problem:
            raise DeliveryError(problem, "check the webhook's secret and keyword settings")
        return f"{self.kind}: HTTP {response.status_code}, {len(body)} bytes"


def _read_some(response: httpx.Response) -> bytes:
    """At most MAX_ANSWER_BYTES of the answer (a receiver's reply is tiny)."""
    data = b""
    for chunk in response.iter_bytes():
        data += chunk
        if len(data) >= MAX_ANSWER_BYTES:
            break
    return data[:MAX_ANSWER_BYTES]
