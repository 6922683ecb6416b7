"""run / fetch / rank."""

import click

COMMANDS: list[click.Command] = []
