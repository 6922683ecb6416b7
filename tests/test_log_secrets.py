"""No secret and no reader's address in a log: `-v` request lines, delivery outcomes and
errors go through one redaction (cli/redaction.py), a public Actions log included."""

from __future__ import annotations

import subprocess
import sys

from pytest_httpserver import HTTPServer

from paperbrief.cli.redaction import Redaction
from tests.conftest import PIPELINE_LISTING
from tests.support import EXAMPLE_PROFILE
from tests.support.smtp import Inbox, email_settings, smtp_server

TOKEN_PATH = "/services/T024BE7LD/B0X1A2B3C/qwertyuiopASDFGHJKL12345"
RECIPIENTS = ["alice.liang@lab.example.edu", "bob@example.org"]


def test_run_v_and_send_print_no_webhook_token_and_no_address(
    tmp_path, embedded_home, httpserver: HTTPServer
):
    httpserver.expect_request(TOKEN_PATH, method="POST").respond_with_data("ok")
    inbox = Inbox(refuse={"bob@example.org"})  # a refusal is printed with its reply
    with smtp_server(inbox) as port:
        profile = tmp_path / "profile.toml"
        email = email_settings(port, RECIPIENTS)
        profile.write_text(
            EXAMPLE_PROFILE.read_text(encoding="utf-8")
            + email
            + '\n[[delivery.webhooks]]\nkind = "slack"\nurl_env = "SLACK_URL"\n',
            encoding="utf-8",
        )
        env = {
            "PATH": "/usr/bin:/bin",
            "PAPERBRIEF_HOME": str(embedded_home),
            "SLACK_URL": httpserver.url_for(TOKEN_PATH),
        }
        base = [sys.executable, "-m", "paperbrief", "-v"]
        common = ["--profile", str(profile)]
        ran = subprocess.run(
            [*base, "run", "--listing", str(PIPELINE_LISTING), "--offline", "--out",
             str(tmp_path / "out"), *common],
            env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert ran.returncode == 0, ran.stderr
        sent = subprocess.run(
            [*base, "send", "--date", "2026-05-23", *common],
            env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    log = ran.stderr + sent.stderr + sent.stdout
    assert inbox.to("alice.liang@lab.example.edu"), log  # delivered, and the log says so
    assert "HTTP Request: POST" in log and "<$SLACK_URL>" in log  # -v shows the request
    assert "qwertyuiop" not in log and TOKEN_PATH not in log
    for address in RECIPIENTS:
        assert address not in log
    assert "a…@l….edu" in log and "b…@e….org" in log  # the owner can still tell them apart


def test_the_redaction_masks_credentials_it_was_not_told_about():
    redaction = Redaction()
    line = (
        "POST https://oapi.dingtalk.com/robot/send?access_token=0f9e8d7c&timestamp=1&sign=a%2Bb"
        " via https://bot:pa55word@relay.example.org/ for carol@example.com"
    )
    masked = redaction.apply(line)
    assert "0f9e8d7c" not in masked and "a%2Bb" not in masked and "pa55word" not in masked
    assert "timestamp=1" in masked and "carol@" not in masked and "c…@e….com" in masked
    assert (
        redaction.apply("arXiv 2605.22817v2 at 3x, see x@y") == "arXiv 2605.22817v2 at 3x, see x@y"
    )


def test_every_secret_the_profile_names_is_hidden(tmp_path):
    from paperbrief.environment import secret_values
    from paperbrief.profile import load_profile

    profile = tmp_path / "profile.toml"
    profile.write_text(
        EXAMPLE_PROFILE.read_text(encoding="utf-8")
        + email_settings(25, ["a@example.org"]).replace(
            "timeout = 5\n", 'timeout = 5\npassword_env = "SMTP_PASSWORD"\nusername = "bot"\n'
        )
        + '\n[[delivery.webhooks]]\nkind = "feishu"\nurl_env = "FEISHU_URL"\n'
        + 'secret_env = "FEISHU_SECRET"\n',
        encoding="utf-8",
    )
    env = {
        "SMTP_PASSWORD": "hunter2-very-secret",
        "FEISHU_URL": "https://open.feishu.cn/open-apis/bot/v2/hook/0a1b2c3d",
        "FEISHU_SECRET": "s3cr3t-signing",
        "PAPERBRIEF_LLM_API_KEY": "sk-live-abcdefghijkl",
        "PAPERBRIEF_LLM_MODEL": "deepseek-chat",  # not a secret: shown
    }
    secrets = secret_values(load_profile(profile), env)
    redaction = Redaction()
    redaction.hide(secrets)
    line = " ".join(env.values())
    assert redaction.apply(line).split() == [
        "<$SMTP_PASSWORD>", "<$FEISHU_URL>", "<$FEISHU_SECRET>", "<$PAPERBRIEF_LLM_API_KEY>",
        "deepseek-chat",
    ]  # fmt: skip
