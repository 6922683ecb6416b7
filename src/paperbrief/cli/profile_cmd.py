"""`paperbrief profile init|check`."""

from __future__ import annotations

from pathlib import Path

import click
from rich.markup import escape

from paperbrief.cli.common import (
    CONTEXT,
    console,
    handle_errors,
    profile_option,
    resolve_profile_path,
    terminal_text,
)
from paperbrief.environment import named_variables, warnings
from paperbrief.errors import ProfileError
from paperbrief.files import write_atomic
from paperbrief.profile import load_profile, profile_template


@click.group(context_settings=CONTEXT)
def profile() -> None:
    """Create and validate the profile (research lines, categories, output settings)."""


@profile.command("init", context_settings=CONTEXT)
@click.argument("path", type=click.Path(path_type=Path, dir_okay=False), required=False)
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
@handle_errors
def init(path: Path | None, force: bool) -> None:
    """Write a commented profile template to PATH (or print it when PATH is omitted)."""
    text = profile_template()
    if path is None:
        click.echo(text, nl=False)
        return
    if path.exists() and not force:
        raise ProfileError(f"{path} already exists", "pass --force to overwrite it")
    write_atomic(path, text)
    console.print(f"wrote {path}; edit it, then run `paperbrief profile check --profile {path}`")


@profile.command("check", context_settings=CONTEXT)
@profile_option
@handle_errors
def check(profile_path: Path | None) -> None:
    """Validate the profile; every problem names its key and the fix.

    Also lists the environment variables the profile names (set or not, never their
    values) and warns about settings that will not work as written.
    """
    path = resolve_profile_path(profile_path)
    loaded = load_profile(path)
    lines = ", ".join(line.name for line in loaded.research_lines)
    click.echo(
        terminal_text(
            f"{path}: OK — {loaded.name}, {len(loaded.research_lines)} research lines"
            f" ({lines}), categories {', '.join(loaded.all_categories)}, language"
            f" {loaded.language}, time zone {loaded.timezone}"
        )
    )
    click.echo("environment variables:")
    for variable in named_variables(loaded):
        state = "set" if variable.is_set else ("unset" if variable.needed else "unset (optional)")
        click.echo(terminal_text(f"  {variable.name}: {state} — {variable.purpose}"))
    for warning in warnings(loaded):
        console.print(f"[yellow]warning:[/] {escape(terminal_text(warning))}", highlight=False)


COMMANDS: list[click.Command] = [profile]
