"""What the CLI prints: --json on rank/fetch, log lines off a terminal, -q/-v, 80 columns."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import click
from click.testing import CliRunner

from paperbrief.cli import cli
from tests.conftest import PIPELINE_LISTING
from tests.support import EXAMPLE_PROFILE

STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d ")


def day_args() -> list[str]:
    return ["--listing", str(PIPELINE_LISTING), "--profile", str(EXAMPLE_PROFILE)]


def test_rank_and_fetch_print_json(embedded_home):
    fetched = CliRunner().invoke(cli, ["fetch", *day_args(), "--json"])
    assert fetched.exit_code == 0, fetched.output
    summary = json.loads(fetched.stdout)
    assert summary["listing_day"] == "2026-05-22" and summary["papers"] > 0
    assert set(summary) == {"listing_day", "source", "papers", "in_categories", "kinds", "notes"}
    ranked = CliRunner().invoke(cli, ["-q", "rank", *day_args(), "--top", "5", "--json"])
    assert ranked.exit_code == 0, ranked.output
    result = json.loads(ranked.stdout)
    assert [row["rank"] for row in result["ranking"]] == [1, 2, 3, 4, 5]
    assert any(row["pick"] for row in result["ranking"])
    assert set(result["ranking"][0]) == {
        "rank", "id", "title", "score", "stars", "line", "reason", "matched_terms", "pick"
    }  # fmt: skip


def _run(*args: str, env_extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **env_extra}
    return subprocess.run(
        [sys.executable, "-m", "paperbrief", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def test_log_lines_off_a_terminal_are_stamped_and_unwrapped(embedded_home, tmp_path):
    long_name = "x" * 150
    profile = tmp_path / "profile.toml"
    profile.write_text(
        EXAMPLE_PROFILE.read_text(encoding="utf-8").replace(
            'name = "AI4SE PhD student"', f'name = "{long_name}"'
        ),
        encoding="utf-8",
    )
    done = _run(
        "run", "--listing", str(PIPELINE_LISTING), "--profile", str(profile),
        "--offline", "--out", str(tmp_path / "out"),
        env_extra={"COLUMNS": "80"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines and all(STAMP.match(line) for line in lines), lines
    assert any(len(line) > 100 for line in lines)  # a long pick title is not wrapped
    quiet = _run(
        "-q", "run", "--listing", str(PIPELINE_LISTING), "--profile", str(profile),
        "--offline", "--out", str(tmp_path / "out"), env_extra={},
    )  # fmt: skip
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert "markdown:" in quiet.stdout  # what was written still goes to stdout


def test_errors_show_even_when_quiet(isolated_home, tmp_path):
    missing = tmp_path / "nope.toml"
    done = _run("-q", "profile", "check", "--profile", str(missing), env_extra={})
    assert done.returncode == 2 and "error:" in done.stderr and "hint:" in done.stderr
    both = CliRunner().invoke(cli, ["-q", "-v", "profile", "check"])
    assert both.exit_code == 2 and "exclude each other" in both.output


def _commands(group: click.Group, prefix: tuple[str, ...] = ()):
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        yield (*prefix, name)
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))


def test_help_reads_at_80_columns_on_a_wide_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    for path in [(), *_commands(cli)]:
        output = CliRunner().invoke(cli, [*path, "-h"]).output
        long = [line for line in output.splitlines() if len(line) > 80]
        assert not long, (path, long)
        cut = [x for x in output.splitlines() if x.endswith("...") and not x.startswith("Usage:")]
        assert not cut, (path, cut)  # command summaries are whole sentences


def test_a_fell_back_line_is_never_cut_and_keeps_its_hint_whole():
    from paperbrief.cli.daily import fallback_lines
    from paperbrief.errors import LLMRefused
    from paperbrief.models import Fallback

    hint = "set PAPERBRIEF_LLM_API_KEY to a valid key " + "(see the provider's console) " * 12
    error = LLMRefused("the endpoint answered 401: " + "x" * 5000, hint.strip())
    (line,) = fallback_lines([Fallback.of("brief", error, "2605.00001")])
    assert line.endswith(f"(hint: {hint.strip()})")
    assert len(line) > 400 and len(line) < 1500  # the message is bounded, the hint whole
