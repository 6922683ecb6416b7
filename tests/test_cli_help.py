"""Every command documents itself: `-h` works everywhere and shows a description; a
command's module is imported when the command is asked for."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import click
from click.testing import CliRunner

import paperbrief.cli
from paperbrief.cli import COMMAND_MODULES, cli
from tests.support import EXAMPLE_PROFILE


def _commands(group: click.Group, prefix: tuple[str, ...] = ()):
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None, name
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


def test_each_command_is_looked_up_in_the_module_that_defines_it():
    """The CLI imports a command's module when the command is asked for, by the table in
    paperbrief/cli/__init__.py: it names exactly the commands each module defines, and
    every module that defines commands."""
    package = Path(paperbrief.cli.__file__).parent
    defining = {path.stem for path in package.glob("*.py") if "\nCOMMANDS" in path.read_text()}
    assert defining == set(COMMAND_MODULES.values())
    for module in defining:
        commands = importlib.import_module(f"paperbrief.cli.{module}").COMMANDS
        assert {c.name for c in commands} == {
            name for name, home in COMMAND_MODULES.items() if home == module
        }, module


def test_a_light_command_imports_neither_the_pipeline_nor_the_heavy_libraries(tmp_path):
    """`profile check` (and `--version`) in a fresh interpreter: what the commands that do
    not run a day leave alone, so they start in a fraction of a second."""
    heavy = [
        "paperbrief.pipeline", "paperbrief.services", "paperbrief.rank", "numpy",
        "onnxruntime", "tokenizers", "jinja2", "httpx", "lxml", "pypdfium2", "starlette",
    ]  # fmt: skip
    probe = (
        "import sys\n"
        "from paperbrief.cli import cli\n"
        "for args in (['--version'], ['profile', 'check', '--profile', sys.argv[1]]):\n"
        "    try:\n"
        "        cli.main(args, prog_name='paperbrief')\n"
        "    except SystemExit as done:\n"
        "        assert not done.code, done.code\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))\n"
    )
    env = {**os.environ, "PAPERBRIEF_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", probe, str(EXAMPLE_PROFILE)],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]", done.stdout
