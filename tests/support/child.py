"""`paperbrief run` in a child process, with arXiv on loopback, for the kill -9 and
concurrent-run tests (tests/faults.md).

    python -m tests.support.child SPEC.json

SPEC: {"profile": path, "listing": path, "out": path, "today": "2026-05-23",
       "arxiv": {"html": url, "ar5iv": url, "pdf": url} (optional; then the polite client
       waits no politeness delay between requests: it is our own loopback server)}
or, for `paperbrief run --all`, "readers": folder instead of "profile": the lab's run as
``cli.lab.run_all`` composes it (``lab.lab_services``, ``lab.run_lab``, the CLI's signal
handling and its ``report_lab`` in --json), the digest date the spec's "today".
The data home is $PAPERBRIEF_HOME, as for the CLI. The child does what `paperbrief run`
does — the same profile loading, services, pipeline, error reporting and exit codes — with
one difference: the arXiv endpoints come from the spec (the CLI always talks to arxiv.org),
and each stage is printed as ``stage: <message>`` (flushed), so the parent can kill the
child at a stage of its choosing. SIGINT and SIGTERM stop it as they stop `paperbrief run`
(``cli.common.stopping``, the same ``Stop`` given to the services).

``ChildRun`` starts the same run as a fork of one warm process (multiprocessing's fork
server, which has imported this module and so paperbrief's pipeline once per session): its
own process, environment, working directory, stdout and stderr, killed by a real SIGKILL,
but without the ~0.8 s of CPU each fresh interpreter spends importing paperbrief (twenty
runs a session). ``ChildRun(..., fresh=True)`` runs ``python -m tests.support.child``.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterable, Sequence
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

from paperbrief.cli.common import get_store, mapped_errors, stopping
from paperbrief.cli.lab import lab_today, report_lab
from paperbrief.errors import (
    EXIT_DELIVERY_FAILED,
    EXIT_FALLBACKS,
    EmptyDay,
)
from paperbrief.http import PoliteClient
from paperbrief.lab import lab_services, load_readers, reader_files, run_lab
from paperbrief.pipeline import RunOptions, run_day
from paperbrief.profile import load_profile
from paperbrief.retry import RetryPolicy
from paperbrief.services import ArxivEndpoints, Services, Stop, network_deadline

T = TypeVar("T")


class StagePrinter:
    def stage(self, message: str) -> None:
        print(f"stage: {message}", flush=True)

    def track(self, items: Sequence[T], description: str) -> Iterable[T]:
        for index, item in enumerate(items):
            print(f"stage: {description} {index + 1}/{len(items)}", flush=True)
            yield item


def _loopback_http(minutes: float, stop: Stop) -> PoliteClient:
    """A polite client for our own loopback arXiv: no delay, no retry, the run's deadline."""
    deadline = network_deadline(minutes, stop)
    return PoliteClient(delay_seconds=0, retry=RetryPolicy(max_retries=0), deadline=deadline)


def main_lab(spec: dict[str, Any]) -> int:
    """What `paperbrief run --all --listing L --out O --date D --json` does (``cli.lab.run_all``
    and ``report_lab`` under ``stopping``), arXiv on loopback; each lab stage printed."""
    options = RunOptions(
        digest_date=date.fromisoformat(spec.get("today", "2026-05-23")),
        listing_file=Path(spec["listing"]),
        out_dir=Path(spec["out"]),
    )
    arxiv = ArxivEndpoints(**spec["arxiv"])
    readers = load_readers(reader_files(Path(spec["readers"])))
    profiles = [r.profile for r in readers if r.profile is not None]
    today = lab_today(profiles)
    stop = Stop()
    with (
        stopping(stop),
        _loopback_http(60.0, stop) as http,
        lab_services(
            profiles,
            offline=False,
            day=options.digest_date or today,
            stop=stop,
            arxiv=arxiv,
            http=http,
        ) as build,
        get_store() as store,
    ):
        lab = run_lab(store, readers, options, build, today=today, reporter=StagePrinter())
        report_lab(lab, as_json=True)  # raises SystemExit with its code unless 0
    return 0


def main(spec_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    if "readers" in spec:
        return main_lab(spec)
    profile = load_profile(Path(spec["profile"]))
    today = date.fromisoformat(spec.get("today", "2026-05-23"))
    options = RunOptions(listing_file=Path(spec["listing"]), out_dir=Path(spec["out"]))
    stop = Stop()
    with stopping(stop), get_store() as store:
        arxiv = ArxivEndpoints(**spec["arxiv"]) if spec.get("arxiv") else None
        http = None
        if arxiv is not None:
            http = _loopback_http(profile.run.deadline_minutes, stop)
        services = Services.build(
            profile, store, offline=False, day=today, arxiv=arxiv, http=http, stop=stop
        )
        with services:
            result = run_day(
                store, profile, options, services, today=today, reporter=StagePrinter()
            )
    summary = {
        "digest_date": result.digest_date.isoformat(),
        "reused": result.reused,
        "writer": result.writer,
        "files": {kind: str(path) for kind, path in result.files.items()},
        "fallbacks": [[f.part, f.reason, f.paper_id] for f in result.fallbacks],
        "deliveries": [[d.channel, d.status, d.detail] for d in result.deliveries],
        "notes": list(result.notes),
    }
    print("result: " + json.dumps(summary, ensure_ascii=False), flush=True)
    if result.failed_channels:
        return EXIT_DELIVERY_FAILED
    return EXIT_FALLBACKS if result.fallbacks else 0


def run(spec_path: str) -> int:
    """The child's whole run, with the CLI's error reporting: its exit code (as the CLI:
    one line per error, 130/143 when interrupted)."""
    with mapped_errors():
        try:
            return main(spec_path)
        except EmptyDay as empty:
            print(f"empty: {empty.message}", flush=True)
            return empty.exit_code


_FORKS = multiprocessing.get_context("forkserver")
_FORKS.set_forkserver_preload([__name__])


def _run_forked(
    spec_path: str, env: dict[str, str], cwd: str, out: socket.socket, err: socket.socket
) -> None:
    """In the fork: the run's own stdout, stderr, environment and directory, then the run."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(out.fileno(), 1)
    os.dup2(err.fileno(), 2)
    out.close()
    err.close()
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.exit(run(spec_path))


class ChildRun:
    """One run of the child (the parts of ``subprocess.Popen`` the tests use): ``pid``,
    ``stdout`` / ``stderr`` as text streams, ``poll``, ``wait``, ``communicate``,
    ``returncode`` (negative: the signal that ended it)."""

    def __init__(self, spec: Path, env: dict[str, str], cwd: Path, fresh: bool = False) -> None:
        self._popen: subprocess.Popen[str] | None = None
        self._process: multiprocessing.process.BaseProcess | None = None
        if fresh:
            self._popen = subprocess.Popen(
                [sys.executable, "-m", __name__, str(spec)],
                cwd=cwd,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            assert self._popen.stdout is not None and self._popen.stderr is not None
            self.pid = self._popen.pid
            self.stdout, self.stderr = self._popen.stdout, self._popen.stderr
            return
        out, child_out = socket.socketpair()
        err, child_err = socket.socketpair()
        self._process = _FORKS.Process(
            target=_run_forked, args=(str(spec), env, str(cwd), child_out, child_err)
        )
        self._process.start()
        child_out.close()
        child_err.close()
        assert self._process.pid is not None
        self.pid = self._process.pid
        self.stdout = out.makefile("r", encoding="utf-8")
        self.stderr = err.makefile("r", encoding="utf-8")
        out.close()  # the files keep the sockets open
        err.close()

    @property
    def returncode(self) -> int | None:
        if self._popen is not None:
            return self._popen.returncode
        assert self._process is not None
        return self._process.exitcode

    def send_signal(self, number: int) -> None:
        """A real signal to the run's process (SIGTERM, SIGINT, SIGKILL)."""
        if self._popen is not None:
            self._popen.send_signal(number)
        else:
            os.kill(self.pid, number)

    def poll(self) -> int | None:
        if self._popen is not None:
            return self._popen.poll()
        return self.returncode

    def wait(self, timeout: float) -> int:
        if self._popen is not None:
            return self._popen.wait(timeout)
        assert self._process is not None
        self._process.join(timeout)
        if self._process.exitcode is None:
            raise subprocess.TimeoutExpired(f"child {self.pid}", timeout)
        return self._process.exitcode

    def communicate(self, timeout: float) -> tuple[str, str]:
        """All of stdout and stderr (read at once, so neither pipe fills) and the exit."""
        if self._popen is not None:
            return self._popen.communicate(timeout=timeout)
        errors: list[str] = []
        reader = threading.Thread(target=lambda: errors.append(self.stderr.read()))
        reader.start()
        out = self.stdout.read()
        reader.join(timeout)
        self.wait(timeout)
        self.stdout.close()
        self.stderr.close()
        return out, "".join(errors)


def stop_fork_server() -> None:
    """End the fork server and wait for it, so its runs' CPU time is counted in this
    process's children (as a fresh interpreter's would be)."""
    from multiprocessing import forkserver

    forkserver._forkserver._stop()  # type: ignore[attr-defined]


if __name__ == "__main__":
    sys.exit(run(sys.argv[1]))
