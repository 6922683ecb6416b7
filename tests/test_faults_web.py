"""The web UI serves its owner only (see tests/faults.md): a token by default, also on
loopback; security headers on every response, refusals included; a profile editor that
cannot redirect secrets, endpoints or output paths; writes that no planted symlink can
redirect. A real uvicorn server (and `paperbrief serve` as a child process) on loopback."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.files import write_atomic
from paperbrief.profile import parse_profile, profile_template
from paperbrief.web.profile_form import apply_fields, line_fields
from paperbrief.web.security import SECURITY_HEADERS
from tests.support import ROOT
from tests.support.web import RunningServer, free_port, seed_store


@pytest.fixture()
def site(tmp_path: Path):
    store_path, profile_path = seed_store(tmp_path)
    with RunningServer(store_path, profile_path) as server:
        yield server, profile_path


def _csrf(client: httpx.Client, url: str) -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', client.get(url).text)
    assert match
    return match.group(1)


def _secured(answer: httpx.Response) -> None:
    for name in SECURITY_HEADERS:
        assert name.lower() in answer.headers, (answer.status_code, name)


@contextlib.contextmanager
def _serving(store_path: Path, profile_path: Path, port: int, env: dict[str, str]):
    """`paperbrief serve` in a child process until the block ends; yields its base URL."""
    child = subprocess.Popen(
        [sys.executable, "-m", "paperbrief", "serve", "--port", str(port)]
        + ["--profile", str(profile_path)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                httpx.get(base + "/static/style.css", timeout=1)
                break
            except httpx.TransportError:
                assert child.poll() is None, child.stderr.read() if child.stderr else ""
                time.sleep(0.1)
        yield base
    finally:
        child.terminate()
        child.wait(timeout=10)


def test_serve_keeps_a_private_token_across_restarts_until_rotated(tmp_path):
    """issue 20 (9): the token survived no restart (a phone bookmark broke daily), and the
    token page was unstyled English; issue 21: the cookie held the raw token for 30 days."""
    store_path, profile_path = seed_store(tmp_path)
    home = store_path.parent
    env = {k: v for k, v in os.environ.items() if k != "PAPERBRIEF_WEB_TOKEN"}
    env["PAPERBRIEF_HOME"] = str(home)
    with _serving(store_path, profile_path, free_port(), env) as base:
        token_file = home / "web-token"
        token = token_file.read_text(encoding="utf-8").strip()
        assert token_file.stat().st_mode & 0o777 == 0o600 and len(token) >= 32
        refused = httpx.get(base + "/")
        assert refused.status_code == 401  # loopback is shared by every local user
        _secured(refused)
        page = refused.text
        assert '<html lang="zh' in page and "访问令牌" in page  # the reader's language
        assert "/static/style.css" in page and str(token_file) in page
        assert "paperbrief token show" in page and token not in page
        with httpx.Client(base_url=base) as browser:
            login = browser.get(f"/?token={token}")
            assert login.status_code == 303 and "token" not in login.headers["location"]
            cookie = login.headers["set-cookie"]
            assert token not in cookie and "HttpOnly" in cookie and "Secure" not in cookie
            assert browser.get("/").status_code == 200
            session = dict(browser.cookies)
    with _serving(store_path, profile_path, free_port(), env) as base:
        assert token_file.read_text(encoding="utf-8").strip() == token  # the same token
        assert httpx.get(base + "/", cookies=session).status_code == 200  # still logged in
    shown = CliRunner().invoke(cli, ["token", "show"], env={"PAPERBRIEF_HOME": str(home)})
    assert shown.exit_code == 0 and f"?token={token}" in shown.output
    rotated = CliRunner().invoke(cli, ["token", "rotate"], env={"PAPERBRIEF_HOME": str(home)})
    assert rotated.exit_code == 0
    new = token_file.read_text(encoding="utf-8").strip()
    assert new != token and token_file.stat().st_mode & 0o777 == 0o600
    with _serving(store_path, profile_path, free_port(), env) as base:
        assert httpx.get(base + "/", cookies=session).status_code == 401  # logged out
        assert httpx.get(base + "/", headers={"X-Paperbrief-Token": new}).status_code == 200


def test_a_rotation_takes_effect_in_a_running_ui_at_once(tmp_path):
    """Re-tried as the red team would: after `paperbrief token rotate` a `serve` already
    running still took the old token and the old sessions until it was restarted, though
    the token page says rotating logs every browser out."""
    store_path, profile_path = seed_store(tmp_path)
    home = store_path.parent
    env = {k: v for k, v in os.environ.items() if k != "PAPERBRIEF_WEB_TOKEN"}
    env["PAPERBRIEF_HOME"] = str(home)
    with _serving(store_path, profile_path, free_port(), env) as base:
        old = (home / "web-token").read_text(encoding="utf-8").strip()
        with httpx.Client(base_url=base) as browser:
            assert browser.get(f"/?token={old}").status_code == 303
            assert browser.get("/").status_code == 200
            rotated = CliRunner().invoke(
                cli, ["token", "rotate"], env={"PAPERBRIEF_HOME": str(home)}
            )
            assert rotated.exit_code == 0 and "takes it at once" in rotated.output
            new = (home / "web-token").read_text(encoding="utf-8").strip()
            assert browser.get("/").status_code == 401  # the old session ended
        assert httpx.get(base + "/", headers={"X-Paperbrief-Token": old}).status_code == 401
        assert httpx.get(base + "/", headers={"X-Paperbrief-Token": new}).status_code == 200


def test_no_token_is_for_loopback_only_and_weak_tokens_are_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERBRIEF_HOME", str(tmp_path))
    monkeypatch.delenv("PAPERBRIEF_WEB_TOKEN", raising=False)
    public = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0", "--no-token", "--port", "1"])
    assert public.exit_code == 2 and "only loopback" in public.output
    for weak in ("a" * 16, "ab" * 12, "short"):
        monkeypatch.setenv("PAPERBRIEF_WEB_TOKEN", weak)
        refused = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0", "--port", "1"])
        assert refused.exit_code == 2 and "too weak" in refused.output, weak


def test_wrong_tokens_are_throttled_and_a_throttled_guess_is_not_checked(tmp_path):
    """400 wrong tokens a second went unthrottled; now after a few each waits, and even the
    right token is not checked while its sender is throttled."""
    store_path, profile_path = seed_store(tmp_path)
    token = "k" + secrets.token_urlsafe(30)
    with (
        RunningServer(store_path, profile_path, token=token) as server,
        httpx.Client(base_url=server.url) as client,
    ):
        statuses = [
            client.get("/", headers={"X-Paperbrief-Token": f"wrong-{i:012d}"}).status_code
            for i in range(40)
        ]
        assert statuses[:5] == [401] * 5 and statuses.count(429) >= 30
        throttled = client.get("/", headers={"X-Paperbrief-Token": token})
        assert throttled.status_code == 429 and int(throttled.headers["retry-after"]) >= 1
        _secured(throttled)


def test_the_cookie_is_secure_beyond_loopback_and_plain_http_is_warned_about(tmp_path):
    """`serve --host 0.0.0.0` builds the app with ``secure_cookies`` (a bind beyond
    loopback); over plain HTTP the token page then says the login will not be kept."""
    store_path, profile_path = seed_store(tmp_path)
    token = secrets.token_urlsafe(32)
    with RunningServer(store_path, profile_path, token, secure_cookies=True) as server:
        page = httpx.get(server.url + "/")
        login = httpx.get(server.url + f"/?token={token}")
    assert "不是 HTTPS" in page.text
    assert login.status_code == 303
    cookie = login.headers["set-cookie"]
    assert "Secure" in cookie and token not in cookie


def test_every_response_carries_the_security_headers_refusals_included(site):
    server, _ = site
    with httpx.Client(base_url=server.url) as client:
        _secured(client.get("/", headers={"Host": "attacker.example"}))  # 403: host check
        _secured(client.post("/feedback", data={"paper_id": "x"}))  # 403: no CSRF token
        _secured(client.get("/paper/9999.99999"))  # 404
        _secured(client.get("/static/style.css"))
        _secured(client.get("/"))


def _post_profile(server, text: str, action: str = "save") -> httpx.Response:
    with httpx.Client(base_url=server.url) as client:
        token = _csrf(client, "/profile")
        return client.post("/profile", data={"csrf": token, "text": text, "action": action})


@pytest.mark.parametrize(
    ("addition", "key"),
    [
        (
            '\n[llm]\nbase_url = "https://collector.example/v1"\n'
            'api_key_env = "PAPERBRIEF_SMTP_PASSWORD"\n',
            "llm.base_url",
        ),
        ('\n[output]\nfilename = "../../escape-{date}"\n', "output.filename"),
        ('\n[output]\ndir = "/tmp/elsewhere"\n', "output.dir"),
        ('\n[delivery.feed]\npath = "~/.ssh/authorized_keys"\n', "delivery.feed.path"),
        ('\n[delivery.email]\nsmtp_host = "smtp.collector.example"\n', "delivery.email.smtp_host"),
        (
            '\n[[delivery.webhooks]]\nkind = "generic"\nurl = "https://collector.example/"\n',
            "delivery.webhooks",
        ),
        # issue 21: what reaches readers, spends money or publishes
        ('\n[delivery]\nlink = "https://phish.example/{date}"\n', "delivery.link"),
        ("\n[delivery.blog]\ngit_commit = true\n", "delivery.blog.git_commit"),
        ('\n[llm]\nmodel = "gpt-4o"\n', "llm.model"),
        ('\n[llm]\nwriter_model = "o1-pro"\n', "llm.writer_model"),
        ("\n[llm.default_price]\ninput = 0.0\noutput = 0.0\n", "llm.default_price"),
        ("\n[llm]\ndaily_token_budget = 0\n", "llm.daily_token_budget"),
        ("\n[llm]\ndaily_cost_budget = 0\n", "llm.daily_cost_budget"),
        ("\n[llm]\ndaily_cost_budget = 50.0\n", "llm.daily_cost_budget"),
        ("\n[llm]\nmax_retries = 9\n", "llm.max_retries"),
    ],
    ids=[
        "llm-endpoint-and-key-variable",
        "filename-escape",
        "output-dir",
        "feed-path",
        "smtp-host",
        "webhook",
        "phishing-link",
        "git-commit",
        "costlier-model",
        "writer-model",
        "free-default-price",
        "no-token-budget",
        "no-cost-budget",
        "higher-cost-budget",
        "more-retries",
    ],
)
def test_the_profile_editor_cannot_change_paths_endpoints_or_secret_names(site, addition, key):
    server, profile_path = site
    original = profile_path.read_text(encoding="utf-8")
    answer = _post_profile(server, original + addition)
    assert answer.status_code == 422 and key in answer.text
    assert profile_path.read_text(encoding="utf-8") == original  # nothing saved


def test_the_editor_shows_protected_settings_read_only_and_saves_other_edits(site):
    server, profile_path = site
    page = httpx.get(server.url + "/profile").text
    assert "只能在文件中修改" in page and "<code>llm.api_key_env</code>" in page
    assert "PAPERBRIEF_LLM_API_KEY" in page
    original = profile_path.read_text(encoding="utf-8")
    edited = original.replace('language = "zh"', 'language = "zh"\npicks_per_day = 3')
    saved = _post_profile(server, edited)
    assert saved.status_code == 200 and "picks_per_day = 3" in profile_path.read_text("utf-8")


def test_the_editor_may_lower_a_budget_but_not_lift_it(site):
    server, profile_path = site
    original = profile_path.read_text(encoding="utf-8")
    lower = original + "\n[llm]\ndaily_cost_budget = 0.5\nmax_retries = 1\n"
    assert _post_profile(server, lower).status_code == 200
    assert profile_path.read_text(encoding="utf-8") == lower
    back_up = lower.replace("daily_cost_budget = 0.5", "daily_cost_budget = 1.0")
    answer = _post_profile(server, back_up)
    assert answer.status_code == 422 and "llm.daily_cost_budget" in answer.text
    assert "0.5" in answer.text  # it says the most it may be here
    assert profile_path.read_text(encoding="utf-8") == lower


def test_the_editor_cannot_rename_the_reader(site):
    """The store keys digests and deliveries by the name: renamed, today's digest would be
    sent again as if to a new reader."""
    server, profile_path = site
    original = profile_path.read_text(encoding="utf-8")
    answer = _post_profile(server, original.replace("测试用户", "新名字"))
    assert answer.status_code == 422 and "name" in answer.text
    assert profile_path.read_text(encoding="utf-8") == original


def test_a_nonexistent_timezone_is_shown_in_the_editor_not_saved(site):
    server, profile_path = site
    original = profile_path.read_text(encoding="utf-8")
    answer = _post_profile(
        server,
        original.replace('language = "zh"', 'language = "zh"\ntimezone = "../../../etc/passwd"'),
    )
    assert answer.status_code == 422 and "tz database" in answer.text
    assert profile_path.read_text(encoding="utf-8") == original


def test_a_planted_symlink_cannot_redirect_an_output(tmp_path):
    victim = tmp_path / "authorized_keys"
    victim.write_text("owner's key\n")
    folder = tmp_path / "out"
    folder.mkdir()
    # the old fixed temporary name, and a guess at the pid-named ones
    for name in (".2026-05-23.md.tmp", f".2026-05-23.md.{os.getpid()}.tmp"):
        (folder / name).symlink_to(victim)
    write_atomic(folder / "2026-05-23.md", "# digest\n")
    assert victim.read_text() == "owner's key\n"
    assert (folder / "2026-05-23.md").read_text() == "# digest\n"
    assert not (folder / "2026-05-23.md").is_symlink()


def test_the_editor_has_fields_for_the_common_settings_that_honour_the_locks(site):
    """issue 20 (9): the profile editor was a bare TOML textarea."""
    server, profile_path = site
    page = httpx.get(server.url + "/profile").text
    assert 'name="field.picks_per_day"' in page and 'name="field.timezone"' in page
    assert re.search(r'name="field.name" value="测试用户" disabled', page)  # locked
    original = profile_path.read_text(encoding="utf-8")
    with httpx.Client(base_url=server.url) as client:
        token = _csrf(client, "/profile")
        shown = dict(re.findall(r'name="(shown\.[^"]+)" value="([^"]*)"', page))
        assert shown["shown.picks_per_day"] == "4" and shown["shown.language"] == "zh"
        fields = {
            **shown,
            **{"field." + key.removeprefix("shown."): value for key, value in shown.items()},
            "csrf": token,
            "text": original,
            "action": "save",
            "field.picks_per_day": "3",
            "field.categories": "cs.SE, cs.PL",
            "field.output.title": "Daily {date}",
        }
        saved = client.post("/profile", data=fields)
        assert saved.status_code == 200, saved.text
        text = profile_path.read_text(encoding="utf-8")
        assert "# A small valid profile" in text  # comments and the rest kept
        profile = parse_profile(text)
        assert profile.picks_per_day == 3 and profile.categories == ["cs.SE", "cs.PL"]
        assert profile.output.title == "Daily {date}" and profile.language == "zh"
        lifted = client.post(
            "/profile",
            data={
                "csrf": token,
                "text": text,
                "action": "save",
                "field.llm.daily_cost_budget": "9",
            },
        )
        assert lifted.status_code == 422 and "llm.daily_cost_budget" in lifted.text
        renamed = client.post(
            "/profile",
            data={"csrf": token, "text": text, "action": "save", "field.name": "mallory"},
        )
        assert "mallory" not in profile_path.read_text(encoding="utf-8")  # a locked field
        assert renamed.status_code == 200
        broken = client.post(
            "/profile",
            data={"csrf": token, "text": text, "action": "save", "field.output.title": "a\nb"},
        )
        assert broken.status_code == 422 and "one line" in broken.text
        # An edit in the textarea is not undone by a field the reader left alone.
        edited = text.replace("picks_per_day = 3", "picks_per_day = 6")
        kept = client.post("/profile", data={**fields, "text": edited, "field.picks_per_day": "4"})
        assert kept.status_code == 200
    assert parse_profile(profile_path.read_text(encoding="utf-8")).picks_per_day == 6


def test_each_research_line_has_fields_and_a_multi_line_description_is_replaced_whole():
    """Re-tried as a new user: the editor's fields covered the common settings but not the
    research lines, the setting a reader edits most (a TOML textarea on a phone)."""
    text = profile_template().replace('name = "Your Name"', 'name = "Reader"')
    groups = line_fields(text)
    assert [g.name for g in groups] == ["Program repair", "Code LLM evaluation"]
    shown = {f.field.key: f.value for f in groups[1].fields}
    assert shown["research_lines.1.description"].startswith("How code benchmarks")
    form = {
        "field.research_lines.1.description": "Benchmarks for code LLMs:\nvalidity first.",
        "shown.research_lines.1.description": shown["research_lines.1.description"],
        "field.research_lines.1.keywords": "benchmark, contamination",
        "shown.research_lines.1.keywords": shown["research_lines.1.keywords"],
        "field.research_lines.1.weight": "1.5",
        "shown.research_lines.1.weight": shown["research_lines.1.weight"],
        "field.research_lines.0.weight": "1",  # shown as 1: untouched
        "shown.research_lines.0.weight": "1",
        "field.research_lines.7.name": "no such line",
        "shown.research_lines.7.name": "",
    }
    edited, unreadable = apply_fields(text, form)
    assert unreadable == []
    profile = parse_profile(edited)
    first, second = profile.research_lines
    assert second.description == "Benchmarks for code LLMs:\nvalidity first."
    assert second.keywords == ["benchmark", "contamination"] and second.weight == 1.5
    assert first == parse_profile(text).research_lines[0]  # the other line as it was
    assert "contamination, validity, LLM-as-judge" not in edited  # no half of the old value
    assert edited.count("# One table per research line") == 1  # comments kept


def test_the_research_line_fields_save_through_the_editor(site):
    server, profile_path = site
    page = httpx.get(server.url + "/profile").text
    assert 'name="field.research_lines.0.description"' in page
    shown = dict(re.findall(r'name="(shown\.research_lines[^"]+)" value="([^"]*)"', page))
    with httpx.Client(base_url=server.url) as client:
        token = _csrf(client, "/profile")
        saved = client.post(
            "/profile",
            data={
                **shown,
                "csrf": token,
                "text": profile_path.read_text(encoding="utf-8"),
                "action": "save",
                "field.research_lines.0.keywords_zh": "程序修复, 补丁",
                "shown.research_lines.0.keywords_zh": shown["shown.research_lines.0.keywords_zh"],
            },
        )
    assert saved.status_code == 200, saved.text
    line = parse_profile(profile_path.read_text(encoding="utf-8")).research_lines[0]
    assert line.keywords_zh == ["程序修复", "补丁"]
