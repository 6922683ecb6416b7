"""SIGTERM to a real `paperbrief run --all` child process (tests/faults.md): three readers
of one home, a loopback LLM endpoint, arXiv and webhook receiver. The reader under way
stops as a single run stops (recorded ``interrupted``), the readers after it are not
started, the lab exits 143 and says who is left and how to finish; the rerun finishes them
and no reader's digest reaches the webhook twice. The runs are forks of one warm process
(``tests/support/child.py``, its lab mode: ``cli.lab.run_all`` and ``report_lab``)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from paperbrief.errors import EXIT_DELIVERY_FAILED, EXIT_TERMINATED
from paperbrief.store import open_store
from tests.support import EXAMPLE_PROFILE, FIXTURES, ROOT
from tests.support.child import ChildRun, stop_fork_server
from tests.support.faults import RawServer, response
from tests.support.openai_server import OpenAIServer
from tests.support.pipeline_llm import whole_run

LISTING = FIXTURES / "pipeline" / "2026-05-22.jsonl"
pytestmark = pytest.mark.slow
READERS = ("r0", "r1", "r2")
# Each reader keeps two of the example's four research lines: their judge questions differ,
# so the second reader asks the endpoint its own (the answer cache is the home's).
LINE_PAIRS = ((0, 1), (1, 2), (2, 3))


class Hook:
    """A webhook receiver recording each POST; the POSTs after the first ``answer`` get no
    answer while ``hold`` is set (they stay in flight until the sender goes away)."""

    def __init__(self) -> None:
        self.hold = False
        self.answer = 1
        self.posts: list[bytes] = []
        self.lock = threading.Lock()

    def __call__(self, conn: socket.socket, request: bytes) -> None:
        with self.lock:
            self.posts.append(request)
            held = self.hold and len(self.posts) > self.answer
        if held:
            conn.settimeout(60)
            with contextlib.suppress(OSError):
                conn.recv(1)
            return
        conn.sendall(response(b'{"ok": true}'))

    def readers(self) -> Counter[str]:
        """Whose digest each POST carried: each reader's webhook is /hook/<reader>."""
        return Counter(post.split(b" ", 2)[1].decode().rsplit("/", 1)[-1] for post in self.posts)


def no_html(conn: socket.socket, request: bytes) -> None:
    conn.sendall(response(b"not here", status=404))


def _reader_profile(index: int, llm: str, hook: str) -> str:
    text = EXAMPLE_PROFILE.read_text(encoding="utf-8")
    head, *lines = text.split("[[research_lines]]")
    head = head.replace('name = "AI4SE PhD student"', f'name = "Reader r{index}"')
    body = head + "".join("[[research_lines]]" + lines[i] for i in LINE_PAIRS[index])
    return (
        body
        + f'\n[llm]\nbase_url = "{llm}"\nmodel = "loopback-writer"\nmax_retries = 0\n'
        + f'\n[[delivery.webhooks]]\nkind = "generic"\nurl = "{hook}"\ntimeout = 20\n'
    )


class Lab:
    """A data home, a readers folder and the loopback world of one child `run --all`."""

    def __init__(self, tmp_path: Path, home: Path, llm: str, arxiv: str, hook: str) -> None:
        self.home = home
        folder = tmp_path / "readers"
        folder.mkdir()
        for index, name in enumerate(READERS):
            profile = _reader_profile(index, llm, f"{hook}/{name}")
            (folder / f"{name}.toml").write_text(profile, "utf-8")
        self.spec = tmp_path / "spec.json"
        arxiv_urls = {"html": f"{arxiv}/html", "ar5iv": f"{arxiv}/ar5iv", "pdf": f"{arxiv}/pdf"}
        spec = {"readers": str(folder), "listing": str(LISTING), "out": str(tmp_path / "out")}
        self.spec.write_text(json.dumps({**spec, "arxiv": arxiv_urls}), encoding="utf-8")
        self.env = {**os.environ, "PAPERBRIEF_HOME": str(home), "PAPERBRIEF_LLM_API_KEY": "k"}

    def start(self) -> ChildRun:
        return ChildRun(self.spec, self.env, ROOT)

    def run(self) -> tuple[int, dict, str]:
        child = self.start()
        out, err = child.communicate(timeout=300)
        assert child.returncode is not None
        return child.returncode, _report(out), err


def _report(stdout: str) -> dict:
    """The --json report (the lines before it are the lab's stages)."""
    return json.loads(stdout[stdout.index("\n{") + 1 :] if "\n{" in stdout else stdout)


def _statuses(report: dict) -> list[tuple[str, str]]:
    return [(r["reader"], r["status"]) for r in report["readers"]]


@pytest.fixture(scope="module", autouse=True)
def fork_server():
    yield
    stop_fork_server()


@pytest.fixture
def world(tmp_path: Path, embedded_home: Path):
    hook = Hook()
    with (
        OpenAIServer(whole_run) as llm,
        RawServer(no_html) as arxiv,
        RawServer(hook) as hooks,
    ):
        yield Lab(tmp_path, embedded_home, llm.url, arxiv.url, hooks.url + "/hook"), llm, hook


def _wait_for(condition, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _stop_at_the_second_reader(lab: Lab, llm: OpenAIServer, hook: Hook, stage: str) -> ChildRun:
    """Start the lab; once the first reader's day is over, hold what the second reader's
    ``stage`` waits on (its LLM calls, or its webhook POST) and send SIGTERM while held."""
    child = lab.start()
    assert child.stdout is not None
    for line in child.stdout:
        if re.match(r"stage: reader 1/3 r0: [\w-]+ in \d+ s$", line):  # r0 done, r1 not begun
            break
    if stage == "judging":
        llm.delay = 30.0
        asked = llm.request_count
        _wait_for(lambda: llm.request_count >= asked + 2)  # r1's calls in flight, held
    else:
        _wait_for(lambda: len(hook.posts) >= 2)  # r1's POST arrived, its answer held
    child.send_signal(signal.SIGTERM)
    return child


@pytest.mark.parametrize("stage", ["judging", "delivering"])
def test_sigterm_during_the_second_readers_day_stops_the_lab_and_the_rerun_finishes(world, stage):
    lab, llm, hook = world
    hook.hold = stage == "delivering"
    child = _stop_at_the_second_reader(lab, llm, hook, stage)
    stopped = time.monotonic()
    out, err = child.communicate(timeout=60)
    took = time.monotonic() - stopped
    assert child.returncode == EXIT_TERMINATED, err
    assert took < 8, f"the lab took {took:.1f} s to stop"  # each held answer was 20-30 s away
    assert "Traceback" not in err
    report = _report(out)
    assert report["stopped_by"] == "SIGTERM" and report["exit_code"] == EXIT_TERMINATED
    assert _statuses(report) == [("r0", "published"), ("r1", "interrupted"),
                                 ("r2", "not-started")]  # fmt: skip
    assert "interrupted (SIGTERM): published r0; left r1, r2" in " ".join(err.split())
    assert "rerun `paperbrief run --all`" in err
    with open_store(lab.home / "paperbrief.db") as store:
        runs = {run.profile: (run.status, run.detail) for run in store.runs.all()}
        published = {entry.profile for entry in store.digests.entries()}
    # judging, r1 had nothing to publish yet; delivering, its digest was out before the POST
    assert published == {"Reader r0"} | ({"Reader r1"} if stage == "delivering" else set())
    assert {profile: status for profile, (status, _) in runs.items()} == {
        "Reader r0": "ok", "Reader r1": "interrupted"}  # r2 never started  # fmt: skip
    assert runs["Reader r1"][1] == "SIGTERM"
    assert hook.readers() == Counter({"r0": 1, **({"r1": 1} if stage == "delivering" else {})})

    hook.hold, llm.delay = False, 0.0
    code, report, err = lab.run()
    details = {r["reader"]: r["detail"] for r in report["readers"]}
    assert details["r0"] == "already published"
    if stage == "judging":
        assert code == 0, err
        assert _statuses(report) == [(name, "published") for name in READERS]
    else:  # r1's POST was cut in flight: it may have arrived, so it is unknown, not re-sent
        assert code == EXIT_DELIVERY_FAILED, err
        assert _statuses(report) == [("r0", "published"), ("r1", "not-delivered"),
                                     ("r2", "published")]  # fmt: skip
        assert "generic" in details["r1"]
    assert hook.readers() == Counter(dict.fromkeys(READERS, 1))  # each digest sent once
    with open_store(lab.home / "paperbrief.db") as store:
        last = {run.profile: run.status for run in store.runs.all()}
        paid = Counter(c.cache_key for c in store.llm.calls() if c.outcome.startswith("ok"))
        digests = {entry.profile for entry in store.digests.entries()}
    assert last == {"Reader r0": "reused", "Reader r1": "reused" if stage == "delivering"
                    else "ok", "Reader r2": "ok"}  # fmt: skip
    assert digests == {"Reader r0", "Reader r1", "Reader r2"}
    assert paid and max(paid.values()) == 1  # no answer paid twice across the stop
