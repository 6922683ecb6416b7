"""Every command documents itself: `-h` works everywhere and shows a description."""

from __future__ import annotations

import click
from click.testing import CliRunner

from paperbrief.cli import cli


def _commands(group: click.Group, prefix: tuple[str, ...] = ()):
    for name, command in group.commands.items():
        path = (*prefix, name)
        yield path, command
        if isinstance(command, click.Group):
            yield from _commands(command, path)


def test_every_command_has_help():
    runner = CliRunner()
    paths = list(_commands(cli))
    assert {("run",), ("fetch",), ("rank",), ("profile", "init"), ("profile", "check")} <= {
        p for p, _ in paths
    }
    for path, command in paths:
        result = runner.invoke(cli, [*path, "-h"])
        assert result.exit_code == 0, (path, result.output)
        assert command.help, f"{' '.join(path)} has no docstring"
        assert "Usage:" in result.output


def test_exit_codes_are_in_the_help_and_the_readme_says_the_same_codes():
    from click.testing import CliRunner

    from paperbrief.cli import cli
    from paperbrief.errors import EXIT_MEANINGS
    from tests.support import ROOT

    for args in (["--help"], ["run", "--help"]):
        shown = CliRunner().invoke(cli, args).output
        for code, meaning in EXIT_MEANINGS.items():
            assert f"  {code}  {meaning}" in shown, (args, code)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("### Exit codes", 1)[1].split("\n\n", 2)[1]
    codes = [
        int(line.split("|")[1]) for line in table.splitlines() if line[:3].strip("| ").isdigit()
    ]
    assert codes == list(EXIT_MEANINGS)


def test_version_answers_without_loading_the_cli():
    """`paperbrief --version` took 2 s: it loaded every command first. The entry point
    answers it from the package's version alone (the same words as click's option)."""
    import subprocess
    import sys

    from click.testing import CliRunner

    from paperbrief import __version__
    from paperbrief.cli import cli

    code = (
        "import sys; sys.argv = ['paperbrief', '--version']; from paperbrief.launch import main;"
        " main(); print(sorted(m for m in sys.modules if m.startswith('paperbrief')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    first, loaded = done.stdout.splitlines()
    assert first == f"paperbrief, version {__version__}"
    assert loaded == "['paperbrief', 'paperbrief.launch']"  # nothing else was imported
    assert CliRunner().invoke(cli, ["--version"], prog_name="paperbrief").output.strip() == first
