"""The `paperbrief` command line: a thin layer over the library.

Each module below owns a few commands and exposes them in ``COMMANDS``.
"""

from __future__ import annotations

import click

from paperbrief import __version__
from paperbrief.cli import (
    daily,
    feedback,
    judging,
    profile_cmd,
    publishing,
    ranking,
    reading,
    verifying,
)
from paperbrief.cli.common import CONTEXT


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version")
def cli() -> None:
    """paperbrief: a personalized daily deep-read digest of new arXiv papers.

    Data lives in $PAPERBRIEF_HOME (default ~/.paperbrief).
    """


for _module in (daily, profile_cmd, ranking, judging, feedback, reading, verifying, publishing):
    for _command in _module.COMMANDS:
        cli.add_command(_command)


def main() -> None:
    cli(prog_name="paperbrief")
