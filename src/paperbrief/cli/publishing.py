"""Commands owned by a later stage (filled in by its issue)."""

import click

COMMANDS: list[click.Command] = []
