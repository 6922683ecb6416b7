"""`paperbrief send` and `paperbrief serve`: deliver a stored digest, run the web UI."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

import click

from paperbrief.cli.common import (
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
    user and process of the machine): $PAPERBRIEF_WEB_TOKEN, or one made for this session
    and printed once with the URL to open (as Jupyter does). Another host than loopback
    needs $PAPERBRIEF_WEB_TOKEN set explicitly. --no-token is allowed on loopback only.

    --readers DIR serves a lab: each reader of DIR gets a link with their own token (derived
    from the UI's token, so the same links work again while $PAPERBRIEF_WEB_TOKEN stays the
    same) and sees only their own digests, ranking, feedback and profile; the UI's token
    is the owner's, who also sees /owner: every reader's days and spend.
    """
    import uvicorn

    from paperbrief.web import create_app
    from paperbrief.web.readers import reader_token

    token = os.environ.get(WEB_TOKEN_ENV) or None
    if no_token:
        if not is_loopback(host):
            raise ServeError(
                f"--no-token is refused on {host}: only loopback may be served without a token",
                f"export {WEB_TOKEN_ENV}=<a long random string> to serve another host",
            )
        token = None
        console.print(
            "[yellow]warning:[/] serving without an access token: any user or process on this"
            " machine can read your digests and change your profile",
            highlight=False,
        )
    elif token is None:
        if not is_loopback(host):
            raise ServeError(
                f"refusing to serve on {host} without an access token",
                f"export {WEB_TOKEN_ENV}=<a long random string>, or keep the default"
                " --host 127.0.0.1",
            )
        token = secrets.token_urlsafe(24)
    if token is not None and len(token) < 16:
        raise ServeError(
            f"{WEB_TOKEN_ENV} is too short to protect the UI", "use at least 16 random characters"
        )
    if readers_folder is not None and token is None:
        raise ServeError(
            "--readers needs access tokens to tell the readers apart; drop --no-token",
            f"export {WEB_TOKEN_ENV}=<a long random string>, or let serve make one",
        )
    readers = web_readers(readers_folder) if readers_folder is not None else []
    app = create_app(
        home_dir() / "paperbrief.db", resolve_profile_path(profile_path), token, readers
    )
    shown = host if ":" not in host else f"[{host}]"
    if token is None:
        console.print(f"paperbrief UI on http://{shown}:{port}/ (Ctrl-C stops it)")
    elif os.environ.get(WEB_TOKEN_ENV):
        console.print(
            f"paperbrief UI on http://{shown}:{port}/ — open it with ?token=<${WEB_TOKEN_ENV}>"
            " once (Ctrl-C stops it)"
        )
    else:
        # Printed once, as Jupyter does: the link logs the browser in (a cookie).
        click.echo(f"paperbrief UI: http://{shown}:{port}/?token={token}")
        console.print("[dim]open that link once; Ctrl-C stops the UI[/]")
    if token is not None:
        for reader in readers:  # each reader's own link, for the owner to hand out
            link = f"http://{shown}:{port}/?token={reader_token(token, reader.label)}"
            click.echo(terminal_text(f"reader {reader.label} ({reader.key}): {link}"))
    uvicorn.run(app, host=host, port=port, log_level="warning")


COMMANDS: list[click.Command] = [send, serve]
