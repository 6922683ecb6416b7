"""The `paperbrief` command line: a thin layer over the library.

Each module below owns a few commands and exposes them in ``COMMANDS``; a module is
imported when one of its commands runs (or help lists them), so a light command such as
`paperbrief --version` or `profile check` does not import the pipeline and what it needs.
"""

from __future__ import annotations

import click

from paperbrief import __version__
from paperbrief.cli.common import PaperbriefGroup, configure_output
from paperbrief.errors import exit_code_help

# Each command by the module whose COMMANDS define it (tests/test_cli_help.py checks both).
COMMAND_MODULES = {
    "run": "daily",
    "fetch": "daily",
    "rank": "daily",
    "demo": "demo",
    "profile": "profile_cmd",
    "eval": "ranking",
    "judge": "judging",
    "feedback": "feedback",
    "read": "reading",
    "search": "search",
    "verify": "verifying",
    "send": "publishing",
    "serve": "publishing",
    "token": "publishing",
    "logs": "logs",
}


@click.group(
    cls=PaperbriefGroup,
    lazy={name: f"paperbrief.cli.{module}" for name, module in COMMAND_MODULES.items()},
    epilog=exit_code_help(),
)
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


def main() -> None:
    """The `paperbrief` command. Every option can also come from the environment as
    PAPERBRIEF_<COMMAND>_<PARAMETER> (e.g. PAPERBRIEF_RUN_NO_DELIVER=1), so an env file
    read by cron or systemd can set them."""
    cli(prog_name="paperbrief", auto_envvar_prefix="PAPERBRIEF")
