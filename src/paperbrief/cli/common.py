"""Helpers shared by the CLI commands: options, store/profile opening, error reporting."""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
from rich.console import Console
from rich.markup import escape

from paperbrief.errors import EmptyDay, PaperbriefError
from paperbrief.profile import Profile, home_dir, load_profile
from paperbrief.store import Store, open_store

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
DEFAULT_PROFILE = "profile.toml"

F = TypeVar("F", bound=Callable[..., Any])

console = Console(stderr=True)


def fail(error: PaperbriefError) -> None:
    """Print one line plus a hint and exit with the error's code."""
    console.print(f"[bold red]error:[/] {escape(error.message)}", highlight=False, soft_wrap=True)
    if error.hint:
        console.print(f"[dim]hint:[/] {escape(error.hint)}", highlight=False, soft_wrap=True)
    sys.exit(error.exit_code)


def report_empty(what: str, empty: EmptyDay) -> NoReturn:
    """A day with nothing to publish: say why (and the hint) and exit with its code."""
    console.print(f"[yellow]{what}:[/] {escape(empty.message)}", highlight=False)
    if empty.hint:
        console.print(f"[dim]hint:[/] {escape(empty.hint)}", highlight=False)
    raise SystemExit(empty.exit_code)


def handle_errors(function: F) -> F:
    """Turn PaperbriefError into a one-line message, a hint and the error's exit code."""

    @wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except PaperbriefError as error:
            fail(error)

    return wrapper  # type: ignore[return-value]


def profile_option(function: F) -> F:
    return click.option(
        "--profile",
        "profile_path",
        type=click.Path(path_type=Path, dir_okay=False),
        default=None,
        help="Profile TOML (default: $PAPERBRIEF_PROFILE, ./profile.toml, then"
        " $PAPERBRIEF_HOME/profile.toml).",
    )(function)


def resolve_profile_path(path: Path | None) -> Path:
    import os

    if path is not None:
        return path
    if os.environ.get("PAPERBRIEF_PROFILE"):
        return Path(os.environ["PAPERBRIEF_PROFILE"])
    local = Path(DEFAULT_PROFILE)
    if local.exists():
        return local
    return home_dir() / "profile.toml"


def get_profile(path: Path | None) -> Profile:
    return load_profile(resolve_profile_path(path))


def get_store() -> Store:
    """The store at $PAPERBRIEF_HOME/paperbrief.db."""
    return open_store(home_dir() / "paperbrief.db")
