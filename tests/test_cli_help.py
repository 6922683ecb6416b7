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
