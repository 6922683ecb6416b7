"""The web UI serves its owner only (see tests/faults.md): a token by default, also on
loopback; security headers on every response, refusals included; a profile editor that
cannot redirect secrets, endpoints or output paths; writes that no planted symlink can
redirect. A real uvicorn server (and `paperbrief serve` as a child process) on loopback."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.files import write_atomic
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


def test_serve_makes_a_token_prints_it_once_and_requires_it_on_loopback(tmp_path):
    store_path, profile_path = seed_store(tmp_path)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PAPERBRIEF_WEB_TOKEN"}
    env["PAPERBRIEF_HOME"] = str(store_path.parent)
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "paperbrief",
            "serve",
            "--port",
            str(port),
            "--profile",
            str(profile_path),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+/\?token=(\S+)", line)
        assert match, line
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                httpx.get(base, timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        refused = httpx.get(base + "/")
        assert refused.status_code == 401  # loopback is shared by every local user
        _secured(refused)
        with httpx.Client(base_url=base) as browser:
            login = browser.get(f"/?token={match.group(1)}")
            assert login.status_code == 303 and "token" not in login.headers["location"]
            assert browser.get("/").status_code == 200
    finally:
        child.terminate()
        child.wait(timeout=10)
    assert match.group(1) not in child.stderr.read()  # printed once, on stdout only


def test_no_token_is_for_loopback_only_and_warns(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERBRIEF_HOME", str(tmp_path))
    monkeypatch.delenv("PAPERBRIEF_WEB_TOKEN", raising=False)
    public = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0", "--no-token", "--port", "1"])
    assert public.exit_code == 2 and "only loopback" in public.output
    no_env = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0", "--port", "1"])
    assert no_env.exit_code == 2 and "PAPERBRIEF_WEB_TOKEN" in no_env.output


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
