"""E-mail delivery against a real SMTP server on 127.0.0.1 (aiosmtpd), STARTTLS and SSL."""

from __future__ import annotations

import email
import email.policy
import re
import shutil
import socket
import ssl
import subprocess
from datetime import date
from email.header import decode_header, make_header
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from paperbrief.deliver import deliver_digest
from paperbrief.models import Digest
from paperbrief.profile import DeliverySettings, EmailSettings, parse_profile
from paperbrief.records import StoredDigest
from paperbrief.render import render_html, render_markdown
from paperbrief.store import codec, open_store
from tests.support import FIXTURES

DELIVER_FIXTURES = FIXTURES / "deliver"
DAY = date(2026, 5, 22)


class Inbox:
    def __init__(self) -> None:
        self.messages: list[tuple[list[str], bytes]] = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append((list(envelope.rcpt_tos), envelope.original_content))
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl CLI not found: cannot make a certificate for the TLS SMTP test")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def _authenticator(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and auth_data.password == b"s3cret"
    return AuthResult(
        success=ok, handled=False, message=None if ok else "535 5.7.8 Bad credentials"
    )


def _sample():
    profile = parse_profile((DELIVER_FIXTURES / "profile.toml").read_text(encoding="utf-8"))
    body = (DELIVER_FIXTURES / "digest-2026-05-22.json").read_text(encoding="utf-8")
    digest = codec.decode(Digest, body)
    return profile, digest, render_markdown(digest, profile), render_html(digest, profile)


def _deliver(store, profile, digest, markdown, html, **options):
    stored = StoredDigest(digest, markdown, html, "offline", "2026-05-23T00:00:00+00:00")
    return deliver_digest(stored, profile, store.deliveries, store.digests, **options)


def _with_email(profile, port: int, security: str, cert: Path):
    settings = EmailSettings(
        smtp_host="127.0.0.1",
        smtp_port=port,
        security=security,
        username="reader",
        password_env="TEST_SMTP_PASSWORD",
        sender="paperbrief <bot@example.org>",
        to=["a@example.org", "b@example.org"],
        ca_file=str(cert),
    )
    return profile.model_copy(update={"delivery": DeliverySettings(email=settings)})


def _tls_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


@pytest.mark.parametrize("security", ["starttls", "ssl"])
def test_mail_arrives_with_chinese_subject_and_both_parts(
    tmp_path: Path, certificate: tuple[Path, Path], security: str
) -> None:
    cert, key = certificate
    inbox = Inbox()
    port = _free_port()
    options = dict(authenticator=_authenticator, auth_require_tls=True)
    if security == "ssl":
        # aiosmtpd only counts STARTTLS as TLS for auth_require_tls; implicit TLS is TLS too.
        options["auth_require_tls"] = False
        controller = Controller(
            inbox, hostname="127.0.0.1", port=port, ssl_context=_tls_context(cert, key), **options
        )
    else:
        controller = Controller(
            inbox,
            hostname="127.0.0.1",
            port=port,
            tls_context=_tls_context(cert, key),
            require_starttls=True,
            **options,
        )
    controller.start()
    try:
        profile, digest, markdown, html = _sample()
        profile = _with_email(profile, port, security, cert)
        with open_store(tmp_path / "pb.db") as store:
            results = _deliver(
                store, profile, digest, markdown, html, environ={"TEST_SMTP_PASSWORD": "s3cret"}
            )
    finally:
        controller.stop()
    assert [(r.channel, r.status) for r in results] == [("email", "sent")], results
    # one envelope (and one stable Message-ID) per recipient, the To: header naming both
    assert [recipients for recipients, _ in inbox.messages] == [
        ["a@example.org"],
        ["b@example.org"],
    ]
    ids = [email.message_from_bytes(raw)["Message-ID"] for _, raw in inbox.messages]
    assert len(set(ids)) == 2 and all(i.startswith("<paperbrief.") for i in ids)
    recipients, raw = inbox.messages[0]
    assert b"=?utf-8?" in raw.lower()  # the Chinese subject travels RFC 2047-encoded
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert str(make_header(decode_header(raw.split(b"Subject: ")[1].split(b"\r\n")[0].decode()))) \
        == "arXiv 每日速递 2026-05-22"  # fmt: skip
    assert message["Subject"] == "arXiv 每日速递 2026-05-22"
    plain = message.get_body(preferencelist=("plain",)).get_content()
    rich = message.get_body(preferencelist=("html",)).get_content()
    # text a person reads: no front matter, no Markdown marks, no pipe tables
    assert plain.startswith(digest.title) and "今日总结\n----" in plain
    assert "|---|" not in plain and "](" not in plain and "**" not in plain
    assert "<style" not in rich and "<script>alert" not in rich
    assert "&lt;script&gt;" in rich  # paper text stays escaped
    assert 'style="' in rich and "今日全览" in rich and "overflow-x:auto" in rich


def test_wrong_password_is_recorded_as_failure(tmp_path: Path, certificate) -> None:
    cert, key = certificate
    port = _free_port()
    controller = Controller(
        Inbox(), hostname="127.0.0.1", port=port, tls_context=_tls_context(cert, key),
        require_starttls=True, authenticator=_authenticator, auth_require_tls=True,
        auth_exclude_mechanism=["LOGIN"],
    )  # fmt: skip
    controller.start()
    try:
        profile, digest, markdown, html = _sample()
        profile = _with_email(profile, port, "starttls", cert)
        with open_store(tmp_path / "pb.db") as store:
            results = _deliver(
                store, profile, digest, markdown, html, environ={"TEST_SMTP_PASSWORD": "wrong"}
            )
            (row,) = store.deliveries.of(DAY)
    finally:
        controller.stop()
    assert results[0].status == "failed" and "SMTPAuthenticationError" in results[0].detail
    assert row.channel == "email" and row.status == "failed" and row.attempts == 1


def test_missing_password_variable_says_which_to_export(tmp_path: Path, certificate) -> None:
    cert, _ = certificate
    profile, digest, markdown, html = _sample()
    profile = _with_email(profile, _free_port(), "starttls", cert)
    with open_store(tmp_path / "pb.db") as store:
        results = _deliver(store, profile, digest, markdown, html, environ={})
    assert results[0].status == "failed"
    assert "export TEST_SMTP_PASSWORD" in results[0].detail


def test_inlined_html_drops_scripts_and_handlers_and_keeps_text_escaped() -> None:
    from paperbrief.deliver.mail import inline_styles

    fragment = inline_styles(
        "<html><head><style>p{}</style></head><body>&lt;b&gt;lead"
        '<p class="meta" onclick="steal()">hi</p><div class="tags"><span>arXiv</span></div>'
        "<table><tr><td>1</td></tr></table><script>bad()</script></body></html>"
    )
    assert fragment.count("&lt;b&gt;lead") == 1 and "<b>" not in fragment
    assert "onclick" not in fragment and "<script" not in fragment and "<style" not in fragment
    assert 'class="meta" style="margin:0 0 12px;line-height:1.8;color:#6b7280' in fragment
    assert "background:#ecfdf5" in fragment  # the tag chips keep their look
    assert '<div style="overflow-x:auto;max-width:100%"><table' in fragment


def test_the_plain_part_of_real_digests_reads_as_text() -> None:
    """On digests paperbrief really writes (the LLM path with the shared model answers,
    against the loopback endpoint), the text/plain part keeps every title, link and table
    value and none of the Markdown."""
    from paperbrief.deliver.plaintext import inline, plain_text
    from tests.support.digests import llm_digests

    for honest in llm_digests():
        plain = plain_text(honest.markdown)
        assert "|---" not in plain and "](" not in plain and "**" not in plain, honest.name
        assert not plain.startswith("---") and "coverColor" not in plain
        for url in re.findall(r"\]\((https://arxiv\.org/abs/[^)]+)\)", honest.markdown):
            assert f"<{url}>" in plain  # every paper's link, readable
        for url in re.findall(r"\[↗\]\((\S+?)[ )]", honest.markdown):
            assert f"] {url}\n" in plain  # every evidence link, as a numbered note
        rows = [
            line for line in honest.markdown.splitlines()
            if line.startswith("|") and not line.startswith("|---")
        ]  # fmt: skip
        assert rows
        for row in rows[1:]:  # each table value is there, as "column: value"
            last = row.rstrip("|").rsplit("|", 1)[-1].strip()
            if last and last not in ("—", "-"):
                assert re.sub(r"\[\d+\]", "", inline(last, []))[:15] in plain, last
