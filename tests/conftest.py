"""Shared test set-up: an isolated data home for every test, and a check that every recorded
fixture file is used by some test (in the style of arxiv.py's ``pytest_sessionfinish``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from paperbrief.profile import load_profile
from tests.support import EXAMPLE_PROFILE, FIXTURES
from tests.support.browser import launch_chromium
from tests.support.embedding import SharedEncoder, VectorSeed

PIPELINE_LISTING = FIXTURES / "pipeline" / "2026-05-22.jsonl"

_FIXTURE_ROOT = str(FIXTURES.resolve()) + os.sep
_OPENED: set[str] = set()  # fixture files some test opened (test-process state only)


def _record_fixture_opens(event: str, args: tuple[object, ...]) -> None:
    # Audit hook: every open() of a file under tests/fixtures, however the test reached it
    # (open, Path.read_bytes, gzip, numpy, shutil.copytree ...).
    if event == "open" and args and isinstance(args[0], str | bytes | os.PathLike):
        path = os.path.abspath(os.fsdecode(args[0]))  # type: ignore[arg-type]
        if path.startswith(_FIXTURE_ROOT):
            _OPENED.add(path)


sys.addaudithook(_record_fixture_opens)


def pytest_configure(config: pytest.Config) -> None:
    """Child processes (the kill -9 runs, CLI subprocesses, the PDF reader) read and write
    bytecode where Python keeps it, even when the environment sets PYTHONDONTWRITEBYTECODE:
    the dev venv's packages were compiled when pip installed them, and paperbrief's and the
    tests' own modules are compiled by the first child that imports them, not by each.
    (A session-wide PYTHONPYCACHEPREFIX did the same for the tree but made the first child
    compile every installed package again, ~2 s of CPU; the tree's ``__pycache__`` folders
    are ignored by git and left out of the wheel's build copy.)"""
    config.stash[_DONT_WRITE] = os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def pytest_unconfigure(config: pytest.Config) -> None:
    child = sys.modules.get("tests.support.child")
    if child is not None:  # its fork server's runs count in this process's CPU time
        child.stop_fork_server()
    dont_write = config.stash[_DONT_WRITE]
    if dont_write is not None:
        os.environ["PYTHONDONTWRITEBYTECODE"] = dont_write


_DONT_WRITE = pytest.StashKey[str | None]()


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own PAPERBRIEF_HOME so no test touches ~/.paperbrief."""
    home = tmp_path / "home"
    monkeypatch.setenv("PAPERBRIEF_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for variable in ("PAPERBRIEF_LLM_API_KEY", "OPENAI_API_KEY", "PAPERBRIEF_LLM_BASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    return home


@pytest.fixture(scope="session")
def encoder() -> SharedEncoder:
    """The bundled embedding model, shared by every test of the session."""
    return SharedEncoder()


@pytest.fixture(scope="session")
def pipeline_vectors(encoder: SharedEncoder) -> VectorSeed:
    """Vectors of the pipeline fixture listing and the example profile (computed once)."""
    return VectorSeed(encoder, load_profile(EXAMPLE_PROFILE), [PIPELINE_LISTING])


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for every browser test of the session (each opens its pages)."""
    yield from launch_chromium()


@pytest.fixture
def embedded_home(isolated_home: Path, pipeline_vectors: VectorSeed) -> Path:
    """The isolated home with those vectors in its cache, for tests that run the CLI (which
    builds its own services and so loads no model when the cache has them)."""
    pipeline_vectors.seed_file(isolated_home / "paperbrief.db")
    return isolated_home


def _whole_suite(session: pytest.Session) -> bool:
    config = session.config
    return (
        config.args_source == pytest.Config.ArgsSource.TESTPATHS
        and not config.option.keyword
        and not config.option.markexpr
        and not config.option.maxfail
        and not getattr(config.option, "lf", False)
    )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail a whole-suite run when a recorded fixture file is never opened by any test."""
    if not _whole_suite(session) or exitstatus != pytest.ExitCode.OK:
        return
    recorded = {
        str(path.resolve())
        for path in FIXTURES.rglob("*")
        if path.is_file() and path.name != "README.md"
    }
    unused = sorted(recorded - _OPENED)
    if unused:
        terminal = session.config.pluginmanager.get_plugin("terminalreporter")
        lines = [os.path.relpath(path, FIXTURES) for path in unused]
        message = "fixture files no test uses (delete them or test with them): " + ", ".join(lines)
        if terminal is not None:
            terminal.write_line("")
            terminal.write_line(message, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
