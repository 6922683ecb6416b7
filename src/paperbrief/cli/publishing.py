"""`paperbrief send` and `paperbrief serve`: deliver a stored digest, run the web UI."""

from __future__ import annotations

import os
from pathlib import Path

import click

from paperbrief.cli.common import (
    CONTEXT,
    console,
    get_profile,
    get_store,
    handle_errors,
    profile_option,
    resolve_profile_path,
    say,
)
from paperbrief.errors import DeliveryError, ServeError
from paperbrief.profile import home_dir


@click.command("send", context_settings=CONTEXT)
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
@handle_errors
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
        mark = {"sent": "[green]sent[/]", "already-sent": "[green]already sent[/]",
                "unknown": "[yellow]unknown[/]"}.get(result.status, "[bold red]failed[/]")  # fmt: skip
        console.print(f"{day} {say(result.channel)}: {mark} — {say(result.detail)}",
                      highlight=False)  # fmt: skip
    failed = [result.channel for result in results if not result.ok]
    if failed:
        raise DeliveryError(
            f"{len(failed)} channel(s) not sent: {', '.join(failed)}",
            "fix the error shown above and rerun `paperbrief send --channel NAME`",
        )


@click.command("serve", context_settings=CONTEXT)
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port to listen on.")
@profile_option
@handle_errors
def serve(host: str, port: int, profile_path: Path | None) -> None:
    """Run the web UI: archive, digests, papers, full ranking, search, profile, feedback.

    Binds to 127.0.0.1 by default. Any other host needs an access token in
    $PAPERBRIEF_WEB_TOKEN; every request must then present it (open
    http://HOST:PORT/?token=... once to get a cookie).
    """
    import uvicorn

    from paperbrief.web import create_app
    from paperbrief.web.security import TOKEN_ENV, is_loopback

    token = os.environ.get(TOKEN_ENV) or None
    if not is_loopback(host) and token is None:
        raise ServeError(
            f"refusing to serve on {host} without an access token",
            f"export {TOKEN_ENV}=<a long random string>, or keep the default --host 127.0.0.1",
        )
    if token is not None and len(token) < 16:
        raise ServeError(
            f"{TOKEN_ENV} is too short to protect the UI", "use at least 16 random characters"
        )
    app = create_app(home_dir() / "paperbrief.db", resolve_profile_path(profile_path), token)
    console.print(f"paperbrief UI on http://{host}:{port}/ (Ctrl-C stops it)")
    uvicorn.run(app, host=host, port=port, log_level="warning")


COMMANDS: list[click.Command] = [send, serve]
