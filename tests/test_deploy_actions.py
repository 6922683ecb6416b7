"""The GitHub Actions recipe, run here: its steps' own commands and environment (read from
deploy/github/paperbrief.yml, `${{ }}` expressions filled in), in a clone of a local bare
repository standing in for the reader's, with real git pushes and a real paperbrief.

What a reader who forks it needs for months: the data home kept durably (a branch, not a
cache GitHub evicts), feedback that the next run sees, days with fallbacks published, the
secrets only in the step that needs them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import PIPELINE_LISTING
from tests.support import EXAMPLE_PROFILE, ROOT
from tests.support.faults import closed_port, without_network

WORKFLOW = ROOT / "deploy" / "github" / "paperbrief.yml"
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")
LIKED = "2605.22817"  # a paper of the pipeline listing


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def job() -> dict:
    return workflow()["jobs"]["digest"]


def step(name: str) -> dict:
    (found,) = [s for s in job()["steps"] if s.get("name") == name]
    return found


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


class Runner:
    """Runs the workflow's steps as GitHub would: ``bash -eo pipefail`` in the workspace,
    with the job's and the step's env, expressions replaced by ``values``."""

    def __init__(self, workspace: Path, values: dict[str, str], env: dict[str, str]) -> None:
        self.workspace = workspace
        self.values = values
        self.env = env

    def fill(self, text: str) -> str:
        def value(match: re.Match[str]) -> str:
            expression = match.group(1)
            if "||" in expression:  # `vars.X || 'default'`
                first, default = (part.strip() for part in expression.split("||"))
                return self.values.get(first) or default.strip("'")
            return self.values.get(expression, "")

        return EXPRESSION.sub(value, text)

    def run(self, name: str, wrap=None) -> subprocess.CompletedProcess[str]:
        spec = step(name)
        env = dict(self.env)
        for key, raw in {**job().get("env", {}), **spec.get("env", {})}.items():
            env[key] = self.fill(str(raw))
        command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", spec["run"]]
        return subprocess.run(
            wrap(command) if wrap else command,
            cwd=self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )


@pytest.fixture
def reader(tmp_path: Path) -> tuple[Path, Runner]:
    """The reader's repository (a bare one, as on GitHub) holding the recipe's files and a
    profile, and a runner over a fresh clone of it (one job's workspace)."""
    origin = tmp_path / "origin.git"
    seed = tmp_path / "seed"
    git("init", "--quiet", "--bare", "-b", "main", str(origin), cwd=tmp_path)
    git("clone", "--quiet", str(origin), str(seed), cwd=tmp_path)
    (seed / "deploy" / "github").mkdir(parents=True)
    shutil.copy(ROOT / "deploy" / "github" / "steps.sh", seed / "deploy" / "github")
    shutil.copy(WORKFLOW, seed / "deploy" / "github")
    shutil.copy(EXAMPLE_PROFILE, seed / "profile.toml")
    shutil.copy(ROOT / ".gitignore", seed / ".gitignore")
    (seed / "feedback.txt").write_text(
        f"# one line per paper: <arXiv id> up|down|save|hide [note]\n{LIKED} up on topic\n"
    )
    for command in (["add", "-A"], ["commit", "--quiet", "-m", "my paperbrief"], ["push", "-q"]):
        git("-c", "user.name=me", "-c", "user.email=me@example.org", *command, cwd=seed)
    return origin, runner_for(origin, tmp_path / "job1", tmp_path)


def runner_for(origin: Path, workspace: Path, tmp_path: Path) -> Runner:
    git("clone", "--quiet", str(origin), str(workspace), cwd=tmp_path)
    output = tmp_path / f"{workspace.name}-output"
    output.touch()
    values = {
        "github.workspace": str(workspace),
        "github.token": "t0ken",
        "vars.PAPERBRIEF_LLM_BASE_URL": "",
        "vars.PAPERBRIEF_LLM_MODEL": "",
        "secrets.PAPERBRIEF_LLM_API_KEY": "",
        "secrets.PAPERBRIEF_SMTP_PASSWORD": "",
    }
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path / "runner-home"),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_REF_NAME": "main",
        "GITHUB_REPOSITORY": "me/paperbrief-daily",
        # a snapshot listing instead of arXiv (the same options the env file can set)
        "PAPERBRIEF_RUN_LISTING_FILE": str(PIPELINE_LISTING),
        "PYTHONPYCACHEPREFIX": os.environ.get("PYTHONPYCACHEPREFIX", ""),
    }
    return Runner(workspace, values, env)


def outputs(runner: Runner) -> dict[str, str]:
    text = Path(runner.env["GITHUB_OUTPUT"]).read_text()
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def test_secrets_reach_only_the_step_that_needs_them():
    assert not any("secrets." in str(v) for v in job().get("env", {}).values())
    holders = {
        s.get("name", s.get("uses")): sorted(set(re.findall(r"secrets\.(\w+)", json.dumps(s))))
        for s in job()["steps"]
    }
    assert {name: found for name, found in holders.items() if found} == {
        "Sync the Zotero library": ["ZOTERO_API_KEY"],
        "Make today's digest": ["PAPERBRIEF_LLM_API_KEY", "PAPERBRIEF_SMTP_PASSWORD"],
        "Check out the blog": ["BLOG_TOKEN"],
        "Commit the post to the blog": ["BLOG_TOKEN"],
    }
    checkouts = [s for s in job()["steps"] if str(s.get("uses", "")).startswith("actions/checkout")]
    assert all(s["with"]["persist-credentials"] is False for s in checkouts)  # no token on disk
    assert step("Install paperbrief")["run"].strip() == "python -m pip install ."  # this checkout


def test_the_schedule_is_kept_alive_and_fallback_days_are_published():
    triggers = workflow()[True]  # YAML 1.1 reads the key `on` as a boolean
    assert triggers["schedule"] == [{"cron": "30 23 * * 0-4"}]  # 07:30 Beijing, Mon–Fri
    assert "keep-alive" in step("Keep the schedule alive")["run"]
    assert job()["permissions"]["actions"] == "write"
    for name in ("Check out the blog", "Commit the post to the blog"):
        assert '["0","7","8"]' in step(name)["if"]
    assert step("Save the data home")["if"].startswith("always()")


def test_a_day_feedback_and_the_next_day_keep_everything_on_the_data_branch(reader, tmp_path):
    origin, first = reader
    assert first.run("Restore the data home").returncode == 0
    applied = first.run("Apply feedback")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "1 line(s)" in applied.stdout
    first.env["PAPERBRIEF_RUN_OFFLINE"] = "1"
    ran = first.run("Make today's digest")
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert outputs(first)["status"] == "0"
    # GitHub refuses a file over 100 MB, which a store passes within weeks: the home goes
    # in parts (here of 64 KiB, so that this day's store needs several)
    first.env["PART_SIZE"] = "64K"
    saved = first.run("Save the data home")
    assert saved.returncode == 0, saved.stderr
    listed = git("ls-tree", "-r", "--long", "paperbrief-data", cwd=origin).splitlines()
    sizes = {line.split()[-1]: int(line.split()[3]) for line in listed}
    assert len(sizes) > 1 and max(sizes.values()) <= 64 * 1024, sizes
    assert all(name.startswith("home.tar.gz.part-") for name in sizes)
    database = first.workspace / ".paperbrief" / "paperbrief.db"
    kept = database.read_bytes()
    # the inbox was emptied on main (its comment kept), so nothing is applied twice
    inbox = git("show", "main:feedback.txt", cwd=origin)
    assert LIKED not in inbox and inbox.startswith("#")

    # The next morning, on a fresh runner: the store and the feedback are back.
    second = runner_for(origin, tmp_path / "job2", tmp_path)
    assert second.run("Restore the data home").returncode == 0
    listed = subprocess.run(
        ["paperbrief", "feedback", "list", "--json"],
        env={**second.env, "PAPERBRIEF_HOME": str(second.workspace / ".paperbrief")},
        capture_output=True,
        text=True,
    )
    assert LIKED in listed.stdout, listed.stdout + listed.stderr
    home = second.workspace / ".paperbrief"
    assert (home / "paperbrief.db").read_bytes() == kept  # byte for byte
    assert not (home / "locks").exists()  # the run's locks are not data
    assert (home / "paperbrief.db").stat().st_mode & 0o777 == 0o600
    assert home.stat().st_mode & 0o777 == 0o700
    # and a second save replaces the branch's one commit (it does not grow a history)
    assert second.run("Save the data home").returncode == 0
    assert git("rev-list", "--count", "paperbrief-data", cwd=origin).strip() == "1"


def test_a_day_with_fallbacks_exits_8_and_is_published_to_the_blog(reader, tmp_path):
    origin, runner = reader
    blog_origin = tmp_path / "blog.git"
    git("init", "--quiet", "--bare", "-b", "main", str(blog_origin), cwd=tmp_path)
    git("clone", "--quiet", str(blog_origin), str(runner.workspace / "blog"), cwd=tmp_path)
    assert runner.run("Restore the data home").returncode == 0
    # An LLM endpoint that is down, and no route to arXiv: every LLM part falls back.
    runner.values["vars.PAPERBRIEF_LLM_BASE_URL"] = f"http://127.0.0.1:{closed_port()}/v1"
    runner.values["vars.PAPERBRIEF_LLM_MODEL"] = "m"
    runner.values["secrets.PAPERBRIEF_LLM_API_KEY"] = "k"
    ran = runner.run("Make today's digest", wrap=without_network)
    assert ran.returncode == 0, ran.stderr[-2000:]  # the step passes: there is a digest
    assert outputs(runner)["status"] == "8"
    runner.values["vars.BLOG_POSTS_DIR"] = "posts"
    published = runner.run("Commit the post to the blog")
    assert published.returncode == 0, published.stdout + published.stderr
    assert "2026-05-23.md" in git("ls-tree", "-r", "--name-only", "main", cwd=blog_origin)
    again = runner.run("Commit the post to the blog")
    assert "already published" in again.stdout


def test_the_zotero_library_syncs_as_likes_and_a_down_zotero_costs_the_day_nothing(reader):
    """The step against a loopback server speaking Zotero's web API: the library's papers
    become 👍 (a second sync adds nothing); with Zotero unreachable the step warns and
    passes, and the day's run goes on."""
    from tests.support.zotero import ZoteroLibrary, ZoteroServer
    from tests.test_zotero import COLLECTIONS, zotero_items

    _, runner = reader
    assert runner.run("Restore the data home").returncode == 0
    assert step("Sync the Zotero library")["if"] == "vars.ZOTERO_LIBRARY != ''"
    runner.values["vars.ZOTERO_LIBRARY"] = "zotero:users/12345?collection=Program repair"
    runner.values["secrets.ZOTERO_API_KEY"] = "k3y"
    with ZoteroServer(ZoteroLibrary(zotero_items(), COLLECTIONS)) as server:
        runner.env["PAPERBRIEF_ZOTERO_API"] = server.url
        synced = runner.run("Sync the Zotero library")
        again = runner.run("Sync the Zotero library")
    assert synced.returncode == 0, synced.stdout + synced.stderr
    assert "imported 18 liked papers" in synced.stdout + synced.stderr  # 14 + 4 in the sub
    assert "(18 already there)" in again.stdout + again.stderr  # kept in the data home
    runner.env["PAPERBRIEF_ZOTERO_API"] = f"http://127.0.0.1:{closed_port()}"
    down = runner.run("Sync the Zotero library")
    assert down.returncode == 0, down.stderr
    assert "::warning::the Zotero library could not be read" in down.stdout
