"""How this copy of paperbrief was installed, and the commands that repair or extend it.

A fix hint that says ``pip install …`` does nothing for a pipx or uv tool install (their
environments are their own), and ``paperbrief`` by name is not on any registry until the
project publishes it. So hints are built here, from what the running interpreter shows:

* **pipx** (``pipx_metadata.json`` in ``sys.prefix``): ``pipx reinstall paperbrief``;
  ``pipx inject --force paperbrief PKG…``;
* **uv tool** (``uv-receipt.toml`` in ``sys.prefix``): ``uv tool install --reinstall SRC``;
  ``uv tool install --with PKG… SRC``;
* **pip** (or ``uv pip``; anything else): ``PYTHON -m pip install --force-reinstall SRC``;
  ``PYTHON -m pip install PKG…``, with the running interpreter as ``PYTHON``.

``SRC`` is where this copy came from: the folder or URL pip recorded (``direct_url.json``:
a clone, a fork, a wheel), else the project's public home when ``pyproject.toml`` names
one (``[project.urls] Source``), else the name.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from importlib import metadata
from pathlib import Path
from typing import Literal

Installer = Literal["pipx", "uv", "pip"]
DISTRIBUTION = "paperbrief"


def installer(prefix: Path | None = None) -> Installer:
    """Which tool manages the environment paperbrief runs in."""
    root = Path(sys.prefix) if prefix is None else prefix
    if (root / "pipx_metadata.json").is_file():
        return "pipx"
    if (root / "uv-receipt.toml").is_file():
        return "uv"
    return "pip"


def source() -> str:
    """Where this copy was installed from (a folder, a wheel, a URL), else the public home,
    else the distribution's name."""
    try:
        distribution = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return DISTRIBUTION
    recorded = distribution.read_text("direct_url.json")
    if recorded:
        try:
            url = str(json.loads(recorded).get("url", ""))
        except (ValueError, AttributeError):
            url = ""
        if url.startswith("file://"):
            return url[len("file://") :]
        if url:
            return f"git+{url}" if "vcs_info" in recorded else url
    for entry in distribution.metadata.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        if label.strip().lower() == "source" and url.strip():
            return f"git+{url.strip()}"
    return DISTRIBUTION


def reinstall_command(tool: Installer | None = None) -> str:
    """The command that puts a damaged install back as it was."""
    tool = tool or installer()
    if tool == "pipx":
        return f"pipx reinstall {DISTRIBUTION}"
    origin = shlex.quote(source())
    if tool == "uv":
        return f"uv tool install --reinstall {origin}"
    return f"{shlex.quote(sys.executable)} -m pip install --force-reinstall {origin}"


def add_packages_command(packages: list[str], tool: Installer | None = None) -> str:
    """The command that adds ``packages`` to the environment paperbrief runs in."""
    tool = tool or installer()
    names = " ".join(shlex.quote(p) for p in packages)
    if tool == "pipx":
        # --force: without it pipx skips a package the environment already holds
        return f"pipx inject --force {DISTRIBUTION} {names}"
    if tool == "uv":
        withs = " ".join(f"--with {shlex.quote(p)}" for p in packages)
        return f"uv tool install {withs} {shlex.quote(source())}"
    return f"{shlex.quote(sys.executable)} -m pip install {names}"


def extra_packages(extra: str) -> list[str]:
    """The requirements of one of paperbrief's extras, as its metadata lists them (the one
    home is pyproject.toml), e.g. ``["bibtexparser>=2.0.0b7", "rispy>=0.8"]``."""
    try:
        requirements = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return [f"{DISTRIBUTION}[{extra}]"]
    marker = re.compile(rf"""extra\s*==\s*["']{re.escape(extra)}["']""")
    return [r.split(";")[0].strip().replace(" ", "") for r in requirements if marker.search(r)]
