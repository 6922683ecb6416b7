"""Delivery: webhooks to a loopback HTTP server, blog folder with git, Atom feed, and the
send-once / retry-on-failure bookkeeping in the store."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import subprocess
import urllib.parse
import xml.etree.ElementTree as ET
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from paperbrief.deliver import deliver_digest
from paperbrief.deliver.message import announcement_from_digest
from paperbrief.deliver.webhooks import WebhookSender
from paperbrief.errors import DeliveryError, ProfileError
from paperbrief.models import Digest
from paperbrief.profile import (
    BlogSettings,
    DeliverySettings,
    FeedSettings,
    WebhookSettings,
    parse_profile,
)
from paperbrief.records import StoredDigest
from paperbrief.render import render_html, render_markdown
from paperbrief.store import codec, open_store
from tests.support import FIXTURES

DELIVER_FIXTURES = FIXTURES / "deliver"
DAY = date(2026, 5, 22)
NOW = 1_780_000_000.25


def _sample():
    profile = parse_profile((DELIVER_FIXTURES / "profile.toml").read_text(encoding="utf-8"))
    body = (DELIVER_FIXTURES / "digest-2026-05-22.json").read_text(encoding="utf-8")
    digest = codec.decode(Digest, body)
    return profile, digest


def _deliver(store, profile, digest, markdown, html, **options):
    stored = StoredDigest(digest, markdown, html, "offline", "2026-05-23T00:00:00+00:00")
    return deliver_digest(stored, profile, store.deliveries, store.digests, **options)


def _configure(profile, **settings):
    return profile.model_copy(update={"delivery": DeliverySettings(**settings)})


def _post(httpserver: HTTPServer, kind: str, secret: str = "") -> dict:
    profile, digest = _sample()
    announcement = announcement_from_digest(digest, "https://blog.example/2026-05-22/")
    sender = WebhookSender(kind, httpserver.url_for(f"/{kind}"), secret, clock=lambda: NOW)
    httpserver.expect_oneshot_request(f"/{kind}", method="POST").respond_with_json(
        {"code": 0, "errcode": 0}
    )
    sender.send(announcement)
    request, _ = httpserver.log[-1]
    assert request.headers["Content-Type"].startswith("application/json")
    return {"json": json.loads(request.data), "args": request.args, "raw": request.data,
            "headers": request.headers}  # fmt: skip


def test_feishu_card_is_signed_with_timestamp_and_secret(httpserver: HTTPServer) -> None:
    got = _post(httpserver, "feishu", secret="feishu-secret")
    payload = got["json"]
    expected = base64.b64encode(
        hmac.new(f"{int(NOW)}\nfeishu-secret".encode(), b"", hashlib.sha256).digest()
    ).decode()
    assert payload["timestamp"] == str(int(NOW)) and payload["sign"] == expected
    assert payload["msg_type"] == "interactive"
    text = payload["card"]["elements"][0]["content"]
    assert "今日全览" in text and "⭐⭐⭐⭐⭐" in text
    assert "[Measuring the Marginal Value" in text and "(https://arxiv.org/abs/2605.10001)" in text
    assert "https://blog.example/2026-05-22/" in text


def test_dingtalk_signature_travels_in_the_url(httpserver: HTTPServer) -> None:
    got = _post(httpserver, "dingtalk", secret="SECabc")
    timestamp = got["args"]["timestamp"]
    assert timestamp == str(int(NOW * 1000))
    expected = base64.b64encode(
        hmac.new(b"SECabc", f"{timestamp}\nSECabc".encode(), hashlib.sha256).digest()
    ).decode()
    assert got["args"]["sign"] == expected
    assert got["json"]["msgtype"] == "markdown"
    assert got["json"]["markdown"]["title"] == "arXiv 每日速递 2026-05-22"


def test_slack_uses_mrkdwn_links_and_escapes_angle_brackets(httpserver: HTTPServer) -> None:
    text = _post(httpserver, "slack")["json"]["text"]
    assert "<https://arxiv.org/abs/2605.10001|Measuring the Marginal Value" in text
    assert "&lt;script&gt;" in text and "<script>" not in text


def test_wecom_discord_and_generic_payloads(httpserver: HTTPServer) -> None:
    assert "今日全览" in _post(httpserver, "wecom")["json"]["markdown"]["content"]
    discord = _post(httpserver, "discord")["json"]
    assert discord["allowed_mentions"] == {"parse": []} and "⭐" in discord["content"]
    generic = _post(httpserver, "generic", secret="g")
    body = generic["json"]
    assert body["date"] == "2026-05-22" and body["papers"][0]["id"] == "2605.10001"
    assert body["papers"][0]["stars"] == 5
    expected = "sha256=" + hmac.new(b"g", generic["raw"], hashlib.sha256).hexdigest()
    assert generic["headers"]["X-Paperbrief-Signature"] == expected


def test_messages_respect_platform_size_limits(httpserver: HTTPServer) -> None:
    profile, digest = _sample()
    brief = digest.briefs[0]
    many = tuple(
        replace(
            brief, scored=replace(brief.scored, paper=replace(brief.paper, id=f"2605.2{i:04d}"))
        )
        for i in range(60)
    )
    big = replace(digest, briefs=many, summary="很长的总结。" * 2000)
    announcement = announcement_from_digest(big, "https://blog.example/full")
    sizes = {"discord": 2000, "wecom": 4096, "slack": 4000}
    for kind, limit in sizes.items():
        httpserver.expect_oneshot_request(f"/{kind}").respond_with_json({"errcode": 0})
        WebhookSender(kind, httpserver.url_for(f"/{kind}")).send(announcement)
        payload = json.loads(httpserver.log[-1][0].data)
        text = {"discord": payload.get("content"), "slack": payload.get("text")}.get(kind) or (
            payload["markdown"]["content"]
        )
        measured = len(text.encode()) if kind == "wecom" else len(text)
        assert measured <= limit, (kind, measured)
        assert "https://blog.example/full" in text  # the link to the full digest survives
        assert "2605.20000" in text  # the first picks survive, trailing ones are counted
        assert "篇，见全文" in text


def test_platform_error_code_in_a_200_answer_is_a_failure(httpserver: HTTPServer) -> None:
    _, digest = _sample()
    httpserver.expect_request("/feishu").respond_with_json({"code": 19021, "msg": "sign fail"})
    with pytest.raises(DeliveryError, match="19021"):
        WebhookSender("feishu", httpserver.url_for("/feishu"), "x").send(
            announcement_from_digest(digest)
        )


def test_failed_webhook_is_recorded_retried_next_run_and_never_resent(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    profile, digest = _sample()
    blog = tmp_path / "blog"
    blog.mkdir()
    profile = _configure(
        profile,
        blog=BlogSettings(folder=str(blog)),
        webhooks=[
            WebhookSettings(kind="slack", url_env="SLACK_URL"),
            WebhookSettings(kind="discord", url_env="DISCORD_URL"),
        ],
    )
    environ = {"SLACK_URL": httpserver.url_for("/slack"), "DISCORD_URL": httpserver.url_for("/d")}
    markdown, html = render_markdown(digest, profile), render_html(digest, profile)
    httpserver.expect_ordered_request("/slack").respond_with_data("boom", status=500)
    httpserver.expect_request("/d").respond_with_data("", status=204)
    with open_store(tmp_path / "pb.db") as store:
        first = _deliver(store, profile, digest, markdown, html, environ=environ)
        assert {r.channel: r.status for r in first} == {
            "blog": "sent", "slack": "failed", "discord": "sent"
        }  # fmt: skip
        failed = next(r for r in first if r.channel == "slack")
        assert "HTTP 500" in failed.detail and failed.attempts == 1
        row = store.deliveries.status(DAY, "slack")
        assert row.status == "failed" and "HTTP 500" in row.last_error
        assert (blog / "2026-05-22.md").read_text(encoding="utf-8") == markdown

        httpserver.expect_ordered_request("/slack").respond_with_data("ok")
        second = _deliver(store, profile, digest, markdown, html, environ=environ)
        assert {r.channel: r.status for r in second} == {
            "blog": "already-sent", "slack": "sent", "discord": "already-sent"
        }  # fmt: skip
        assert store.deliveries.status(DAY, "slack").attempts == 2

        requests_before = len(httpserver.log)
        third = _deliver(store, profile, digest, markdown, html, environ=environ)
        assert all(r.status == "already-sent" for r in third)
        assert len(httpserver.log) == requests_before  # a rerun does not resend


def test_send_resends_a_stored_digest_on_purpose(httpserver: HTTPServer, tmp_path: Path) -> None:
    profile, digest = _sample()
    profile = _configure(
        profile, webhooks=[WebhookSettings(kind="wecom", name="team", url_env="U")]
    )
    environ = {"U": httpserver.url_for("/wecom")}
    httpserver.expect_request("/wecom").respond_with_json({"errcode": 0})
    markdown, html = render_markdown(digest, profile), render_html(digest, profile)
    with open_store(tmp_path / "pb.db") as store:
        stored = store.digests.save(digest, "offline", markdown, html)
        assert store.digests.load(DAY, "zh") == stored
        journal, archive = store.deliveries, store.digests
        assert (
            deliver_digest(stored, profile, journal, archive, environ=environ)[0].status == "sent"
        )
        again = deliver_digest(stored, profile, journal, archive, environ=environ)
        assert again[0].status == "already-sent"
        again = deliver_digest(
            stored, profile, journal, archive, channels=["team"], force=True, environ=environ
        )
        assert again[0].status == "sent" and again[0].attempts == 2
        assert len(httpserver.log) == 2
        with pytest.raises(DeliveryError, match="unknown or unconfigured channel"):
            deliver_digest(stored, profile, journal, archive, channels=["email"], environ=environ)


def test_blog_post_is_committed_with_git(tmp_path: Path) -> None:
    profile, digest = _sample()
    repo = tmp_path / "site"
    content = repo / "content" / "posts"
    content.mkdir(parents=True)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "config", "user.name", "t"], check=True)
    subprocess.run([*git, "config", "user.email", "t@example.org"], check=True)
    (repo / "unrelated.txt").write_text("not mine")
    profile = _configure(profile, blog=BlogSettings(folder=str(content), git_commit=True))
    markdown = render_markdown(digest, profile)
    with open_store(tmp_path / "pb.db") as store:
        results = _deliver(store, profile, digest, markdown, "", environ={})
    assert results[0].status == "sent", results
    log = subprocess.run([*git, "log", "--name-only", "--format=%s"], capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    assert "arXiv digest 2026-05-22" in log and "content/posts/2026-05-22.md" in log
    assert "unrelated.txt" not in log
    assert markdown.startswith("---\ntitle:")  # front matter reaches the blog untouched


def test_feed_lists_recent_digests_escaped(tmp_path: Path) -> None:
    profile, digest = _sample()
    feed_path = tmp_path / "public" / "feed.xml"
    profile = _configure(
        profile,
        link="https://blog.example/posts/{date}/",
        feed=FeedSettings(path=str(feed_path), size=2),
    )
    with open_store(tmp_path / "pb.db") as store:
        for day in (date(2026, 5, 19), date(2026, 5, 20), date(2026, 5, 21)):
            older = replace(digest, digest_date=day, title=f"arXiv 每日速递 {day}")
            store.digests.save(older, "offline", "md", render_html(older, profile), profile.key)
        results = _deliver(
            store, profile, digest, render_markdown(digest, profile), render_html(digest, profile),
            environ={},
        )  # fmt: skip
    assert results[0].status == "sent"
    root = ET.parse(feed_path).getroot()
    ns = {"a": "http://www.w3.org/2005/Atom"}
    titles = [node.text for node in root.findall("a:entry/a:title", ns)]
    assert titles == ["arXiv 每日速递 2026-05-22", "arXiv 每日速递 2026-05-21"]
    links = [node.get("href") for node in root.findall("a:entry/a:link", ns)]
    assert links[0] == "https://blog.example/posts/2026-05-22/"
    content = root.find("a:entry/a:content", ns).text
    assert "&lt;script&gt;" in content and "<script>" not in content
    assert urllib.parse.urlparse(links[1]).path == "/posts/2026-05-21/"


def test_delivery_settings_parse_and_reject_ambiguous_webhooks() -> None:
    base = (DELIVER_FIXTURES / "profile.toml").read_text(encoding="utf-8")
    example = (DELIVER_FIXTURES / "delivery-example.toml").read_text(encoding="utf-8")
    profile = parse_profile(base + "\n" + example)
    from paperbrief.deliver import configured_channels

    assert configured_channels(profile.delivery) == [
        "blog", "feed", "email", "feishu", "lab-dingtalk"
    ]  # fmt: skip
    assert profile.delivery.email.security == "ssl"
    duplicate = example.replace('name = "lab-dingtalk"', 'name = "feishu"')
    with pytest.raises(ProfileError, match="unique name"):
        parse_profile(base + "\n" + duplicate)
    no_url = example.replace('url_env = "FEISHU_WEBHOOK_URL"\n', "")
    with pytest.raises(ProfileError, match="set url_env"):
        parse_profile(base + "\n" + no_url)
    with pytest.raises(ProfileError, match="smtp_pass"):
        parse_profile(base + "\n" + example.replace("smtp_port", "smtp_pass"))


def test_send_command_resends_and_exits_1_when_a_channel_fails(
    httpserver: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from paperbrief.cli import cli

    profile, digest = _sample()
    profile_path = tmp_path / "profile.toml"
    profile_path.write_text(
        (DELIVER_FIXTURES / "profile.toml").read_text(encoding="utf-8")
        + '\n[[delivery.webhooks]]\nkind = "generic"\nname = "hook"\nurl_env = "HOOK_URL"\n'
        + '\n[[delivery.webhooks]]\nkind = "slack"\nurl_env = "SLACK_URL"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("PAPERBRIEF_HOME", str(tmp_path))
    monkeypatch.setenv("HOOK_URL", httpserver.url_for("/hook"))
    monkeypatch.setenv("SLACK_URL", httpserver.url_for("/slack"))
    httpserver.expect_request("/hook").respond_with_json({"ok": True})
    httpserver.expect_request("/slack").respond_with_data("no", status=503)
    with open_store(tmp_path / "paperbrief.db") as store:
        store.digests.save(
            digest, "offline", render_markdown(digest, profile), render_html(digest, profile)
        )
    runner = CliRunner()
    ok = runner.invoke(cli, ["send", "--channel", "hook", "--profile", str(profile_path)])
    assert ok.exit_code == 0, ok.output
    again = runner.invoke(cli, ["send", "--date", "2026-05-22", "--profile", str(profile_path)])
    assert again.exit_code == 1
    assert "slack" in again.output and "HTTP 503" in again.output
    assert [request.path for request, _ in httpserver.log] == ["/hook", "/hook", "/slack"]


def test_tight_limits_drop_detail_lines_before_dropping_picks() -> None:
    from paperbrief.deliver.message import MARKDOWN_BYTES, compose_message, utf8_size

    _, digest = _sample()
    announcement = announcement_from_digest(replace(digest, summary="总结。" * 200), "https://x/")
    text = compose_message(announcement, MARKDOWN_BYTES, 550)
    assert utf8_size(text) <= 550
    assert "2605.10001" in text and "2605.10002" in text  # both picks, as compact rows
    assert "修复率 71%" not in text  # detail lines went first, the last pick's first
    assert "总结。…" in text  # the summary was shortened, with an ellipsis
    roomy = compose_message(announcement, MARKDOWN_BYTES, 18_000)
    assert "测试执行带来 +12.5 分解决率" in roomy and "…" not in roomy
