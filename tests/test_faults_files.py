"""Every file paperbrief reads is a regular file read with a cap (issue 21, tests/faults.md):
a symlink to /dev/zero, a named pipe named like a PDF, a profile that is a pipe, a listing
that is a pipe (the model file is part A's: see tests/faults.md) — each refused at once
with one line and a hint, never read until memory runs out or waited on forever. And files
that claim a kind they are not (gzip or random bytes named .html, a digest that is not
UTF-8) are a one-line error, not an empty page or the "this is a bug" hint.

The hangs are staged in child processes with a timeout: a regression fails the test
instead of hanging the suite."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.errors import EXIT_USAGE
from tests.support import EXAMPLE_PROFILE, ROOT

PAGE = ROOT / "tests" / "fixtures" / "fulltext" / "arxiv_html_2501.11120v1.html"


def _paperbrief(args: list[str], home: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """`paperbrief ARGS` in a child process (a hang fails here, after ``timeout``)."""
    env = {**os.environ, "PAPERBRIEF_HOME": str(home), "PAPERBRIEF_DEBUG": ""}
    return subprocess.run(
        [sys.executable, "-m", "paperbrief", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def _one_error_line(output: str) -> None:
    errors = [line for line in output.splitlines() if "error:" in line]
    assert len(errors) == 1, output
    assert "hint:" in output and "Traceback" not in output and "bug" not in output


@pytest.fixture()
def fifo(tmp_path: Path):
    def make(name: str) -> Path:
        path = tmp_path / name
        os.mkfifo(path)
        return path

    return make


def test_read_of_a_symlink_to_dev_zero_is_refused_at_once(tmp_path):
    link = tmp_path / "x.pdf"
    link.symlink_to("/dev/zero")
    started = time.monotonic()
    done = _paperbrief(["read", str(link)], tmp_path / "home")
    assert time.monotonic() - started < 20  # it grew to 8.5 GB in 45 s before
    assert done.returncode != 0
    assert "is a character device, not a regular file" in done.stderr
    _one_error_line(done.stderr)


def test_read_of_a_fifo_named_pdf_is_refused_at_once(tmp_path, fifo):
    done = _paperbrief(["read", str(fifo("paper.pdf"))], tmp_path / "home", timeout=30)
    assert done.returncode != 0 and "is a named pipe (FIFO)" in done.stderr
    _one_error_line(done.stderr)


def test_a_fifo_as_the_profile_is_refused_at_once(tmp_path, fifo):
    done = _paperbrief(
        ["profile", "check", "--profile", str(fifo("profile.toml"))], tmp_path / "home", 30
    )
    assert done.returncode == EXIT_USAGE and "is a named pipe (FIFO)" in done.stderr
    _one_error_line(done.stderr)


def test_a_fifo_as_the_listing_is_refused_at_once(tmp_path, fifo):
    profile = tmp_path / "profile.toml"
    profile.write_text(EXAMPLE_PROFILE.read_text(encoding="utf-8"), encoding="utf-8")
    listing = fifo("2026-05-22.jsonl")
    args = ["run", "--profile", str(profile), "--listing", str(listing), "--offline"]
    done = _paperbrief([*args, "--out", str(tmp_path / "out")], tmp_path / "home", 30)
    assert done.returncode != 0 and "is a named pipe (FIFO)" in done.stderr
    _one_error_line(done.stderr)


def test_read_of_a_gzipped_page_named_html_fails_and_says_so(tmp_path):
    page = tmp_path / "paper.html"
    page.write_bytes(gzip.compress(PAGE.read_bytes()))
    result = CliRunner().invoke(cli, ["read", str(page)])
    assert result.exit_code != 0 and "gzip-compressed" in result.output


def test_read_of_random_bytes_named_html_fails(tmp_path):
    page = tmp_path / "paper.html"
    page.write_bytes(os.urandom(200_000))  # read as an untitled page with exit 0 before
    result = CliRunner().invoke(cli, ["read", str(page)])
    assert result.exit_code != 0 and "not an HTML page" in result.output


def test_read_of_a_real_saved_page_still_works(tmp_path):
    result = CliRunner().invoke(cli, ["read", str(PAGE)])
    assert result.exit_code == 0, result.output


def test_verify_of_a_file_that_is_not_utf8_is_one_line_with_the_fix(tmp_path):
    digest = tmp_path / "2026-05-23.md"
    digest.write_bytes("### 论文\n📌 arXiv:2605.21930\n".encode("gb18030"))
    result = CliRunner().invoke(cli, ["verify", str(digest)])
    assert result.exit_code == EXIT_USAGE
    assert "is not UTF-8 text (line 1" in result.output and "save it as UTF-8" in result.output
    assert "bug" not in result.output


def test_verify_of_a_fifo_is_refused_at_once(tmp_path, fifo):
    done = _paperbrief(["verify", str(fifo("digest.md"))], tmp_path / "home", 30)
    assert done.returncode == EXIT_USAGE and "is a named pipe (FIFO)" in done.stderr


def test_a_read_only_data_home_still_serves_search_and_says_why_run_cannot(tmp_path):
    """issue 21: a read-only data home broke even `search`, with a misleading hint. Staged
    on a real read-only bind mount (``unshare -rm``), where root cannot write either."""
    from tests.support.faults import require_namespaces
    from tests.support.web import seed_store

    require_namespaces()
    (tmp_path / "seed").mkdir()
    store_path, profile_path = seed_store(tmp_path / "seed")
    home = store_path.parent
    python = f"{sys.executable} -m paperbrief"
    script = (
        f"mount --bind {home} {home} && mount -o remount,bind,ro {home}"
        f" && export PAPERBRIEF_HOME={home}"
        f" && {python} search ArkTS --json; echo search-rc=$?"
        f" && {python} run --profile {profile_path} --offline --out {tmp_path / 'out'}"
        "; echo run-rc=$?"
    )
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert "search-rc=0" in done.stdout, done.stdout + done.stderr
    assert '"id": "2605.10002"' in done.stdout  # found in the read-only store
    assert "run-rc=1" in done.stdout or "run-rc=2" in done.stdout, done.stdout
    assert "is read-only" in done.stderr and "writable folder" in done.stderr
    assert "check the file is a paperbrief database" not in done.stderr  # the old, wrong hint
