"""Send one digest to every configured channel: exactly once where the receiver allows it,
at most once otherwise, and always said.

Contract of ``deliver_digest``: the digest files are already on disk; every configured
channel (or the ones named) is tried independently, and no channel's failure stops the
others. The journal (``DeliveryJournal``, the store's ``deliveries``) is written before
each send (``intent``) and after it (``sent`` / ``failed`` / ``unknown``); e-mail is
journalled per recipient. On the next call:

* ``sent`` is skipped (unless ``force``);
* ``failed`` (certainly not delivered) is sent again;
* ``unknown`` (a timeout after the request went out, a connection broken while the mail's
  content was on its way) is never sent again unasked: it is reported, with the hint to
  run ``paperbrief send --retry-unknown`` (or ``force``);
* an ``intent`` left behind means the sender died mid-send (the caller holds the run lock,
  so no live process owns it): the blog post and the feed are files, rewriting them is
  harmless, so they are retried; an e-mail or a webhook becomes ``unknown``.

Every attempt of one message carries the same key (a Message-ID per digest and
recipient, an ``Idempotency-Key`` per digest and webhook), so a receiver that deduplicates
drops a repeat.
"""

from __future__ import annotations

import copy
import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Literal, Protocol
from urllib.parse import quote

from paperbrief.deliver.blog import write_blog_post
from paperbrief.deliver.feed import AtomEntry, build_atom_feed, write_feed
from paperbrief.deliver.mail import RecipientOutcome, SmtpSender, build_email
from paperbrief.deliver.message import Announcement, announcement_from_digest, digest_link
from paperbrief.deliver.webhooks import WebhookSender
from paperbrief.errors import DeliveryError, DeliveryUnknown
from paperbrief.profile import DeliverySettings, Profile, WebhookSettings, channels_of
from paperbrief.records import DeliveryStatus, StoredDigest

# given-up: an earlier day's channel past the retry window, reported (``pending.given_up``)
Status = Literal["sent", "already-sent", "failed", "unknown", "given-up"]
RETRY_UNKNOWN_HINT = "paperbrief send --date {date} --retry-unknown"


@dataclass(frozen=True)
class DeliveryResult:
    channel: str
    status: Status
    detail: str = ""  # where it went, or the error and its hint
    attempts: int = 0  # attempts recorded in the journal so far
    digest_date: date | None = None

    @property
    def ok(self) -> bool:
        return self.status in ("sent", "already-sent")


@dataclass(frozen=True)
class Outgoing:
    """Everything a channel may send for one digest."""

    digest_date: date
    markdown: str
    html: str
    announcement: Announcement
    profile: str


class DeliveryJournal(Protocol):
    """Where each send is written before and after it happens (the store's deliveries)."""

    def targets(self, digest_date: date, channel: str, profile: str) -> list[DeliveryStatus]: ...

    def intend(
        self, digest_date: date, channel: str, *, key: str, profile: str = "", target: str = ""
    ) -> DeliveryStatus: ...

    def settle(
        self,
        digest_date: date,
        channel: str,
        status: str,
        *,
        profile: str = "",
        target: str = "",
        error: str | None = None,
        detail: str = "",
    ) -> DeliveryStatus: ...


class DigestArchive(Protocol):
    """Earlier digests the feed lists (the store's ``digests`` part)."""

    def recent(self, limit: int, profile: str | None = None) -> list[StoredDigest]: ...


def delivery_key(profile: str, digest_date: date, channel: str, target: str = "") -> str:
    """The key every attempt of one message carries (stable: derived, not random)."""
    blob = "\x1f".join((profile, digest_date.isoformat(), channel, target))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]


def message_id(key: str, sender: str) -> str:
    domain = sender.rpartition("@")[2].strip("> ") or "paperbrief.local"
    return f"<paperbrief.{key}@{domain}>"


def configured_channels(settings: DeliverySettings) -> list[str]:
    """Channel names in delivery order (``profile.CHANNEL_KINDS``): blog, feed, e-mail, then
    the webhooks."""
    return [name for _, name in channels_of(settings)]


def failure_text(error: Exception) -> str:
    """A channel's failure as the journal and the report say it: a ``DeliveryError``'s own
    message, anything else with its type (it is a bug somewhere, but only this channel's)."""
    if isinstance(error, DeliveryError):
        return str(error)
    return f"{type(error).__name__}: {error}"


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
    for stored in archive.recent(settings.feed.size + 1, profile=post.profile):
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


def _file_senders(
    archive: DigestArchive, profile: Profile, post: Outgoing
) -> dict[str, Callable[[], str]]:
    """The writers of the file channels, by kind (the table says which are configured)."""
    settings = profile.delivery

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

    return {"blog": blog, "feed": feed}


def _send_webhook(
    hook: WebhookSettings, post: Outgoing, environ: Mapping[str, str], key: str
) -> str:
    url = hook.url
    if hook.url_env:
        url = environ.get(hook.url_env) or url or _secret(environ, hook.url_env, "webhook URL")
    secret = _secret(environ, hook.secret_env, "webhook secret") if hook.secret_env else ""
    sender = WebhookSender(hook.kind, url, secret, max_chars=hook.max_chars, timeout=hook.timeout)
    return sender.send(post.announcement, key)


class _Delivery:
    """One call of ``deliver_digest``: the journal around every send."""

    def __init__(
        self,
        journal: DeliveryJournal,
        post: Outgoing,
        *,
        force: bool,
        retry_unknown: bool,
    ) -> None:
        self.journal = journal
        self.post = post
        self.force = force
        self.retry_unknown = retry_unknown

    def _hint(self) -> str:
        return RETRY_UNKNOWN_HINT.format(date=self.post.digest_date.isoformat())

    def _blocked(self, row: DeliveryStatus | None, idempotent: bool) -> DeliveryStatus | None:
        """The row to report instead of sending (already sent, or unknown); None: send."""
        if row is None or row.status == "failed" or self.force:
            return None
        if row.status == "intent":
            if idempotent:
                return None
            row = self.journal.settle(
                self.post.digest_date,
                row.channel,
                "unknown",
                profile=self.post.profile,
                target=row.target,
                error="the sender stopped mid-send (killed or crashed); it may have been delivered",
            )
        if row.status == "unknown" and self.retry_unknown:
            return None
        return row  # sent, or unknown

    def _report(self, row: DeliveryStatus) -> DeliveryResult:
        if row.status == "sent":
            return DeliveryResult(
                row.channel, "already-sent", f"sent {row.sent_at}", row.attempts, row.digest_date
            )
        return DeliveryResult(
            row.channel,
            "unknown",
            f"{row.label}: not sent again — {row.last_error or 'may have been delivered'};"
            f" `{self._hint()}` sends it again",
            row.attempts,
            row.digest_date,
        )

    def one(self, channel: str, idempotent: bool, send: Callable[[str], str]) -> DeliveryResult:
        """A channel with one receiver (blog, feed, a webhook)."""
        post = self.post
        rows = {
            row.target: row for row in self.journal.targets(post.digest_date, channel, post.profile)
        }
        blocked = self._blocked(rows.get(""), idempotent)
        if blocked is not None:
            return self._report(blocked)
        key = delivery_key(post.profile, post.digest_date, channel)
        intent = self.journal.intend(post.digest_date, channel, key=key, profile=post.profile)
        try:
            detail = send(intent.key or key)
        except DeliveryUnknown as error:
            row = self.journal.settle(
                post.digest_date, channel, "unknown", profile=post.profile, error=str(error)
            )
            return DeliveryResult(channel, "unknown", f"{error}", row.attempts, post.digest_date)
        # One channel's failure must never block the others, whatever it raised.
        except Exception as error:
            message = failure_text(error)
            row = self.journal.settle(
                post.digest_date, channel, "failed", profile=post.profile, error=message
            )
            return DeliveryResult(channel, "failed", message, row.attempts, post.digest_date)
        row = self.journal.settle(
            post.digest_date, channel, "sent", profile=post.profile, detail=detail
        )
        return DeliveryResult(channel, "sent", detail, row.attempts, post.digest_date)

    def email(self, profile: Profile, environ: Mapping[str, str]) -> DeliveryResult:
        """E-mail: one message (and one journal row, one Message-ID) per recipient."""
        post, mail = self.post, profile.delivery.email
        rows = {
            row.target: row for row in self.journal.targets(post.digest_date, "email", post.profile)
        }
        legacy = rows.get("")  # a row from before recipients were journalled one by one
        if legacy is not None and legacy.sent and not self.force:
            return self._report(legacy)
        pending: list[str] = []
        reports: list[DeliveryStatus] = []
        for recipient in dict.fromkeys(mail.to):
            blocked = self._blocked(rows.get(recipient), idempotent=False)
            if blocked is None:
                pending.append(recipient)
            else:
                reports.append(blocked)
        outcomes: list[RecipientOutcome] = []
        if pending:
            try:
                outcomes = self._send_mail(profile, pending, environ)
            # Whatever building or sending the message raised (a ValueError from a header
            # the profile check let through), it is this channel's failure, journalled per
            # recipient; the channels after e-mail still get their send.
            except Exception as error:
                outcomes = [RecipientOutcome(r, "failed", failure_text(error)) for r in pending]
        for outcome in outcomes:
            if outcome.status == "failed":  # it failed before its DATA: count the attempt
                key = delivery_key(post.profile, post.digest_date, "email", outcome.recipient)
                self.journal.intend(
                    post.digest_date,
                    "email",
                    key=key,
                    profile=post.profile,
                    target=outcome.recipient,
                )
            self.journal.settle(
                post.digest_date,
                "email",
                outcome.status,
                profile=post.profile,
                target=outcome.recipient,
                detail=outcome.detail,
                error=None if outcome.status == "sent" else outcome.detail,
            )
        return self._email_result(outcomes, reports)

    def _send_mail(
        self, profile: Profile, recipients: Sequence[str], environ: Mapping[str, str]
    ) -> list[RecipientOutcome]:
        post, mail = self.post, profile.delivery.email
        password = _secret(environ, mail.password_env, "SMTP password") if mail.username else ""
        subject = mail.subject.replace("{title}", post.announcement.title).replace(
            "{date}", post.digest_date.isoformat()
        )
        subject = " ".join(subject.split())  # a header is one line, whatever the title held
        template = build_email(subject, mail.sender, list(mail.to), post.markdown, post.html)
        messages = []
        for recipient in recipients:
            message = copy.deepcopy(template)
            key = delivery_key(post.profile, post.digest_date, "email", recipient)
            message.replace_header("Message-ID", message_id(key, mail.sender))
            messages.append((recipient, message))
        sender = SmtpSender(
            mail.smtp_host,
            mail.smtp_port,
            mail.security,
            mail.username,
            password,
            ca_file=mail.ca_file,
            timeout=mail.timeout,
        )

        def before_data(recipient: str) -> None:
            key = delivery_key(post.profile, post.digest_date, "email", recipient)
            self.journal.intend(
                post.digest_date, "email", key=key, profile=post.profile, target=recipient
            )

        return sender.send(messages, before_data)

    def _email_result(
        self, outcomes: list[RecipientOutcome], reports: list[DeliveryStatus]
    ) -> DeliveryResult:
        post = self.post
        rows = self.journal.targets(post.digest_date, "email", post.profile)
        attempts = max((row.attempts for row in rows), default=0)
        parts = [f"{o.recipient}: {o.status} ({o.detail})" for o in outcomes]
        parts += [self._report(row).detail for row in reports if row.status != "sent"]
        already = [row for row in reports if row.status == "sent"]
        if already:
            parts.append(f"{len(already)} already sent")
        statuses = {o.status for o in outcomes} | {row.status for row in reports}
        status: Status
        if "unknown" in statuses:
            status = "unknown"
        elif "failed" in statuses:
            status = "failed"
        elif outcomes:
            status = "sent"
        else:
            status = "already-sent"
        if "unknown" in {o.status for o in outcomes}:
            parts.append(f"`{self._hint()}` sends the unknown ones again")
        return DeliveryResult("email", status, "; ".join(parts), attempts, post.digest_date)


def deliver_digest(
    stored: StoredDigest,
    profile: Profile,
    journal: DeliveryJournal,
    archive: DigestArchive,
    *,
    channels: list[str] | None = None,
    force: bool = False,
    retry_unknown: bool = False,
    environ: Mapping[str, str] = os.environ,
) -> list[DeliveryResult]:
    """Send a published digest to its channels; see the module docstring for the contract.

    ``force`` sends every channel again, sent ones included (`paperbrief send`);
    ``retry_unknown`` sends the unknown ones again too (`send --retry-unknown`).
    """
    link = digest_link(profile.delivery.link, stored.digest_date)
    post = Outgoing(
        stored.digest_date,
        stored.markdown,
        stored.html,
        announcement_from_digest(stored.digest, link),
        profile.key,
    )
    files = _file_senders(archive, profile, post)
    hooks = {hook.channel: hook for hook in profile.delivery.webhooks}
    kinds = {name: kind for kind, name in channels_of(profile.delivery)}
    available = list(kinds)
    wanted = available if channels is None else channels
    unknown = [name for name in wanted if name not in available]
    if unknown:
        raise DeliveryError(
            f"unknown or unconfigured channel(s): {', '.join(unknown)}",
            f"configured: {', '.join(available) or 'none'}; see [delivery] in the profile",
        )
    delivery = _Delivery(journal, post, force=force, retry_unknown=retry_unknown)
    results = []
    for name in wanted:
        kind = kinds[name]
        if kind.kind == "email":  # one message (and journal row) per recipient
            results.append(delivery.email(profile, environ))
        elif kind.kind == "webhook":
            send = _webhook_sender(hooks[name], post, environ)
            results.append(delivery.one(name, kind.idempotent, send))
        else:
            results.append(delivery.one(name, kind.idempotent, _ignoring_key(files[name])))
    return results


def _ignoring_key(write: Callable[[], str]) -> Callable[[str], str]:
    """A file channel as a sender: writing a file again needs no idempotency key."""
    return lambda key: write()


def _webhook_sender(
    hook: WebhookSettings, post: Outgoing, environ: Mapping[str, str]
) -> Callable[[str], str]:
    return lambda key: _send_webhook(hook, post, environ, key)
