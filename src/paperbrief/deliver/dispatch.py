"""Send one digest to every configured channel, each exactly once.

Contract of ``deliver_digest``: the digest files are already on disk; every configured
channel (or the ones named) is tried independently. A channel recorded as sent in the
store is skipped unless ``force``; a failure is recorded with its error, reported in the
result, and retried by the next run. No channel's failure stops the others.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from functools import partial
from pathlib import Path
from typing import Literal
from urllib.parse import quote

from paperbrief.deliver.blog import write_blog_post
from paperbrief.deliver.feed import FeedEntry, build_atom_feed, write_feed
from paperbrief.deliver.mail import SmtpSender, build_email
from paperbrief.deliver.message import (
    Announcement,
    announcement_from_digest,
    announcement_from_json,
    digest_link,
)
from paperbrief.deliver.webhooks import WebhookSender
from paperbrief.errors import DeliveryError
from paperbrief.models import Digest
from paperbrief.profile import DeliverySettings, Profile, WebhookSettings
from paperbrief.store import Store


@dataclass(frozen=True)
class DeliveryResult:
    channel: str
    status: Literal["sent", "already-sent", "failed"]
    detail: str = ""  # where it went, or the error and its hint
    attempts: int = 0  # attempts recorded in the store so far

    @property
    def ok(self) -> bool:
        return self.status != "failed"


@dataclass(frozen=True)
class Post:
    """Everything a channel may send for one digest."""

    digest_date: date
    markdown: str
    html: str
    announcement: Announcement


def configured_channels(settings: DeliverySettings) -> list[str]:
    """Channel names in delivery order: blog, feed, e-mail, then the webhooks."""
    names = []
    if settings.blog.folder:
        names.append("blog")
    if settings.feed.path:
        names.append("feed")
    if settings.email.smtp_host:
        names.append("email")
    names.extend(hook.channel for hook in settings.webhooks)
    return names


def _secret(environ: Mapping[str, str], variable: str, what: str) -> str:
    value = environ.get(variable, "") if variable else ""
    if not value:
        raise DeliveryError(
            f"{what}: environment variable {variable or '(none configured)'} is empty",
            f"export {variable or 'the variable'} before running (secrets never live in the"
            " profile)",
        )
    return value


def _feed_entries(store: Store, profile: Profile, post: Post) -> list[FeedEntry]:
    settings = profile.delivery
    current = FeedEntry(
        digest_date=post.digest_date,
        language=post.announcement.language,
        title=post.announcement.title,
        summary=post.announcement.description or post.announcement.summary,
        html=post.html,
        link=post.announcement.link,
    )
    entries = [current]
    for row in store.list_digests(limit=settings.feed.size + 1):
        day = date.fromisoformat(row["digest_date"])
        if (day, row["language"]) == (current.digest_date, current.language):
            continue
        stored = store.load_digest(day, row["language"])
        if stored is None:
            continue
        announcement = announcement_from_json(stored["body"])
        entries.append(
            FeedEntry(
                digest_date=day,
                language=row["language"],
                title=stored["title"],
                summary=announcement.description or announcement.summary,
                html=stored["html"],
                link=digest_link(settings.link, day),
                updated=stored["created_at"],
            )
        )
    entries.sort(key=lambda entry: (entry.digest_date, entry.language), reverse=True)
    return entries[: settings.feed.size]


def _senders(
    store: Store, profile: Profile, post: Post, environ: Mapping[str, str]
) -> dict[str, Callable[[], str]]:
    """One zero-argument callable per configured channel; each raises on failure."""
    settings = profile.delivery
    senders: dict[str, Callable[[], str]] = {}

    def blog() -> str:
        return write_blog_post(
            Path(settings.blog.folder).expanduser(),
            settings.blog.filename,
            post.markdown,
            post.digest_date,
            git_commit=settings.blog.git_commit,
            commit_message=settings.blog.commit_message,
        )

    def feed() -> str:
        home = settings.link.split("{date}", 1)[0] if settings.link else ""
        document = build_atom_feed(
            _feed_entries(store, profile, post),
            title=profile.output.series or "paperbrief",
            feed_id=home or f"urn:paperbrief:feed:{quote(profile.name)}",
            home_link=home,
        )
        return write_feed(Path(settings.feed.path).expanduser(), document)

    def email() -> str:
        mail = settings.email
        password = _secret(environ, mail.password_env, "SMTP password") if mail.username else ""
        subject = mail.subject.replace("{title}", post.announcement.title).replace(
            "{date}", post.digest_date.isoformat()
        )
        message = build_email(subject, mail.sender, list(mail.to), post.markdown, post.html)
        sender = SmtpSender(
            mail.smtp_host,
            mail.smtp_port,
            mail.security,
            mail.username,
            password,
            ca_file=mail.ca_file,
            timeout=mail.timeout,
        )
        return sender.send(message)

    if settings.blog.folder:
        senders["blog"] = blog
    if settings.feed.path:
        senders["feed"] = feed
    if settings.email.smtp_host:
        senders["email"] = email
    for hook in settings.webhooks:
        senders[hook.channel] = partial(_send_webhook, hook, post, environ)
    return senders


def _send_webhook(hook: WebhookSettings, post: Post, environ: Mapping[str, str]) -> str:
    url = hook.url
    if hook.url_env:
        url = environ.get(hook.url_env) or url or _secret(environ, hook.url_env, "webhook URL")
    secret = _secret(environ, hook.secret_env, "webhook secret") if hook.secret_env else ""
    sender = WebhookSender(hook.kind, url, secret, max_chars=hook.max_chars, timeout=hook.timeout)
    return sender.send(post.announcement)


def deliver_post(
    store: Store,
    profile: Profile,
    post: Post,
    *,
    channels: list[str] | None = None,
    force: bool = False,
    environ: Mapping[str, str] = os.environ,
) -> list[DeliveryResult]:
    """Deliver an already-built post; see the module docstring for the contract."""
    senders = _senders(store, profile, post, environ)
    wanted = list(senders) if channels is None else channels
    unknown = [name for name in wanted if name not in senders]
    if unknown:
        raise DeliveryError(
            f"unknown or unconfigured channel(s): {', '.join(unknown)}",
            f"configured: {', '.join(senders) or 'none'}; see [delivery] in the profile",
        )
    results = []
    for name in wanted:
        status = store.delivery_status(post.digest_date, name)
        if status is not None and status["status"] == "sent" and not force:
            results.append(
                DeliveryResult(
                    name, "already-sent", f"sent {status['sent_at']}", status["attempts"]
                )
            )
            continue
        try:
            detail = senders[name]()
        # One channel's failure must never block the others, whatever it raised.
        except Exception as error:
            message = (
                str(error)
                if isinstance(error, DeliveryError)
                else f"{type(error).__name__}: {error}"
            )
            store.record_delivery(post.digest_date, name, ok=False, error=message)
            ok, detail = False, message
        else:
            store.record_delivery(post.digest_date, name, ok=True)
            ok = True
        row = store.delivery_status(post.digest_date, name)
        attempts = int(row["attempts"]) if row is not None else 1
        results.append(DeliveryResult(name, "sent" if ok else "failed", detail, attempts))
    return results


def deliver_digest(
    store: Store,
    profile: Profile,
    digest_date: date,
    markdown: str,
    html: str,
    digest: Digest,
    *,
    channels: list[str] | None = None,
    force: bool = False,
    environ: Mapping[str, str] = os.environ,
) -> list[DeliveryResult]:
    """Send a freshly written digest to its channels (each once; failures retried later)."""
    link = digest_link(profile.delivery.link, digest_date)
    post = Post(digest_date, markdown, html, announcement_from_digest(digest, link))
    return deliver_post(store, profile, post, channels=channels, force=force, environ=environ)


def deliver_stored(
    store: Store,
    profile: Profile,
    digest_date: date,
    *,
    channels: list[str] | None = None,
    force: bool = False,
    environ: Mapping[str, str] = os.environ,
) -> list[DeliveryResult]:
    """Deliver a digest from the store (``paperbrief send``)."""
    row = store.load_digest(digest_date, profile.language) or store.load_digest(digest_date)
    if row is None:
        raise DeliveryError(
            f"no digest stored for {digest_date.isoformat()}",
            "run `paperbrief run` for that day first, or pick a --date that has one",
        )
    link = digest_link(profile.delivery.link, digest_date)
    announcement = announcement_from_json(row["body"], link)
    post = Post(digest_date, row["markdown"], row["html"], announcement)
    return deliver_post(store, profile, post, channels=channels, force=force, environ=environ)
