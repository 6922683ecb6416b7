"""The package as a user installs it: `python -m build` makes a wheel with every data file;
installed into a fresh virtualenv, `paperbrief demo` and `paperbrief profile init` work
outside the checkout, and the install holds no torch and no CUDA package.

The fresh venv is made without its own pip (this pip installs into it with ``--python``,
compiling no bytecode: each command there writes what it imports);
the demo's store starts with the sample day's committed vectors
(``tests/support/embedding.py``), and the installed model itself runs for `profile init
--from`, which embeds the library."""

from __future__ import annotations

import email
import os
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from paperbrief import __version__
from paperbrief.rank.embed import DEFAULT_MODEL
from paperbrief.store import open_store
from tests.support import FIXTURES, ROOT
from tests.support.embedding import sample_vectors

pytestmark = pytest.mark.wheel
GPU_PREFIXES = ("torch", "nvidia", "cuda", "triton")
DATA_FILES = {
    "paperbrief/data/minilm/model.onnx",
    "paperbrief/data/minilm/tokenizer.json",
    "paperbrief/data/minilm/LICENSE",
    "paperbrief/data/minilm/NOTICE",
    "paperbrief/data/profile-template.toml",
    "paperbrief/data/sample/2026-05-22.jsonl.gz",
    "paperbrief/data/sample/profile.toml",
    "paperbrief/prompts/profile_lines.md",
    "paperbrief/prompts/judge.md",
    "paperbrief/render/templates/digest.html.j2",
    "paperbrief/web/templates/search.html",
    "paperbrief/web/static/style.css",
}


def run(
    command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=cwd, env=env)
    assert done.returncode == 0, f"{command}: {done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    source = tmp_path_factory.mktemp("src") / "paperbrief"
    # Build from a copy: a build must not depend on (or write into) the working tree.
    shutil.copytree(
        ROOT,
        source,
        symlinks=True,
        ignore=shutil.ignore_patterns(".venv", ".git", "out", "*.egg-info", "__pycache__", "build"),
    )
    run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(source)])
    (built,) = out.glob("paperbrief-*.whl")
    return built


def test_the_wheel_has_every_data_file_and_no_gpu_dependency(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = email.message_from_string(archive.read(metadata_name).decode())
    assert names >= DATA_FILES, DATA_FILES - names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    requires = [r for r in metadata.get_all("Requires-Dist") or [] if "extra ==" not in r]
    assert requires and not any(r.lower().startswith(GPU_PREFIXES) for r in requires)
    pins = [r for r in metadata.get_all("Requires-Dist") or [] if "==" in r.split(";")[0]]
    # An exact pin would forbid any other version in a user's environment; the model is
    # package data, so no upload of anyone's package can change it.
    assert pins == []
    assert not [r for r in requires if "minilm" in r.lower()]
    extras = [r for r in metadata.get_all("Requires-Dist") or [] if 'extra == "library"' in r]
    assert {r.split(">")[0] for r in extras} == {"bibtexparser", "rispy"}
    assert not [r for r in requires if r.startswith(("bibtexparser", "rispy"))]
    assert metadata["Version"] == __version__
    assert any(r.startswith("onnxruntime") for r in requires)


def test_installed_in_a_fresh_venv_it_runs_outside_the_checkout(wheel, tmp_path):
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python")]
    # No bytecode compiled at install: the commands below compile what they import, once.
    run([*pip, "install", "--quiet", "--no-compile", f"{wheel}[library]"])  # for --from .bib
    # What is installed there, read from its site-packages (what `pip list` prints).
    (site_packages,) = (venv / "lib").glob("python*/site-packages")
    names = [d.metadata["Name"].lower() for d in metadata.distributions(path=[str(site_packages)])]
    assert "paperbrief" in names and "onnxruntime" in names
    assert not [n for n in names if n.startswith(GPU_PREFIXES)], names

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {
        "PATH": f"{venv / 'bin'}:/usr/bin:/bin",
        "HOME": str(tmp_path / "user"),
        "PAPERBRIEF_HOME": str(tmp_path / "user" / ".paperbrief"),
    }
    with open_store(tmp_path / "user" / ".paperbrief" / "demo" / "paperbrief.db") as store:
        store.embeddings.put(DEFAULT_MODEL, sample_vectors())
    paperbrief = str(venv / "bin" / "paperbrief")
    demo = run([paperbrief, "demo", "--out", "digest"], cwd=elsewhere, env=env)
    assert "markdown:" in demo.stdout
    markdown = (elsewhere / "digest" / "2026-05-23.md").read_text(encoding="utf-8")
    assert "arxiv.org/abs/" in markdown and (elsewhere / "digest" / "2026-05-23.html").is_file()

    run([paperbrief, "profile", "init", "profile.toml"], cwd=elsewhere, env=env)
    template = elsewhere / "profile.toml"  # the reader's one edit the check insists on
    template.write_text(template.read_text().replace('"Your Name"', '"Dr. Wheel"', 1))
    checked = run(
        [paperbrief, "profile", "check", "--profile", "profile.toml"], cwd=elsewhere, env=env
    )
    assert "OK" in checked.stdout

    shutil.copy(FIXTURES / "library" / "zotero.bib", elsewhere / "library.bib")
    run(
        [
            paperbrief,
            "profile",
            "init",
            "--from",
            "library.bib",
            "--offline",
            "--name",
            "Dr. Wheel",
            "mine.toml",
        ],
        cwd=elsewhere,
        env=env,
    )
    mine = run([paperbrief, "profile", "check", "--profile", "mine.toml"], cwd=elsewhere, env=env)
    assert "3 research lines" in mine.stdout
    assert not (Path(os.getcwd()) / "mine.toml").exists()
