"""Nothing leaves the machine in an offline run: `paperbrief demo` with no network at all
(a namespace whose only network is its own loopback, made to look online so that a lookup
is really tried), traced with strace, tries no lookup and no connection and writes nothing
outside its data home, output folder and TMPDIR.

onnxruntime's Linux build sends Microsoft telemetry unless ORT_DISABLE_TELEMETRY is set
before it is imported: 8 DNS lookups of mobile.events.data.microsoft.com per demo and a
device id under ~/.cache/Microsoft (issue 20). The trace sees every process's connect,
sendto and sendmsg calls (a DNS lookup is one of those, to the resolver or to nscd), and
every file it creates, opens for writing, renames or removes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import paperbrief
from paperbrief.rank.embed import DEFAULT_MODEL
from paperbrief.rank.text import paper_text, text_hash
from paperbrief.sources import load_snapshot
from paperbrief.store import open_store
from tests.support import EXAMPLE_PROFILE
from tests.support.embedding import unseen_listing
from tests.support.faults import offline_but_looking_online

TRACED = ",".join(
    ["connect", "sendto", "sendmsg", "openat", "open", "creat", "mkdir", "mkdirat"]
    + ["rename", "renameat", "renameat2", "unlink", "unlinkat"]
)
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC")
PATH_ARGUMENT = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _bytecode_of_the_code(path: str) -> bool:
    """A ``.pyc`` (or its temporary file) in a ``__pycache__`` beside paperbrief's own
    modules: the interpreter compiling a module that nothing imported before (the CLI loads
    a command's module only when it runs), not a file paperbrief writes."""
    package = Path(paperbrief.__file__).parent
    candidate = Path(path)
    return (
        candidate.parent.name == "__pycache__"
        and ".pyc" in candidate.name
        and candidate.parent.parent.is_relative_to(package)
    )


def traced(
    tmp_path: Path, args: list[str]
) -> tuple[subprocess.CompletedProcess[str], Path, list[str]]:
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (apt-get install strace; .ci/run installs it)")
    home = tmp_path / "home"
    (home / "tmp").mkdir(parents=True)
    # A cold home, as a new user's. onnxruntime's telemetry reports after a while of
    # inference: a home seeded with the day's vectors (tests/support/embedding.py) would
    # run the model too briefly for it to try.
    trace = tmp_path / "trace"
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "PAPERBRIEF_HOME": str(home / ".paperbrief"),
        "TMPDIR": str(home / "tmp"),
        "LANG": "C.UTF-8",
    }
    pycache = os.environ.get("PYTHONPYCACHEPREFIX")
    if pycache:  # the test session's bytecode cache (tests/conftest.py): Python's, not ours
        env["PYTHONPYCACHEPREFIX"] = pycache
    command = [strace, "-f", "-qq", "-o", str(trace), "-e", f"trace={TRACED}"]
    command += [sys.executable, "-m", "paperbrief", *args, "--out", str(home / "out")]
    resolv_conf = tmp_path / "resolv.conf"
    resolv_conf.write_text("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n")
    done = subprocess.run(
        offline_but_looking_online(command, resolv_conf),
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=600,
    )
    # the data home, the output folder and TMPDIR; not the rest of $HOME (~/.cache …)
    roots = [home / ".paperbrief", home / "out", home / "tmp"]
    allowed = [*map(str, roots), "/dev/null", "/dev/tty", *([pycache] if pycache else [])]
    writes = []
    for line in trace.read_text(encoding="utf-8", errors="replace").splitlines():
        call = line.split(None, 1)[-1]
        if call.startswith(("openat(", "open(", "creat(")) and not any(
            flag in call for flag in WRITE_FLAGS
        ):
            continue
        if not call.startswith(("open", "creat", "mkdir", "rename", "unlink")):
            continue
        if "= -1" in call and call.startswith(("open", "mkdir")):
            continue  # refused: nothing was written
        for path in PATH_ARGUMENT.findall(call.split(")", 1)[0] + ")"):
            if not os.path.isabs(path):
                path = str(home / path)
            if _bytecode_of_the_code(path):
                continue  # Python's cache of the code it runs (an installed wheel has it)
            if not any(path == root or path.startswith(root.rstrip("/") + "/") for root in allowed):
                writes.append(call)
    lookups = [
        line
        for line in trace.read_text(encoding="utf-8", errors="replace").splitlines()
        if re.search(r"\b(connect|sendto|sendmsg)\(", line)
        and re.search(r"AF_INET6?|nscd|sin_port|/run/dbus", line)
    ]
    return done, home, writes + lookups


def test_the_offline_demo_makes_no_lookup_and_writes_nothing_outside_its_home(tmp_path):
    done, home, offences = traced(tmp_path, ["demo"])
    assert done.returncode == 0, done.stderr[-2000:]
    assert (home / "out" / "2026-05-23.md").is_file()
    assert not offences, "\n".join(offences[:20])
    assert not (home / ".cache").exists()  # no ~/.cache/Microsoft (device id, machine profile)
    assert sorted(p.name for p in home.iterdir()) == [".paperbrief", "out", "tmp"]
    # published files are readable as the umask says; the store is private (0600 in 0700)
    assert (home / "out" / "2026-05-23.md").stat().st_mode & 0o777 == 0o666 & ~os.umask(
        os.umask(0o022)
    )
    assert (home / ".paperbrief" / "demo" / "paperbrief.db").stat().st_mode & 0o777 == 0o600


def test_an_offline_run_that_runs_the_model_makes_no_lookup(tmp_path):
    """The demo's day ships with its vectors (the sample day's), so it hardly runs the
    model; a day of new papers is embedded whole, long enough for onnxruntime's
    telemetry to try to report."""
    listing = unseen_listing(tmp_path)
    args = ["run", "--listing", str(listing), "--profile", str(EXAMPLE_PROFILE), "--offline"]
    done, home, offences = traced(tmp_path, args)
    assert done.returncode == 0, done.stderr[-2000:]
    with open_store(home / ".paperbrief" / "paperbrief.db") as store:
        papers = load_snapshot(listing).papers
        texts = {text_hash(paper_text(p)): p for p in papers}
        stored = store.embeddings.get(DEFAULT_MODEL, dict.fromkeys(texts))
    assert len(stored) >= 0.5 * len(papers), len(stored)  # the model ran: it embedded the day
    assert np.isfinite(list(stored.values())[0]).all()
    assert not offences, "\n".join(offences[:20])
    assert not (home / ".cache").exists()
