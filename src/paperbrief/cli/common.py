"""Helpers shared by the CLI commands: options, store/profile opening, error reporting."""

from __future__ import annotations

import os
import re
import sqlite3
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
from rich.console import Console
from rich.markup import escape

from paperbrief.errors import EmptyDay, PaperbriefError
from paperbrief.files import os_error
from paperbrief.profile import Profile, home_dir, load_profile
from paperbrief.store import Store, open_store

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
DEFAULT_PROFILE = "profile.toml"

F = TypeVar("F", bound=Callable[..., Any])

console = Console(stderr=True)
DEBUG_ENV = "PAPERBRIEF_DEBUG"  # set to 1 to see the traceback of an unexpected error

# Terminal control: C0 (but tab and newline), DEL, C1, and the bidirectional overrides that
# can make a title read backwards. Paper text is untrusted; none of it may steer a terminal.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def terminal_text(text: object) -> str:
    """``text`` without control characters (escape sequences, bidi overrides)."""
    return _CONTROL.sub("", str(text))


def say(text: object) -> str:
    """Untrusted text made safe for a rich console line: no control characters, no markup."""
    return escape(terminal_text(text))


def fail(error: PaperbriefError) -> NoReturn:
    """Print one line plus a hint and exit with the error's code."""
    console.print(f"[bold red]error:[/] {say(error.message)}", highlight=False, soft_wrap=True)
    if error.hint:
        console.print(f"[dim]hint:[/] {say(error.hint)}", highlight=False, soft_wrap=True)
    sys.exit(error.exit_code)


def report_empty(what: str, empty: EmptyDay) -> NoReturn:
    """A day with nothing to publish: say why (and the hint) and exit with its code."""
    console.print(f"[yellow]{what}:[/] {say(empty.message)}", highlight=False)
    if empty.hint:
        console.print(f"[dim]hint:[/] {say(empty.hint)}", highlight=False)
    raise SystemExit(empty.exit_code)


def unexpected(error: BaseException) -> PaperbriefError:
    """An error that is not a PaperbriefError, as one line and a hint."""
    if isinstance(error, OSError):
        return os_error(error)
    if isinstance(error, sqlite3.Error):
        return PaperbriefError(
            f"the database failed: {error}",
            "if it is damaged, move $PAPERBRIEF_HOME/paperbrief.db away and rerun",
        )
    if isinstance(error, MemoryError | RecursionError):
        return PaperbriefError(
            f"out of memory or too deeply nested input ({type(error).__name__})",
            "an input file is far larger or deeper than expected; check --listing / the profile",
        )
    return PaperbriefError(
        f"unexpected {type(error).__name__}: {error}",
        f"this is a bug in paperbrief; rerun with {DEBUG_ENV}=1 to see the traceback and"
        " report it (nothing half-written was published)",
    )


def handle_errors(function: F) -> F:
    """Turn every error into a one-line message, a hint and an exit code.

    PaperbriefError carries its own code; an OS error (disk full, permissions), a SQLite
    error or anything unexpected becomes one line too (exit 1), never a traceback — unless
    ``$PAPERBRIEF_DEBUG`` is set. Ctrl-C exits 130 quietly.
    """

    @wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except PaperbriefError as error:
            fail(error)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except KeyboardInterrupt:
            console.print("[yellow]interrupted[/] — a rerun resumes where this one stopped")
            sys.exit(130)
        except Exception as error:
            if os.environ.get(DEBUG_ENV):
                raise
            fail(unexpected(error))

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
