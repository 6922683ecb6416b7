"""The deployment recipes in deploy/: linted by the real linters (a planted mistake must
fail them), and the cron line run as cron would, in an empty HOME."""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import PIPELINE_LISTING
from tests.support import EXAMPLE_PROFILE, ROOT

DEPLOY = ROOT / "deploy"
WORKFLOW = DEPLOY / "github" / "paperbrief.yml"
DOCKERFILE = DEPLOY / "docker" / "Dockerfile"
COMPOSE = DEPLOY / "docker" / "compose.yaml"
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d ")


def tool(name: str) -> str:
    """A linter installed with the dev extras, beside this Python (they are required)."""
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is missing: install the dev extras (`make` does)")
    return found


def lint(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, check=False)


def test_the_workflow_passes_actionlint_and_a_planted_error_fails(tmp_path):
    done = lint(tool("actionlint"), "-no-color", str(WORKFLOW))
    assert done.returncode == 0, done.stdout + done.stderr
    broken = tmp_path / "broken.yml"
    text = WORKFLOW.read_text(encoding="utf-8")
    broken.write_text(text.replace("secrets.PAPERBRIEF_LLM_API_KEY", "secret.LLM_KEY"), "utf-8")
    assert lint(tool("actionlint"), "-no-color", str(broken)).returncode == 1


def test_the_workflow_steps_pass_shellcheck_and_a_planted_error_fails(tmp_path):
    steps = DEPLOY / "github" / "steps.sh"
    done = lint(tool("shellcheck"), "--severity=warning", str(steps))
    assert done.returncode == 0, done.stdout + done.stderr
    broken = tmp_path / "steps.sh"
    planted = steps.read_text(encoding="utf-8").replace("identity() {", "identity() {\n  unused=1")
    broken.write_text(planted, "utf-8")
    assert lint(tool("shellcheck"), "--severity=warning", str(broken)).returncode == 1


def test_the_dockerfile_passes_hadolint_and_a_planted_error_fails(tmp_path):
    done = lint(tool("hadolint"), "--no-color", str(DOCKERFILE))
    assert done.returncode == 0, done.stdout + done.stderr
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert "USER 10001" in text and 'VOLUME ["/data"]' in text
    assert "PAPERBRIEF_HOME=/data" in text and "torch" not in text.replace("no torch", "")
    broken = tmp_path / "Dockerfile"
    broken.write_text(text.replace("FROM python:3.11-slim\n", "FROM python\n"), "utf-8")
    assert lint(tool("hadolint"), "--no-color", str(broken)).returncode == 1


def test_compose_passes_compose_lint_and_mounts_the_dockerfiles_home(tmp_path):
    done = lint(tool("compose-lint"), "check", "--fail-on", "low", str(COMPOSE))
    assert done.returncode == 0, done.stdout + done.stderr
    service = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]["paperbrief"]
    # the owner of ./data when given (the store is written there), else the image's user
    assert service["user"] == "${PAPERBRIEF_UID:-10001}:${PAPERBRIEF_GID:-10001}"
    # compose resolves paths against the file's folder: they must mean the repository root's
    # ./data and ./.env, where the README (and .gitignore) put them
    (volume,) = service["volumes"]
    assert (COMPOSE.parent / volume.split(":")[0]).resolve() == ROOT / "data"
    assert volume.endswith(":/data")
    (env_file,) = service["env_file"]
    assert (COMPOSE.parent / env_file["path"]).resolve() == ROOT / ".env"
    assert (COMPOSE.parent / service["build"]["context"]).resolve() == ROOT
    assert (ROOT / service["build"]["dockerfile"]).is_file()
    broken = tmp_path / "compose.yaml"
    broken.write_text(
        COMPOSE.read_text(encoding="utf-8").replace("read_only: true", "privileged: true"),
        encoding="utf-8",
    )
    assert lint(tool("compose-lint"), "check", "--fail-on", "low", str(broken)).returncode == 1


def _installed_like_pipx(home: Path) -> None:
    """~/.local/bin/paperbrief, where `pipx install` / `uv tool install` put it."""
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "bin" / "paperbrief").symlink_to(Path(sys.executable).parent / "paperbrief")


def systemd_units(tmp_path: Path, home: Path) -> tuple[Path, Path]:
    """The shipped template units as the instance of the user running the tests, with
    their /home/<user> paths pointed at ``home``."""
    user = pwd.getpwuid(os.getuid()).pw_name
    units = []
    for suffix in ("service", "timer"):
        text = (DEPLOY / "systemd" / f"paperbrief@.{suffix}").read_text(encoding="utf-8")
        unit = tmp_path / f"paperbrief@{user}.{suffix}"
        unit.write_text(text.replace("/home/%i", str(home)), encoding="utf-8")
        units.append(unit)
    return units[0], units[1]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_the_systemd_units_verify(tmp_path):
    home = tmp_path / "home"
    _installed_like_pipx(home)
    service, timer = systemd_units(tmp_path, home)
    done = lint("systemd-analyze", "verify", str(service), str(timer))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_the_service_is_sandboxed_and_rated_ok_by_systemd_analyze_security(tmp_path):
    """`systemd-analyze security --offline=yes` rates the unit file as it stands (0 safe …
    10 unsafe; "OK" is below 5); --threshold=49 fails above 4.9. A unit without the
    sandbox (the one shipped before) is rated 9.6 UNSAFE: the same check fails it."""
    home = tmp_path / "home"
    _installed_like_pipx(home)
    service, _ = systemd_units(tmp_path, home)
    done = lint("systemd-analyze", "security", "--offline=yes", "--threshold=49", str(service))
    assert done.returncode == 0, done.stdout + done.stderr
    level = re.search(r"Overall exposure level for \S+: ([\d.]+) (\w+)", done.stdout)
    assert level and float(level.group(1)) < 5 and level.group(2) in {"OK", "SAFE"}, done.stdout
    text = service.read_text(encoding="utf-8")
    for directive in ("ProtectSystem=strict", "PrivateTmp=yes", "NoNewPrivileges=yes"):
        assert directive in text
    unsandboxed = tmp_path / "plain" / service.name
    unsandboxed.parent.mkdir()
    unsandboxed.write_text(text.split("# The sandbox.")[0], encoding="utf-8")
    weak = lint("systemd-analyze", "security", "--offline=yes", "--threshold=49", str(unsandboxed))
    assert weak.returncode != 0 and "UNSAFE" in weak.stdout


def cron_command() -> str:
    """The command of the crontab line (after its five time fields)."""
    (line,) = [
        line
        for line in (DEPLOY / "cron" / "paperbrief.cron").read_text(encoding="utf-8").splitlines()
        if re.match(r"^\d", line)
    ]
    assert line.split()[:5] == ["30", "7", "*", "*", "1-5"]
    return line.split(None, 5)[5]


def test_the_cron_line_works_in_an_empty_home(tmp_path, embedded_home):
    home = tmp_path / "fresh"
    _installed_like_pipx(home)
    # The data home is the one cron uses; its vector cache is seeded so no model loads.
    (home / ".paperbrief").mkdir()
    shutil.copy(embedded_home / "paperbrief.db", home / ".paperbrief" / "paperbrief.db")
    (home / ".paperbrief" / "env").write_text(
        f"PAPERBRIEF_PROFILE={EXAMPLE_PROFILE}\n"
        f"PAPERBRIEF_RUN_LISTING_FILE={PIPELINE_LISTING}\n"
        "PAPERBRIEF_RUN_OFFLINE=1\n",
        encoding="utf-8",
    )
    cron_environment = {"HOME": str(home), "PATH": "/usr/bin:/bin", "SHELL": "/bin/sh"}
    command = ["env", "-i", *(f"{k}={v}" for k, v in cron_environment.items())]
    done = subprocess.run([*command, "/bin/sh", "-c", cron_command()], check=False, cwd="/")
    assert done.returncode == 0
    log = (home / ".paperbrief" / "logs" / "run.log").read_text(encoding="utf-8")
    stderr_lines = [
        line for line in log.splitlines() if not line.startswith(("markdown:", "html:"))
    ]
    assert stderr_lines and all(STAMP.match(line) for line in stderr_lines), log
    assert "4 picked" in log
    digest = home / ".paperbrief" / "out" / "2026-05-23.md"
    assert digest.is_file() and "arxiv.org/abs/" in digest.read_text(encoding="utf-8")
    # A second morning appends to the same log and publishes nothing twice.
    again = subprocess.run([*command, "/bin/sh", "-c", cron_command()], check=False, cwd="/")
    assert again.returncode == 0
    assert len((home / ".paperbrief" / "logs" / "run.log").read_text().splitlines()) > len(
        log.splitlines()
    )


def test_the_cron_line_without_an_env_file_fails_with_a_logged_hint(tmp_path):
    home = tmp_path / "bare"
    _installed_like_pipx(home)
    env = ["env", "-i", f"HOME={home}", "PATH=/usr/bin:/bin"]
    done = subprocess.run([*env, "/bin/sh", "-c", cron_command()], check=False, cwd="/")
    assert done.returncode == 2  # no profile yet: bad usage, said in the log
    log = (home / ".paperbrief" / "logs" / "run.log").read_text(encoding="utf-8")
    assert "does not exist" in log and "hint:" in log and STAMP.match(log)
    assert os.listdir(home / ".paperbrief") == ["logs"]


def docker_context(root: Path) -> list[Path]:
    """The files `docker build` sends from ``root`` under its .dockerignore (patterns in
    order, the last that matches a path wins, ``!`` takes it back in; a folder's rule holds
    for everything in it)."""
    import fnmatch

    rules = []
    for line in (root / ".dockerignore").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            rules.append((line.startswith("!"), line.lstrip("!").rstrip("/")))

    def excluded(relative: str) -> bool:
        parts = relative.split("/")
        verdict = False
        for include, pattern in rules:
            prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
            if pattern.startswith("**/"):
                hit = any(fnmatch.fnmatch(part, pattern[3:]) for part in parts)
            else:
                hit = any(fnmatch.fnmatch(prefix, pattern) for prefix in prefixes)
            if hit:
                verdict = not include
        return verdict

    return [
        path
        for path in root.rglob("*")
        if path.is_file() and not excluded(path.relative_to(root).as_posix())
    ]


def test_the_docker_context_is_what_the_dockerfile_copies():
    sent = docker_context(ROOT)
    names = {path.relative_to(ROOT).as_posix() for path in sent}
    assert {"pyproject.toml", "README.md", "LICENSE", "src/paperbrief/__init__.py"} <= names
    assert "src/paperbrief/data/minilm/model.onnx" in names
    assert not [n for n in names if n.startswith((".venv/", ".git/", "out/", "tests/"))]
    assert not [n for n in names if "__pycache__" in n]
    size = sum(path.stat().st_size for path in sent)
    assert size < 40_000_000, f"{size / 1e6:.0f} MB"  # the model (23 MB) and the code


def test_the_units_zotero_sync_runs_when_the_env_file_names_a_library(tmp_path):
    """The unit's ExecStartPre as systemd runs it ("$$" is a literal "$", /home/%i the
    user's home), against a loopback server speaking Zotero's web API: without
    ZOTERO_LIBRARY it does nothing; with it the library's papers become 👍."""
    from tests.support.zotero import ZoteroLibrary, ZoteroServer
    from tests.test_zotero import COLLECTIONS, zotero_items

    home = tmp_path / "home"
    _installed_like_pipx(home)
    service, _ = systemd_units(tmp_path, home)
    (line,) = [x for x in service.read_text().splitlines() if x.startswith("ExecStartPre=")]
    command = line.removeprefix("ExecStartPre=").removeprefix("-").replace("$$", "$")
    argv = ["/bin/sh", "-c", command.split("-c '", 1)[1].rstrip("'")]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "PAPERBRIEF_HOME": str(home / "pb")}
    idle = subprocess.run(argv, env=env, capture_output=True, text=True)
    assert idle.returncode == 0 and not (home / "pb").exists(), idle.stderr
    with ZoteroServer(ZoteroLibrary(zotero_items(), COLLECTIONS)) as server:
        env |= {"ZOTERO_LIBRARY": "zotero:users/12345", "ZOTERO_API_KEY": "k3y"}
        env["PAPERBRIEF_ZOTERO_API"] = server.url
        synced = subprocess.run(argv, env=env, capture_output=True, text=True)
    assert synced.returncode == 0, synced.stderr
    assert "imported 24 liked papers" in synced.stdout + synced.stderr
