"""The `paperbrief` command line: a thin layer over the library.

Each module below owns a few commands and exposes them in ``COMMANDS``.
"""

from __future__ import annotations

import click

from paperbrief import __version__
from paperbrief.cli import (
    daily,
    demo,
    feedback,
    judging,
    logs,
    profile_cmd,
    publishing,
    ranking,
    reading,
    search,
    verifying,
)
from paperbrief.cli.common import PaperbriefGroup, configure_output
from paperbrief.errors import exit_code_help


@click.group(cls=PaperbriefGroup, epilog=exit_code_help())
@click.version_option(__version__, "-V", "--version")
@click.option("-q", "--quiet", is_flag=True, help="Only warnings and errors on stderr.")
@click.option("-v", "--verbose", count=True, help="Also log each HTTP request and debug detail.")
def cli(quiet: bool, verbose: int) -> None:
    """paperbrief: a personalized daily deep-read digest of new arXiv papers.

    Data lives in $PAPERBRIEF_HOME (default ~/.paperbrief). Progress and messages go to
    stderr; when it is not a terminal (cron, systemd, a container) each line starts with
    a timestamp and is never wrapped.
    """
    if quiet and verbose:
        raise click.UsageError("-q and -v exclude each other; pass one of them")
    configure_output(quiet, verbose)


for _module in (
    daily,
    demo,
    profile_cmd,
    ranking,
    judging,
    feedback,
    reading,
    search,
    verifying,
    publishing,
    logs,
):
    for _command in _module.COMMANDS:
        cli.add_command(_command)


def main() -> None:
    """The `paperbrief` command. Every option can also come from the environment as
    PAPERBRIEF_<COMMAND>_<PARAMETER> (e.g. PAPERBRIEF_RUN_NO_DELIVER=1), so an env file
    read by cron or systemd can set them."""
    cli(prog_name="paperbrief", auto_envvar_prefix="PAPERBRIEF")
