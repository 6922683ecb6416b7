"""The package as a user installs it: `python -m build` makes a wheel with every data file
and declares every package its code imports; installed into a fresh virtualenv, `paperbrief
demo` and `paperbrief profile init` work outside the checkout, and the install holds no torch
and no CUDA package.

The fresh venv is made without its own pip; this pip installs the wheel into it with
``--python --no-deps``, and the wheel's declared dependencies (with those they declare, as
the dev venv has them installed) are linked in from the dev venv: nothing else is
importable there, so an undeclared import fails the commands as it would a user's install.
That the declared dependencies resolve from the plain registry with no torch and no CUDA
package is `.ci/check-no-cuda`'s proof (for the default install and the library extra this
test installs); resolving them again here cost ~17 s of CPU per run.
The demo's store starts with the sample day's committed vectors
(``tests/support/embedding.py``), and the installed model itself runs for `profile init
--from`, which embeds the library."""

from __future__ import annotations

import ast
import email
import os
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

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


def wheel_metadata(archive: zipfile.ZipFile) -> email.message.Message:
    name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    return email.message_from_string(archive.read(name).decode())


def imported_packages(archive: zipfile.ZipFile) -> set[str]:
    """The top-level names the wheel's modules import (at module level or inside a
    function), less the standard library and paperbrief itself."""
    found = set()
    for name in archive.namelist():
        if not name.endswith(".py"):
            continue
        for node in ast.walk(ast.parse(archive.read(name), name)):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names) - {"paperbrief"}


def dependency_closure(requires: list[str], extras: set[str]) -> list[metadata.Distribution]:
    """The distributions ``requires`` (a wheel's Requires-Dist, with ``extras`` asked for)
    need, and those they need in turn, as installed for this interpreter (the dev venv);
    each installed version must satisfy what asked for it."""
    todo = [(Requirement(text), extras) for text in requires]
    seen: dict[str, set[str]] = {}
    found: dict[str, metadata.Distribution] = {}
    while todo:
        requirement, asked = todo.pop()
        marker = requirement.marker
        if marker and not any(marker.evaluate({"extra": extra}) for extra in asked or {""}):
            continue
        name = canonicalize_name(requirement.name)
        if name == "paperbrief":
            continue
        dist = metadata.distribution(requirement.name)
        assert requirement.specifier.contains(dist.version, prereleases=True), (
            f"the dev venv has {requirement.name} {dist.version}, asked for {requirement}"
        )
        wanted = set(requirement.extras)
        if name in seen and wanted <= seen[name]:
            continue
        seen[name] = seen.get(name, set()) | wanted
        found[name] = dist
        todo += [(Requirement(text), wanted) for text in dist.requires or []]
    return list(found.values())


def link_into(site_packages: Path, dists: list[metadata.Distribution]) -> None:
    """Make ``dists`` importable in a venv: a link to each top-level file or folder they
    installed (their packages, compiled modules, shared libraries and .dist-info)."""
    for dist in dists:
        assert dist.files is not None, f"{dist.metadata['Name']} has no RECORD"
        root = Path(str(dist.locate_file("")))
        tops = {file.parts[0] for file in dist.files if file.parts[0] not in ("..", "__pycache__")}
        for top in sorted(tops):
            link = site_packages / top
            if not link.exists() and (root / top).exists():
                link.symlink_to(root / top)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    source = tmp_path_factory.mktemp("src") / "paperbrief"
    # Build from a copy: a build must not depend on (or write into) the working tree.
    shutil.copytree(
        ROOT,
        source,
        symlinks=True,
        ignore=shutil.ignore_patterns(
            ".venv", ".git", "out", "test-artifacts", "*.egg-info", "__pycache__", "build"
        ),
    )
    run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(source)])
    (built,) = out.glob("paperbrief-*.whl")
    return built


def test_the_wheel_has_every_data_file_and_no_gpu_dependency(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = wheel_metadata(archive)
    assert names >= DATA_FILES, DATA_FILES - names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    requires = [r for r in info.get_all("Requires-Dist") or [] if "extra ==" not in r]
    assert requires and not any(r.lower().startswith(GPU_PREFIXES) for r in requires)
    pins = [r for r in info.get_all("Requires-Dist") or [] if "==" in r.split(";")[0]]
    # An exact pin would forbid any other version in a user's environment; the model is
    # package data, so no upload of anyone's package can change it.
    assert pins == []
    assert not [r for r in requires if "minilm" in r.lower()]
    extras = [r for r in info.get_all("Requires-Dist") or [] if 'extra == "library"' in r]
    assert {r.split(">")[0] for r in extras} == {"bibtexparser", "rispy"}
    assert not [r for r in requires if r.startswith(("bibtexparser", "rispy"))]
    assert info["Version"] == __version__
    assert any(r.startswith("onnxruntime") for r in requires)


def test_the_wheel_declares_every_package_its_code_imports(wheel):
    """By the name of the distribution that provides it (in the core or an extra), not
    reached through another one's dependencies: the fresh venv below links in the whole
    closure, so only this test sees an import that leans on a transitive dependency."""
    with zipfile.ZipFile(wheel) as archive:
        info = wheel_metadata(archive)
        imported = imported_packages(archive)
    requires = info.get_all("Requires-Dist") or []
    declared = {canonicalize_name(Requirement(r).name) for r in requires}
    providers = metadata.packages_distributions()
    undeclared = {
        top
        for top in imported
        if not {canonicalize_name(d) for d in providers.get(top, [top])} & declared
    }
    assert imported >= {"numpy", "onnxruntime", "httpcore"} and not undeclared, undeclared


def test_installed_in_a_fresh_venv_it_runs_outside_the_checkout(wheel, tmp_path):
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    # No bytecode compiled at install: the commands below compile what they import, once.
    run([*pip, "install", "--quiet", "--no-compile", "--no-deps", str(wheel)])
    (site_packages,) = (venv / "lib").glob("python*/site-packages")
    with zipfile.ZipFile(wheel) as archive:
        requires = wheel_metadata(archive).get_all("Requires-Dist") or []
    link_into(site_packages, dependency_closure(requires, {"library"}))  # for --from .bib
    # What is installed there, read from its site-packages (what `pip list` prints).
    names = [d.metadata["Name"].lower() for d in metadata.distributions(path=[str(site_packages)])]
    assert "paperbrief" in names and "onnxruntime" in names and "bibtexparser" in names
    assert not [n for n in names if n.startswith(GPU_PREFIXES)], names
    assert "pytest" not in names  # the dev venv's own tools are not reachable
    # The wheel's code runs there, not the checkout's (the dev venv's editable install),
    # and a package the wheel does not need is not importable.
    probe = (
        "import importlib.util as u, paperbrief; print(paperbrief.__file__, u.find_spec('pytest'))"
    )
    where, pytest_spec = run([str(python), "-c", probe]).stdout.split()
    assert Path(where).is_relative_to(site_packages) and pytest_spec == "None", where

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
