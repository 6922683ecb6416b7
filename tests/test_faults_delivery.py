"""Exactly once where the receiver allows it, at most once otherwise, and always said
(see tests/faults.md): a webhook that times out after processing, one that drips its
answer, an SMTP server that accepts then answers 421 on QUIT, one that refuses some
recipients, one that drips its greeting, earlier days' failed channels, two profiles in
one home. Real loopback HTTP and SMTP servers, real SQLite."""

from __future__ import annotations

import json
import smtplib
import time
from dataclasses import replace
from datetime import date

import pytest

from paperbrief.deliver import deliver_digest, mail
from paperbrief.deliver.dispatch import delivery_key
from paperbrief.models import Digest
from paperbrief.pipeline import QuietReporter, RunOptions, deliver_published, run_day
from paperbrief.profile import DeliverySettings, EmailSettings, WebhookSettings, parse_profile
from paperbrief.render import render_html, render_markdown
from paperbrief.services import Services
from paperbrief.store import codec, open_store
from tests.support import EXAMPLE_PROFILE, FIXTURES
from tests.support.faults import RawServer, closed_port, drip, response
from tests.support.smtp import Inbox, smtp_server

DELIVER_FIXTURES = FIXTURES / "deliver"
DAY = date(2026, 5, 22)


def _sample():
    profile = parse_profile((DELIVER_FIXTURES / "profile.toml").read_text(encoding="utf-8"))
    digest = codec.decode(
        Digest, (DELIVER_FIXTURES / "digest-2026-05-22.json").read_text(encoding="utf-8")
    )
    return profile, digest


def _store_digest(store, profile, digest):
    return store.digests.save(
        digest,
        "offline",
        render_markdown(digest, profile),
        render_html(digest, profile),
        profile.key,
    )


def _deliver(store, profile, stored, **options):
    return deliver_digest(stored, profile, store.deliveries, store.digests, environ={}, **options)


def _hook(profile, url: str, timeout: float = 1.0):
    webhook = WebhookSettings(kind="generic", url=url, timeout=timeout)
    return profile.model_copy(update={"delivery": DeliverySettings(webhooks=[webhook])})


def _mail(profile, port: int, to: list[str], timeout: float = 5.0):
    settings = EmailSettings(
        smtp_host="127.0.0.1",
        smtp_port=port,
        security="none",
        sender="bot <bot@example.org>",
        to=to,
        timeout=timeout,
    )
    return profile.model_copy(update={"delivery": DeliverySettings(email=settings)})


def _keys(posts: list[bytes]) -> list[str]:
    return [
        line.split(":", 1)[1].strip()
        for post in posts
        for line in post.split(b"\r\n\r\n")[0].decode().split("\r\n")
        if line.lower().startswith("idempotency-key:")
    ]


def test_a_webhook_that_times_out_after_processing_gets_no_second_copy(tmp_path):
    posts: list[bytes] = []

    def slow(conn, request):
        posts.append(request)  # processed ...
        time.sleep(3)  # ... but the answer comes after the sender's timeout

    profile, digest = _sample()
    with RawServer(slow) as server, open_store(tmp_path / "pb.db") as store:
        profile = _hook(profile, server.url + "/hook", timeout=1.0)
        stored = _store_digest(store, profile, digest)
        (first,) = _deliver(store, profile, stored)
        assert first.status == "unknown" and "may have been delivered" in first.detail
        (rerun,) = _deliver(store, profile, stored)
        assert rerun.status == "unknown" and "--retry-unknown" in rerun.detail
        assert len(posts) == 1  # the rerun did not send it again
        (asked,) = _deliver(store, profile, stored, retry_unknown=True)
    assert len(posts) == 2 and asked.status == "unknown"  # sent on request, still no answer
    assert len(set(_keys(posts))) == 1  # the receiver can drop the repeat
    assert _keys(posts)[0] == delivery_key(profile.key, DAY, "generic")
    assert json.loads(posts[0].split(b"\r\n\r\n", 1)[1])["delivery_id"] == _keys(posts)[0]


def test_a_webhook_dripping_its_answer_is_cut_at_its_timeout(tmp_path):
    profile, digest = _sample()
    dripping = drip(response(b'{"ok":1}'), every=0.3)
    with RawServer(dripping) as server, open_store(tmp_path / "pb.db") as store:
        profile = _hook(profile, server.url + "/hook", timeout=1.0)
        started = time.monotonic()
        (result,) = _deliver(store, profile, _store_digest(store, profile, digest))
    assert time.monotonic() - started < 2.5  # the drip alone would take ~30 s
    assert result.status == "unknown"


def test_an_unreachable_webhook_is_failed_and_retried_not_unknown(tmp_path):
    profile, digest = _sample()
    with open_store(tmp_path / "pb.db") as store:
        profile = _hook(profile, f"http://127.0.0.1:{closed_port()}/hook")
        stored = _store_digest(store, profile, digest)
        (first,) = _deliver(store, profile, stored)
        (second,) = _deliver(store, profile, stored)
    assert first.status == second.status == "failed" and second.attempts == 2


def test_smtp_accepting_then_answering_421_on_quit_is_sent_once(tmp_path):
    inbox = Inbox(quit_reply="421 4.3.0 closing, try again later")
    profile, digest = _sample()
    with smtp_server(inbox) as port, open_store(tmp_path / "pb.db") as store:
        profile = _mail(profile, port, ["a@example.org"])
        stored = _store_digest(store, profile, digest)
        (first,) = _deliver(store, profile, stored)
        (again,) = _deliver(store, profile, stored)
    assert first.status == "sent" and again.status == "already-sent"
    assert len(inbox.to("a@example.org")) == 1


def test_a_partly_refused_recipient_list_never_resends_to_the_accepted(tmp_path):
    inbox = Inbox(refuse={"gone@example.org"})
    profile, digest = _sample()
    to = ["a@example.org", "gone@example.org", "b@example.org"]
    with smtp_server(inbox) as port, open_store(tmp_path / "pb.db") as store:
        profile = _mail(profile, port, to)
        stored = _store_digest(store, profile, digest)
        results = [_deliver(store, profile, stored)[0] for _ in range(3)]
        rows = {row.target: row for row in store.deliveries.targets(DAY, "email", profile.key)}
    assert [r.status for r in results] == ["failed"] * 3
    assert "gone@example.org: failed (refused: 550" in results[0].detail
    assert "2 already sent" in results[2].detail
    assert len(inbox.to("a@example.org")) == len(inbox.to("b@example.org")) == 1  # 3 runs
    assert rows["gone@example.org"].attempts == 3 and rows["a@example.org"].attempts == 1
    assert rows["a@example.org"].status == rows["b@example.org"].status == "sent"


def test_anything_escaping_the_email_channel_costs_only_email(tmp_path):
    """A header that breaks the message (planted past the profile's check, as a bug would
    let one through) raises ValueError inside the e-mail channel: e-mail fails alone, with
    a journal row per recipient, and the webhook after it is still sent."""
    posts: list[bytes] = []

    def hook(conn, request):
        posts.append(request)
        conn.sendall(response(b'{"ok": true}'))

    inbox = Inbox()
    profile, digest = _sample()
    with (
        smtp_server(inbox) as port,
        RawServer(hook) as server,
        open_store(tmp_path / "pb.db") as store,
    ):
        mail = _mail(profile, port, ["a@example.org", "b@example.org"]).delivery.email
        broken = mail.model_copy(update={"sender": "bot <bot@example.org>\nBcc: x@evil.example"})
        webhook = WebhookSettings(kind="generic", url=server.url + "/hook", timeout=2.0)
        delivery = DeliverySettings(email=broken, webhooks=[webhook])
        profile = profile.model_copy(update={"delivery": delivery})
        stored = _store_digest(store, profile, digest)
        email_result, hook_result = _deliver(store, profile, stored)
        rows = {row.target: row for row in store.deliveries.targets(DAY, "email", profile.key)}
    assert email_result.status == "failed" and "ValueError" in email_result.detail
    assert {t: r.status for t, r in rows.items()} == {
        "a@example.org": "failed",
        "b@example.org": "failed",
    }
    assert hook_result.status == "sent" and len(posts) == 1
    assert inbox.messages == []


def test_a_line_break_in_the_title_is_folded_out_of_the_subject(tmp_path):
    inbox = Inbox()
    profile, digest = _sample()
    with smtp_server(inbox) as port, open_store(tmp_path / "pb.db") as store:
        profile = _mail(profile, port, ["a@example.org"])
        digest = replace(digest, title="Day one\r\nBcc: x@evil.example")
        (result,) = _deliver(store, profile, _store_digest(store, profile, digest))
    assert result.status == "sent"
    (raw,) = inbox.to("a@example.org")
    headers = raw.split(b"\r\n\r\n", 1)[0].decode()
    assert "Subject: Day one Bcc: x@evil.example" in headers
    assert "\nBcc:" not in headers


def test_an_smtp_server_dripping_its_greeting_is_cut_at_the_timeout(tmp_path):
    profile, digest = _sample()
    greeting = drip(b"220 slow.example ESMTP hello\r\n" * 20, every=0.2)
    with RawServer(greeting) as server, open_store(tmp_path / "pb.db") as store:
        profile = _mail(profile, server.port, ["a@example.org"], timeout=1.0)
        started = time.monotonic()
        (result,) = _deliver(store, profile, _store_digest(store, profile, digest))
    assert time.monotonic() - started < 3  # the drip alone takes two minutes
    assert result.status == "failed" and "longer than its limit" in result.detail


def test_a_read_that_times_out_before_the_watchdog_is_the_same_limit():
    """On a busy machine the socket's own timeout can beat the session's watchdog (both are
    ``timeout``): smtplib then raises SMTPServerDisconnected("…: timed out"), which must read
    as the limit too, not as a server that hung up (seen once in CI under load)."""
    silent = drip(b"2", every=10.0)  # one byte of the greeting, then nothing
    with RawServer(silent) as server, pytest.raises(smtplib.SMTPServerDisconnected) as raised:
        smtplib.SMTP("127.0.0.1", server.port, timeout=0.3)
    assert "longer than its limit" in mail._describe(raised.value, mail._Watchdog(60.0))
    assert "longer than its limit" not in mail._describe(
        smtplib.SMTPServerDisconnected("Connection unexpectedly closed"), mail._Watchdog(60.0)
    )


def test_an_earlier_days_failed_channel_is_retried_by_the_next_days_run(tmp_path):
    posts: list[bytes] = []
    answers = iter([500, 200, 200])

    def hook(conn, request):
        posts.append(request)
        conn.sendall(response(b"{}", status=next(answers)))

    profile, digest = _sample()
    with RawServer(hook) as server, open_store(tmp_path / "pb.db") as store:
        profile = _hook(profile, server.url + "/hook")
        monday = _store_digest(store, profile, digest)
        (failed,) = _deliver(store, profile, monday)
        assert failed.status == "failed"
        tuesday = _store_digest(store, profile, replace(digest, digest_date=date(2026, 5, 23)))
        results = deliver_published(store, profile, tuesday, RunOptions(), QuietReporter())
        assert [(r.digest_date, r.status) for r in results] == [
            (date(2026, 5, 23), "sent"),
            (DAY, "sent"),  # Monday's channel, retried by Tuesday's run
        ]
        assert (
            deliver_published(store, profile, tuesday, RunOptions(), QuietReporter())[0].status
            == "already-sent"
        )
    assert len(posts) == 3


def test_a_failure_older_than_the_retry_window_is_reported_not_dropped(tmp_path):
    """issue 21: delivery failures older than 7 days were dropped without a word."""
    from paperbrief.pipeline import RunResult

    posts: list[bytes] = []
    answers = iter([500, 200])

    def hook(conn, request):
        posts.append(request)
        conn.sendall(response(b"{}", status=next(answers)))

    profile, digest = _sample()
    with RawServer(hook) as server, open_store(tmp_path / "pb.db") as store:
        profile = _hook(profile, server.url + "/hook")
        old = _store_digest(store, profile, digest)
        (failed,) = _deliver(store, profile, old)
        assert failed.status == "failed"
        later = date(2026, 6, 2)  # eleven days on
        today = _store_digest(store, profile, replace(digest, digest_date=later))
        results = deliver_published(store, profile, today, RunOptions(), QuietReporter())
    assert [(r.digest_date, r.status) for r in results] == [(later, "sent"), (DAY, "given-up")]
    reported = results[1]
    assert "1 digest(s) older than 7 days never delivered (2026-05-22)" in reported.detail
    assert "paperbrief send --date 2026-05-22 --channel generic" in reported.detail
    assert len(posts) == 2  # reported, not retried
    run = RunResult(later, later, deliveries=tuple(results))
    assert run.failed_channels == []  # today's run is not failed by an old day


def test_an_earlier_days_unknown_send_is_reported_by_later_runs_never_resent(tmp_path):
    from paperbrief.pipeline import RunResult

    posts: list[bytes] = []

    def hook(conn, request):
        posts.append(request)
        conn.sendall(response(b"{}"))

    profile, digest = _sample()
    with RawServer(hook) as server, open_store(tmp_path / "pb.db") as store:
        profile = _hook(profile, server.url + "/hook")
        _store_digest(store, profile, digest)
        store.deliveries.intend(DAY, "generic", key="k", profile=profile.key)  # died mid-send
        tuesday = _store_digest(store, profile, replace(digest, digest_date=date(2026, 5, 23)))
        results = deliver_published(store, profile, tuesday, RunOptions(), QuietReporter())
    today, monday = results
    assert (today.digest_date, today.status) == (date(2026, 5, 23), "sent")
    assert (monday.digest_date, monday.status) == (DAY, "unknown")
    assert "--date 2026-05-22 --retry-unknown" in monday.detail
    assert len(posts) == 1  # Tuesday's only
    run = RunResult(date(2026, 5, 23), DAY, deliveries=tuple(results))
    assert run.failed_channels == []  # said, and left to the reader; today's run is fine


@pytest.mark.slow
def test_two_profiles_in_one_home_each_get_their_own_digest(tmp_path, pipeline_vectors):
    base = EXAMPLE_PROFILE.read_text(encoding="utf-8")
    first = parse_profile(base)
    second = parse_profile(
        base.replace('name = "AI4SE PhD student"', 'name = "Second reader"').replace(
            'language = "zh"', 'language = "en"', 1
        )
    )
    listing = FIXTURES / "pipeline" / "2026-05-22.jsonl"
    with open_store(tmp_path / "db.sqlite") as store:
        pipeline_vectors.seed(store)
        results = []
        for profile in (first, second):
            services = Services.build(
                profile, store, offline=True, encoder=pipeline_vectors.encoder
            )
            options = RunOptions(listing_file=listing, out_dir=tmp_path / profile.key)
            results.append(run_day(store, profile, options, services, today=date(2026, 5, 23)))
        assert [r.reused for r in results] == [False, False]  # not "already published"
        mine = store.digests.load(date(2026, 5, 23), profile=first.key)
        theirs = store.digests.load(date(2026, 5, 23), profile=second.key)
    assert mine.language == "zh" and theirs.language == "en"
    assert "今日总结" in results[0].files["markdown"].read_text(encoding="utf-8")
    assert "## Summary" in results[1].files["markdown"].read_text(encoding="utf-8")


def test_an_older_homes_digests_are_adopted_not_published_again(tmp_path):
    profile, digest = _sample()
    with open_store(tmp_path / "pb.db") as store:
        store.digests.save(digest, "offline", "md", "<html></html>")  # profile '' (older home)
        store.deliveries.record(DAY, "generic", ok=True)
        store.adopt_unnamed(profile.key)
        assert store.digests.load(DAY, profile=profile.key) is not None
        profile = _hook(profile, f"http://127.0.0.1:{closed_port()}/hook")
        (result,) = _deliver(store, profile, store.digests.load(DAY, profile=profile.key))
    assert result.status == "already-sent"
