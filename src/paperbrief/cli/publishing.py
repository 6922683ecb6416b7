"""`paperbrief send` and `paperbrief serve`: deliver a stored digest, run the web UI."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from paperbrief.cli.common import (
    PaperbriefGroup,
    console,
    get_profile,
    get_store,
    profile_option,
    resolve_profile_path,
    say,
    terminal_text,
)
from paperbrief.environment import WEB_TOKEN_ENV, is_loopback
from paperbrief.errors import DeliveryError, ServeError
from paperbrief.profile import home_dir

if TYPE_CHECKING:
    from paperbrief.web.readers import WebReader

MARKS = {
    "sent": "[green]sent[/]",
    "already-sent": "[green]already sent[/]",
    "unknown": "[yellow]unknown[/]",
}


@click.command("send", short_help="Send a stored digest again, on purpose.")
@click.option(
    "--date",
    "digest_date",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    help="Digest date (YYYY-MM-DD); default: the newest stored digest.",
)
@click.option(
    "--channel",
    "channels",
    multiple=True,
    help="Only this channel (blog, feed, email or a webhook name); repeatable.",
)
@click.option(
    "--retry-unknown",
    is_flag=True,
    help="Send only what is not sent yet: failed ones and those whose outcome is unknown"
    " (sent ones are skipped).",
)
@profile_option
def send(
    digest_date: object, channels: tuple[str, ...], retry_unknown: bool, profile_path: Path | None
) -> None:
    """Send a stored digest to its channels again, on purpose.

    Without --retry-unknown every channel is sent again, even if already sent. With it,
    only what is not known to have arrived: failed sends, and sends whose outcome is
    unknown (the connection broke after the message went out). Repeats carry the same
    Message-ID / Idempotency-Key, so receivers that deduplicate drop them. Secrets come
    from the environment variables the profile names. Exits 1 when any channel failed.
    """
    from paperbrief.deliver import configured_channels, deliver_digest

    profile = get_profile(profile_path)
    with get_store() as store:
        store.adopt_unnamed(profile.key)
        if digest_date is None:
            latest = store.digests.latest(profile.key)
            if latest is None:
                raise DeliveryError(
                    "no digest is stored yet", "run `paperbrief run` to make one first"
                )
            day = latest.digest_date
        else:
            day = digest_date.date()  # type: ignore[attr-defined]
        if not configured_channels(profile.delivery):
            raise DeliveryError(
                "no delivery channel is configured",
                "add a [delivery] section to the profile: blog, email, webhooks or feed",
            )
        stored = store.digests.load(day, profile.language, profile.key) or store.digests.load(
            day, profile=profile.key
        )
        if stored is None:
            raise DeliveryError(
                f"no digest stored for {day.isoformat()}",
                "run `paperbrief run` for that day first, or pick a --date that has one",
            )
        with store.run_lock(day, profile.key, "send"):
            results = deliver_digest(
                stored,
                profile,
                store.deliveries,
                store.digests,
                channels=list(channels) or None,
                force=not retry_unknown,
                retry_unknown=retry_unknown,
            )
    for result in results:
        mark = MARKS.get(result.status, "[bold red]failed[/]")
        console.print(
            f"{day} {say(result.channel)}: {mark} — {say(result.detail)}", highlight=False
        )
    failed = [result.channel for result in results if not result.ok]
    if failed:
        raise DeliveryError(
            f"{len(failed)} channel(s) not sent: {', '.join(failed)}",
            "fix the error shown above and rerun `paperbrief send --channel NAME`",
        )


def web_readers(folder: Path) -> list[WebReader]:
    """The readers the UI serves: every profile of the folder that can be read (the others
    are named, and left out)."""
    from paperbrief.lab import load_readers, reader_files
    from paperbrief.web.readers import WebReader

    served = []
    for reader in load_readers(reader_files(folder)):
        if reader.profile is None:
            problem = f"{reader.path.name}: {reader.error}"
            console.print(f"[yellow]not served:[/] {say(problem)}", highlight=False)
            continue
        served.append(WebReader(reader.label, reader.profile.key, reader.path))
    return served


@click.command("serve", short_help="Run the web UI (archive, ranking, feedback).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port to listen on.")
@click.option(
    "--no-token",
    is_flag=True,
    help="Serve without an access token (loopback only; any local user or process can then"
    " use the UI).",
)
@click.option(
    "--readers",
    "readers_folder",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Serve every reader of this folder (as `run --all`), each with their own token.",
)
@profile_option
def serve(
    host: str, port: int, no_token: bool, profile_path: Path | None, readers_folder: Path | None
) -> None:
    """Run the web UI: archive, digests, papers, full ranking, search, profile, feedback.

    Every request needs an access token, also on 127.0.0.1 (loopback is shared by every
    user and process of the machine): $PAPERBRIEF_WEB_TOKEN, else the token kept in
    $PAPERBRIEF_HOME/web-token (made on first use, private to you, the same after a
    restart; `paperbrief token show` prints it, `paperbrief token rotate` replaces it, also
    for a UI already running).
    Beyond loopback the login cookie is marked Secure: serve it behind HTTPS. --no-token is
    allowed on loopback only.

    --readers DIR serves a lab: each reader of DIR gets a link with their own token (derived
    from the UI's token, so the same links work again until the token is rotated) and sees
    only their own digests, ranking, feedback and profile; the UI's token is the owner's,
    who also sees /owner: every reader's days and spend.
    """
    import uvicorn

    from paperbrief.web import create_app
    from paperbrief.web.readers import reader_token
    from paperbrief.web.tokens import load_token

    token = None
    if no_token:
        if not is_loopback(host):
            raise ServeError(
                f"--no-token is refused on {host}: only loopback may be served without a token",
                f"export {WEB_TOKEN_ENV}=<a long random string> to serve another host",
            )
        console.print(
            "[yellow]warning:[/] serving without an access token: any user or process on this"
            " machine can read your digests and change your profile",
            highlight=False,
        )
    else:
        token = load_token(home_dir())
    if readers_folder is not None and token is None:
        raise ServeError(
            "--readers needs access tokens to tell the readers apart; drop --no-token",
            "serve then uses the token kept in the home (`paperbrief token show`)",
        )
    readers = web_readers(readers_folder) if readers_folder is not None else []
    app = create_app(
        home_dir() / "paperbrief.db",
        resolve_profile_path(profile_path),
        token.value if token else None,
        readers,
        secure_cookies=not is_loopback(host),
        token_source=token.where() if token else "",
        token_file=token.path if token else None,
    )
    shown = host if ":" not in host else f"[{host}]"
    if token is None:
        console.print(f"paperbrief UI on http://{shown}:{port}/ (Ctrl-C stops it)")
    elif token.source == "env":
        console.print(
            f"paperbrief UI on http://{shown}:{port}/ — open it with ?token=<${WEB_TOKEN_ENV}>"
            " once (Ctrl-C stops it)"
        )
    else:
        console.print(
            f"paperbrief UI on http://{shown}:{port}/ — the token is in {token.path}"
            " (`paperbrief token show` prints the login link; Ctrl-C stops the UI)"
        )
        if sys.stdout.isatty():  # a person at a terminal, not a log: the link to click
            click.echo(f"open: http://{shown}:{port}/?token={token.value}")
    if token is not None:
        for reader in readers:  # each reader's own link, for the owner to hand out
            link = f"http://{shown}:{port}/?token={reader_token(token.value, reader.label)}"
            click.echo(terminal_text(f"reader {reader.label} ({reader.key}): {link}"))
    uvicorn.run(app, host=host, port=port, log_level="warning")


@click.group("token", cls=PaperbriefGroup, short_help="The web UI's access token.")
def token_group() -> None:
    """The web UI's access token: kept in $PAPERBRIEF_HOME/web-token (private to you) unless
    $PAPERBRIEF_WEB_TOKEN is set."""


@token_group.command("show", short_help="Print the token and the login link.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Host of the link.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port of the link.")
def token_show(host: str, port: int) -> None:
    """Print the token and the link that logs a browser in (made when there is none yet)."""
    from paperbrief.web.tokens import load_token

    token = load_token(home_dir())
    shown = host if ":" not in host else f"[{host}]"
    click.echo(f"paperbrief UI: http://{shown}:{port}/?token={token.value}")
    console.print(f"[dim]from {say(token.where())}; open the link once per browser[/]")


@token_group.command("rotate", short_help="Replace the token; log every browser out.")
def token_rotate() -> None:
    """Replace the stored token with a new random one; every browser logged in with the old
    one is logged out, also by a `serve` already running (it reads the file again)."""
    from paperbrief.web.tokens import rotate_token

    if os.environ.get(WEB_TOKEN_ENV):
        raise ServeError(
            f"${WEB_TOKEN_ENV} is set: the UI uses it, not the stored token",
            f"change ${WEB_TOKEN_ENV} where it is set, or unset it to use the stored token",
        )
    token = rotate_token(home_dir())
    console.print(
        f"new token written to {say(token.path)}; a running `paperbrief serve` takes it at"
        " once, and every browser logged in with the old one must log in again"
    )


COMMANDS: list[click.Command] = [send, serve, token_group]
