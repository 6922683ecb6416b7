"""Send one digest to every configured channel, each exactly once.

Contract of ``deliver_digest``: the digest files are already on disk; every configured
channel (or the ones named) is tried independently. A channel the journal records as sent
is skipped unless ``force``; a failure is recorded with its error, reported in the result,
and retried by the next run. No channel's failure stops the others.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from functools import partial
from pathlib import Path
from typing import Literal, Protocol
from urllib.parse import quote

from paperbrief.deliver.blog import write_blog_post
from paperbrief.deliver.feed import AtomEntry, build_atom_feed, write_feed
from paperbrief.deliver.mail import SmtpSender, build_email
from paperbrief.deliver.message import Announcement, announcement_from_digest, digest_link
from paperbrief.deliver.webhooks import WebhookSender
from paperbrief.errors import DeliveryError
from paperbrief.profile import DeliverySettings, Profile, WebhookSettings
from paperbrief.records import DeliveryStatus, StoredDigest


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
class Outgoing:
    """Everything a channel may send for one digest."""

    digest_date: date
    markdown: str
    html: str
    announcement: Announcement


class DeliveryJournal(Protocol):
    """Where each channel's outcome is kept (the store's ``deliveries`` part)."""

    def status(self, digest_date: date, channel: str) -> DeliveryStatus | None: ...

    def record(
        self, digest_date: date, channel: str, ok: bool, error: str | None = None
    ) -> DeliveryStatus: ...


class DigestArchive(Protocol):
    """Earlier digests the feed lists (the store's ``digests`` part)."""

    def recent(self, limit: int) -> list[StoredDigest]: ...


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


def _feed_entries(archive: DigestArchive, profile: Profile, post: Outgoing) -> list[AtomEntry]:
    settings = profile.delivery
    current = AtomEntry(
        digest_date=post.digest_date,
        language=post.announcement.language,
        title=post.announcement.title,
        summary=post.announcement.description or post.announcement.summary,
        html=post.html,
        link=post.announcement.link,
    )
    entries = [current]
    for stored in archive.recent(settings.feed.size + 1):
        if (stored.digest_date, stored.language) == (current.digest_date, current.language):
            continue
        announcement = announcement_from_digest(stored.digest)
        entries.append(
            AtomEntry(
                digest_date=stored.digest_date,
                language=stored.language,
                title=stored.title,
                summary=announcement.description or announcement.summary,
                html=stored.html,
                link=digest_link(settings.link, stored.digest_date),
                updated=stored.created_at,
            )
        )
    entries.sort(key=lambda entry: (entry.digest_date, entry.language), reverse=True)
    return entries[: settings.feed.size]


def _senders(
    archive: DigestArchive, profile: Profile, post: Outgoing, environ: Mapping[str, str]
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
            _feed_entries(archive, profile, post),
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


def _send_webhook(hook: WebhookSettings, post: Outgoing, environ: Mapping[str, str]) -> str:
    url = hook.url
    if hook.url_env:
        url = environ.get(hook.url_env) or url or _secret(environ, hook.url_env, "webhook URL")
    secret = _secret(environ, hook.secret_env, "webhook secret") if hook.secret_env else ""
    sender = WebhookSender(hook.kind, url, secret, max_chars=hook.max_chars, timeout=hook.timeout)
    return sender.send(post.announcement)


def deliver_digest(
    stored: StoredDigest,
    profile: Profile,
    journal: DeliveryJournal,
    archive: DigestArchive,
    *,
    channels: list[str] | None = None,
    force: bool = False,
    environ: Mapping[str, str] = os.environ,
) -> list[DeliveryResult]:
    """Send a published digest to its channels; see the module docstring for the contract."""
    link = digest_link(profile.delivery.link, stored.digest_date)
    post = Outgoing(
        stored.digest_date,
        stored.markdown,
        stored.html,
        announcement_from_digest(stored.digest, link),
    )
    senders = _senders(archive, profile, post, environ)
    wanted = list(senders) if channels is None else channels
    unknown = [name for name in wanted if name not in senders]
    if unknown:
        raise DeliveryError(
            f"unknown or unconfigured channel(s): {', '.join(unknown)}",
            f"configured: {', '.join(senders) or 'none'}; see [delivery] in the profile",
        )
    results = []
    for name in wanted:
        status = journal.status(post.digest_date, name)
        if status is not None and status.sent and not force:
            results.append(
                DeliveryResult(name, "already-sent", f"sent {status.sent_at}", status.attempts)
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
            recorded = journal.record(post.digest_date, name, ok=False, error=message)
            results.append(DeliveryResult(name, "failed", message, recorded.attempts))
        else:
            recorded = journal.record(post.digest_date, name, ok=True)
            results.append(DeliveryResult(name, "sent", detail, recorded.attempts))
    return results
