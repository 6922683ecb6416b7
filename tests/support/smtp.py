"""A real SMTP server on 127.0.0.1 (aiosmtpd) that can refuse recipients, answer 421 on
QUIT after accepting everything, or hold its reply to DATA (a sender killed mid-send)."""

from __future__ import annotations

import asyncio
import email
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiosmtpd.controller import Controller

from tests.support.web import free_port


@dataclass
class Inbox:
    """What the server received; ``refuse`` recipients get 550 at RCPT."""

    refuse: set[str] = field(default_factory=set)
    quit_reply: str | None = None  # e.g. "421 4.3.0 closing": sent instead of "221 Bye"
    hold_data: bool = False  # keep the client waiting for the reply to DATA
    messages: list[tuple[list[str], bytes]] = field(default_factory=list)
    received: threading.Event = field(default_factory=threading.Event)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in self.refuse:
            return "550 5.1.1 no such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.messages.append((list(envelope.rcpt_tos), envelope.original_content))
        self.received.set()
        if self.hold_data:
            await asyncio.sleep(60)  # accepted here; the sender never hears it
        return "250 OK: queued"

    async def handle_QUIT(self, server, session, envelope):
        return self.quit_reply or "221 Bye"

    def to(self, recipient: str) -> list[bytes]:
        return [raw for rcpts, raw in self.messages if recipient in rcpts]

    def message_ids(self, recipient: str) -> list[str]:
        return [str(email.message_from_bytes(raw)["Message-ID"]) for raw in self.to(recipient)]


@contextmanager
def smtp_server(inbox: Inbox) -> Iterator[int]:
    """An SMTP server (no TLS: a trusted local relay) on a free port; yields the port."""
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port
    finally:
        controller.stop()


def email_settings(port: int, to: list[str]) -> str:
    """The profile's [delivery.email] table for that server."""
    recipients = ", ".join(f'"{address}"' for address in to)
    return (
        "\n[delivery.email]\n"
        f'smtp_host = "127.0.0.1"\nsmtp_port = {port}\nsecurity = "none"\n'
        f'sender = "paperbrief <bot@example.org>"\nto = [{recipients}]\ntimeout = 5\n'
    )
