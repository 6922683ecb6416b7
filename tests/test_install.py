"""Fix hints name the installer in use: pip, pipx or uv, and where this copy came from."""

from __future__ import annotations

import sys

from paperbrief.install import add_packages_command, installer, reinstall_command, source
from tests.support import ROOT


def test_the_installer_is_read_from_the_environment_it_made(tmp_path):
    assert installer(tmp_path) == "pip"
    (tmp_path / "pipx_metadata.json").write_text("{}")
    assert installer(tmp_path) == "pipx"
    uv = tmp_path / "uv"
    uv.mkdir()
    (uv / "uv-receipt.toml").write_text("[tool]\n")
    assert installer(uv) == "uv"


def test_this_checkout_is_the_source_pip_recorded():
    # make's .venv installs the clone itself (editable): the hint points there, not at a
    # registry name that does not exist
    assert source() == str(ROOT)


def test_each_installer_gets_its_own_command():
    assert reinstall_command("pipx") == "pipx reinstall paperbrief"
    assert reinstall_command("uv") == f"uv tool install --reinstall {ROOT}"
    assert reinstall_command("pip") == f"{sys.executable} -m pip install --force-reinstall {ROOT}"
    packages = ["bibtexparser>=2.0.0b7", "rispy"]
    assert (
        add_packages_command(packages, "pipx")
        == "pipx inject --force paperbrief 'bibtexparser>=2.0.0b7' rispy"
    )
    assert add_packages_command(packages, "uv") == (
        f"uv tool install --with 'bibtexparser>=2.0.0b7' --with rispy {ROOT}"
    )
    assert add_packages_command(packages, "pip") == (
        f"{sys.executable} -m pip install 'bibtexparser>=2.0.0b7' rispy"
    )


def test_the_library_extras_packages_come_from_the_metadata():
    from paperbrief.install import extra_packages

    assert [p.split(">")[0] for p in extra_packages("library")] == ["bibtexparser", "rispy"]
