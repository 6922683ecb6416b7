"""Helpers shared by the CLI commands: options, store/profile opening, error reporting."""

from __future__ import annotations

import importlib
import json
import logging
import os
import signal
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click
from rich.console import Console
from rich.markup import escape

from paperbrief.cli.redaction import Redaction
from paperbrief.environment import DEBUG_ENV, PROFILE_ENV, secret_values
from paperbrief.errors import EmptyDay, PaperbriefError
from paperbrief.files import os_error
from paperbrief.profile import Profile, home_dir, load_profile
from paperbrief.store import Store, open_store
from paperbrief.text.controls import CONTROL, without_controls

if TYPE_CHECKING:  # the services (and what they import) load with the commands that run a day
    from paperbrief.services import Stop

# Help reads at 80 columns whatever the terminal's width.
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 80}
DEFAULT_PROFILE = "profile.toml"

F = TypeVar("F", bound=Callable[..., Any])


QUIET, NORMAL, VERBOSE = -1, 0, 1


class LogConsole(Console):
    """stderr, for people and for log files.

    On a terminal it is rich's console (colour, wrapping, spinners). Anywhere else (cron,
    systemd, a container's log) every line starts with a local ISO timestamp and nothing is
    wrapped, so a log file reads one event per line. ``-q`` keeps only warnings and errors
    (``print(..., important=True)``); ``-v`` also shows the libraries' log records (each
    HTTP request).
    """

    def __init__(self) -> None:
        super().__init__(stderr=True)
        self.verbosity = NORMAL
        self.redaction = Redaction()  # no secret, no reader's address in any line

    def configure(self, verbosity: int) -> None:
        self.verbosity = verbosity
        if not self.is_terminal:
            self.soft_wrap = True
        root = logging.getLogger()
        for handler in [h for h in root.handlers if isinstance(h, _ConsoleHandler)]:
            root.removeHandler(handler)
        root.addHandler(_ConsoleHandler(self))
        root.setLevel(logging.INFO if verbosity >= VERBOSE else logging.WARNING)
        logging.getLogger("paperbrief").setLevel(
            logging.DEBUG if verbosity >= VERBOSE else logging.WARNING
        )

    def print(self, *objects: Any, important: bool = False, **options: Any) -> None:  # type: ignore[override]
        if self.verbosity <= QUIET and not important:
            return
        objects = tuple(self.redaction.apply(o) if isinstance(o, str) else o for o in objects)
        if self.is_terminal:
            super().print(*objects, **options)
            return
        options.setdefault("soft_wrap", True)
        with self.capture() as captured:
            super().print(*objects, **options)
        stamp = datetime.now().astimezone().isoformat(timespec="seconds")
        lines = [line for line in captured.get().split("\n") if line.strip()]
        self.file.write("".join(f"{stamp} {line}\n" for line in lines))
        self.file.flush()


class _ConsoleHandler(logging.Handler):
    """Library log records (httpx's requests, paperbrief's debug lines) through the console."""

    def __init__(self, console: LogConsole) -> None:
        super().__init__()
        self._console = console

    def emit(self, record: logging.LogRecord) -> None:
        message = f"{record.levelname.lower()}: {record.name}: {record.getMessage()}"
        self._console.print(
            say(message), important=record.levelno >= logging.WARNING, highlight=False
        )


console = LogConsole()


def configure_output(quiet: bool, verbose: int) -> None:
    """Apply -q / -v (the group's options) to the console and Python's logging."""
    console.configure(QUIET if quiet else (VERBOSE if verbose else NORMAL))


def terminal_text(text: object) -> str:
    """``text`` without control characters (escape sequences, bidi overrides)."""
    return without_controls(str(text))


def json_text(data: object) -> str:
    """``data`` as indented JSON for stdout: non-ASCII text stays readable, but the
    characters that steer a terminal (C1, DEL, bidi overrides; json escapes C0 itself) are
    written as ``\\uXXXX`` escapes, so a JSON reader gets them back and a terminal never
    sees them raw."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    return CONTROL.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def say(text: object) -> str:
    """Untrusted text made safe for a rich console line: no control characters, no markup."""
    return escape(terminal_text(text))


def fail(error: PaperbriefError) -> NoReturn:
    """Print one line plus a hint and exit with the error's code."""
    message = f"[bold red]error:[/] {say(error.message)}"
    console.print(message, highlight=False, soft_wrap=True, important=True)
    if error.hint:
        hint = f"[dim]hint:[/] {say(error.hint)}"
        console.print(hint, highlight=False, soft_wrap=True, important=True)
    sys.exit(error.exit_code)


def report_empty(what: str, empty: EmptyDay) -> NoReturn:
    """A day with nothing to publish: say why (and the hint) and exit with its code."""
    console.print(f"[yellow]{what}:[/] {say(empty.message)}", highlight=False, important=True)
    if empty.hint:
        console.print(f"[dim]hint:[/] {say(empty.hint)}", highlight=False, important=True)
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


# After SIGINT/SIGTERM the run unwinds, records itself ``interrupted`` and exits; if a
# thread still holds the process (a DNS lookup that never returns) it exits anyway after
# this many seconds, and at once on a second signal.
STOP_GRACE_SECONDS = 10.0


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM, raised in the main thread (its text is the signal's name)."""

    @property
    def exit_code(self) -> int:
        number = getattr(signal, str(self), signal.SIGINT)
        return 128 + int(number)


@contextmanager
def stopping(stop: Stop) -> Iterator[None]:
    """In the block, SIGINT and SIGTERM stop the run: ``stop`` is set (every client sees it
    through the run's deadline: no new request, those in flight abandoned) and
    ``Interrupted`` is raised in the main thread, so the pipeline records the run as
    ``interrupted`` and the command exits 130 (SIGINT) or 143 (SIGTERM)."""

    def handler(number: int, frame: object) -> None:
        name = signal.Signals(number).name
        if stop.stopped:
            os._exit(128 + number)  # a second signal: now
        stop.set(name)
        watchdog = threading.Timer(STOP_GRACE_SECONDS, os._exit, (128 + number,))
        watchdog.daemon = True
        watchdog.start()
        raise Interrupted(name)

    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach the main thread only (a command run from a thread: tests)
        return
    signals = (signal.SIGINT, signal.SIGTERM)
    previous = {number: signal.signal(number, handler) for number in signals}
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old)


@contextmanager
def mapped_errors() -> Iterator[None]:
    """Turn every error into a one-line message, a hint and an exit code.

    PaperbriefError carries its own code; an OS error (disk full, permissions), a SQLite
    error or anything unexpected becomes one line too (exit 1), never a traceback — unless
    ``$PAPERBRIEF_DEBUG`` is set. Ctrl-C exits 130 quietly.
    """
    try:
        yield
    except PaperbriefError as error:
        fail(error)
    except (click.exceptions.Exit, click.ClickException, click.Abort):
        raise
    except KeyboardInterrupt as error:
        code = error.exit_code if isinstance(error, Interrupted) else 130
        console.print(
            f"[yellow]interrupted[/] ({say(str(error) or 'SIGINT')}) — a rerun resumes where this"
            " one stopped",
            important=True,
        )
        sys.exit(code)
    except Exception as error:
        if os.environ.get(DEBUG_ENV):
            raise
        fail(unexpected(error))


class PaperbriefGroup(click.Group):
    """Every command group of the CLI, set up once: ``-h`` and help read at 80 columns
    (``CONTEXT``, which every command below inherits through click's context), and every
    error a command raises mapped to one line, a hint and an exit code (``mapped_errors``).

    ``lazy``: command name → the module whose ``COMMANDS`` define it, imported when one of
    them is asked for (so `--version` or `profile check` do not import the pipeline).
    """

    def __init__(self, *args: Any, lazy: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        kwargs["context_settings"] = {**CONTEXT, **(kwargs.get("context_settings") or {})}
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            for command in importlib.import_module(self.lazy[cmd_name]).COMMANDS:
                self.add_command(command)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        with mapped_errors():
            return super().invoke(ctx)


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
    if os.environ.get(PROFILE_ENV):
        return Path(os.environ[PROFILE_ENV])
    local = Path(DEFAULT_PROFILE)
    if local.exists():
        return local
    return home_dir() / "profile.toml"


def get_profile(path: Path | None) -> Profile:
    """The profile; from now on the secrets it names are hidden from every log line."""
    profile = load_profile(resolve_profile_path(path))
    console.redaction.hide(secret_values(profile))
    return profile


def get_store(*, reading: bool = False) -> Store:
    """The store at $PAPERBRIEF_HOME/paperbrief.db (``reading``: a command that only reads,
    which a read-only home still serves)."""
    return open_store(home_dir() / "paperbrief.db", reading=reading)
