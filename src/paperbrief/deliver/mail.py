"""E-mail: the digest as HTML with inlined styles plus a plain-text alternative, over SMTP.

Mail clients drop ``<style>`` blocks and scripts, so ``inline_styles`` rewrites the page's
body with a fixed per-tag stylesheet written into ``style`` attributes. The subject is
UTF-8 (RFC 2047 encoded by the ``email`` package); several recipients get one message.
"""

from __future__ import annotations

import contextlib
import email.policy
import smtplib
import socket
import ssl
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, getaddresses, make_msgid
from html import escape
from typing import Any

import lxml.html

from paperbrief.deliver.plaintext import plain_text
from paperbrief.errors import DeliveryError

# One stylesheet, applied per tag: readable long Chinese text, tables that fit a phone.
TAG_STYLES: dict[str, str] = {
    "h1": "font-size:22px;line-height:1.35;margin:0 0 16px;color:#111827",
    "h2": "font-size:19px;line-height:1.4;margin:28px 0 12px;color:#111827;"
    "border-bottom:1px solid #e5e7eb;padding-bottom:6px",
    "h3": "font-size:17px;line-height:1.45;margin:24px 0 10px;color:#1f2937",
    "h4": "font-size:15px;line-height:1.5;margin:18px 0 8px;color:#374151",
    "p": "margin:0 0 12px;line-height:1.8",
    "li": "margin:0 0 6px;line-height:1.75",
    "ul": "margin:0 0 12px;padding-left:22px",
    "ol": "margin:0 0 12px;padding-left:22px",
    "a": "color:#0f766e;text-decoration:underline",
    "blockquote": "margin:0 0 14px;padding:8px 14px;border-left:4px solid #14b8a6;"
    "background:#f0fdfa;color:#134e4a",
    "table": "border-collapse:collapse;width:100%;margin:0 0 16px;font-size:13px",
    "th": "border:1px solid #d1d5db;background:#f3f4f6;padding:6px 8px;text-align:left;"
    "vertical-align:top",
    "td": "border:1px solid #e5e7eb;padding:6px 8px;vertical-align:top",
    "img": "max-width:100%;height:auto",
    "code": "font-family:Menlo,Consolas,monospace;font-size:13px;background:#f3f4f6;"
    "padding:1px 4px;border-radius:3px",
    "pre": "white-space:pre-wrap;background:#f3f4f6;padding:10px;border-radius:4px",
    "hr": "border:none;border-top:1px solid #e5e7eb;margin:24px 0",
}
# The renderer's few classes, styled for mail clients that drop <style>.
CLASS_STYLES: dict[str, str] = {
    "meta": "color:#6b7280;font-size:13px",
    "note": "color:#6b7280;font-style:italic",
    "caption": "color:#6b7280;font-size:13px",
    "provenance": "color:#6b7280;font-size:13px",
    "src": "font-size:11px;vertical-align:super;text-decoration:none;margin-left:1px",
    "untraced": "color:#b45309;font-weight:600",
}
TAG_CHIP_STYLE = (
    "display:inline-block;background:#ecfdf5;color:#065f46;border-radius:4px;"
    "padding:0 6px;margin-right:4px;font-size:12px"
)
BODY_STYLE = (
    "margin:0 auto;max-width:720px;padding:16px;font-size:15px;color:#1f2937;"
    "font-family:-apple-system,BlinkMacSystemFont,'PingFang SC','Hiragino Sans GB',"
    "'Microsoft YaHei','Noto Sans CJK SC',sans-serif"
)


def inline_styles(html: str) -> str:
    """The body of ``html`` as an e-mail-safe fragment: no scripts/styles, styles inlined.

    Tables are wrapped in a horizontally scrollable block so wide ones fit a phone.
    """
    document = lxml.html.document_fromstring(html or "<p></p>")
    for element in document.xpath("//script|//style|//link|//meta|//iframe|//form"):
        element.drop_tree()
    body = document.find("body")
    if body is None:
        body = document
    for element in body.iter():
        if not isinstance(element.tag, str):
            continue
        classes = (element.get("class") or "").split()
        parts = [TAG_STYLES.get(element.tag, "")]
        parts += [CLASS_STYLES.get(name, "") for name in classes]
        parent = element.getparent()
        if element.tag == "span" and parent is not None and "tags" in (parent.get("class") or ""):
            parts.append(TAG_CHIP_STYLE)
        style = ";".join(part for part in parts if part)
        for attribute in list(element.attrib):
            if attribute.startswith("on"):
                del element.attrib[attribute]
        if style:
            existing = element.get("style", "")
            element.set("style", f"{style};{existing}" if existing else style)
    for table in body.xpath("//table[contains(concat(' ', @class, ' '), ' overview ')]"):
        _as_cards(table)
    for table in list(body.iter("table")):
        wrapper = lxml.html.Element("div", style="overflow-x:auto;max-width:100%")
        table.addprevious(wrapper)
        wrapper.append(table)
    inner = "".join(lxml.html.tostring(child, encoding="unicode", method="html") for child in body)
    lead = escape(body.text or "", quote=False)
    return f'<div style="{BODY_STYLE}">{lead}{inner}</div>'


CARD_STYLE = "border:1px solid #e5e7eb;border-radius:8px;margin:0 0 12px;padding:8px 12px"
CARD_LINE_STYLE = "margin:2px 0;line-height:1.55"
CARD_LABEL_STYLE = "color:#6b7280;font-size:0.9em"


def _as_cards(table: lxml.html.HtmlElement) -> None:
    """The overview table as one card per paper (the first cell, then "column：value"
    lines): mail clients drop the page's media queries, and a four-column table is cut
    off on a phone (470 px in a 341 px frame)."""
    cells = [[c for c in row if c.tag in ("td", "th")] for row in table.iter("tr")]
    if len(cells) < 2:
        return
    names = [c.text_content().strip() for c in cells[0]]
    cards = lxml.html.Element("div")
    for row in cells[1:]:
        card = lxml.html.Element("div", style=CARD_STYLE)
        for index, cell in enumerate(row):
            line = lxml.html.Element("div", style=CARD_LINE_STYLE)
            label = cell.get("data-label") or (names[index] if index < len(names) else "")
            if index and label:
                tag = lxml.html.Element("span", style=CARD_LABEL_STYLE)
                tag.text = label + ("：" if any(ord(ch) > 0x2E7F for ch in label) else ": ")
                line.append(tag)
                tag.tail = cell.text
            else:
                line.text = cell.text
                line.set("style", CARD_LINE_STYLE + ";font-weight:600")
            for child in list(cell):
                line.append(child)
            card.append(line)
        cards.append(card)
    wrapper = table.getparent()
    replaced = wrapper if wrapper is not None and wrapper.get("class") == "table-wrap" else table
    replaced.addprevious(cards)
    replaced.drop_tree()


def build_email(
    subject: str, sender: str, recipients: list[str], markdown: str, html: str
) -> EmailMessage:
    """A multipart/alternative message: plain text first, inlined HTML second."""
    if not recipients:
        raise DeliveryError("e-mail has no recipients", "set delivery.email.to in the profile")
    if not sender:
        raise DeliveryError("e-mail has no sender", "set delivery.email.sender in the profile")
    message = EmailMessage()
    message["Subject"] = subject
    message["From"] = sender
    message["To"] = ", ".join(recipients)
    message["Date"] = formatdate(localtime=False)
    domain = getaddresses([sender])[0][1].rpartition("@")[2] or "paperbrief.local"
    message["Message-ID"] = make_msgid(domain=domain)
    message.set_content(plain_text(markdown), subtype="plain", charset="utf-8")
    page = (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1"></head>'
        f'<body style="margin:0;background:#ffffff">{inline_styles(html)}</body></html>'
    )
    message.add_alternative(page, subtype="html", charset="utf-8")
    return message


@dataclass(frozen=True)
class RecipientOutcome:
    """How the send to one recipient ended: ``sent``, ``failed`` (certainly not delivered)
    or ``unknown`` (the connection broke while the message itself was on its way)."""

    recipient: str
    status: str
    detail: str


class _Watchdog:
    """Shuts the SMTP connection down when its deadline passes, whatever it is waiting on.

    Socket timeouts are per operation: a server dripping its greeting a byte at a time
    would hold smtplib for as long as it liked (53 s with timeout 3 s in the campaign).
    """

    def __init__(self, seconds: float) -> None:
        self.fired = False
        self.client: smtplib.SMTP | None = None  # set by the client as it is created
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        self.fired = True
        sock = getattr(self.client, "sock", None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()


class _WatchedSMTP(smtplib.SMTP):
    """smtplib.SMTP that hands itself to the watchdog before it connects (the greeting is
    read inside the constructor)."""

    def __init__(self, watchdog: _Watchdog, *args: Any, **kwargs: Any) -> None:
        watchdog.client = self
        super().__init__(*args, **kwargs)


class _WatchedSMTPSSL(smtplib.SMTP_SSL):
    def __init__(self, watchdog: _Watchdog, *args: Any, **kwargs: Any) -> None:
        watchdog.client = self
        super().__init__(*args, **kwargs)


class SmtpSender:
    """Sends messages through one SMTP server, one envelope per recipient.

    ``security`` is "starttls" (upgrade after connecting, port 587), "ssl" (implicit TLS,
    port 465) or "none" (a trusted local relay). Certificates are verified against the
    system store plus ``ca_file``. ``timeout`` bounds the whole session (a watchdog shuts
    the connection down when it passes), not just each socket operation.

    Contract of ``send``: each message goes to its own recipient in its own transaction,
    so every recipient has its own outcome; ``before_data(recipient)`` is called just
    before the message content goes out (the point after which a copy may arrive), which
    is where the caller writes its journal intent. Once the server has accepted a message
    (250 after DATA) it is sent, whatever happens after (a 421 on QUIT changes nothing).
    A failure before that is ``failed``; a broken connection while the content is on its
    way is ``unknown``. Raises DeliveryError only when no recipient could be tried
    (connect, TLS or login failed).
    """

    def __init__(
        self,
        host: str,
        port: int,
        security: str = "starttls",
        username: str = "",
        password: str = "",
        *,
        ca_file: str = "",
        timeout: float = 30.0,
    ) -> None:
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.ca_file = ca_file
        self.timeout = timeout

    def _context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.ca_file or None)

    def _connect(self, watchdog: _Watchdog) -> smtplib.SMTP:
        if self.security == "ssl":
            return _WatchedSMTPSSL(
                watchdog, self.host, self.port, timeout=self.timeout, context=self._context()
            )
        return _WatchedSMTP(watchdog, self.host, self.port, timeout=self.timeout)

    def send(
        self,
        messages: Sequence[tuple[str, EmailMessage]],
        before_data: Callable[[str], None] = lambda recipient: None,
    ) -> list[RecipientOutcome]:
        """Send each ``(recipient, message)``; see the class docstring for the contract."""
        outcomes: list[RecipientOutcome] = []
        with _Watchdog(self.timeout) as watchdog:
            try:
                client = self._connect(watchdog)  # connects and reads the greeting
                client.ehlo_or_helo_if_needed()
                if self.security == "starttls":
                    client.starttls(context=self._context())
                if self.username:
                    client.login(self.username, self.password)
            except (smtplib.SMTPException, OSError, ssl.SSLError) as error:
                if watchdog.client is not None:
                    _close(watchdog.client)
                raise DeliveryError(
                    f"SMTP {self.host}:{self.port} failed: {_describe(error, watchdog)}",
                    "check delivery.email (host, port, security, username) and the password"
                    " variable; the next run retries",
                ) from error
            for index, (recipient, message) in enumerate(messages):
                outcome = self._send_one(client, recipient, message, before_data, watchdog)
                outcomes.append(outcome)
                if outcome.status == "unknown" or _broken(outcome):
                    # The connection is gone: the rest were not tried.
                    outcomes += [
                        RecipientOutcome(r, "failed", "not tried: the connection broke")
                        for r, _ in messages[index + 1 :]
                    ]
                    break
            with contextlib.suppress(smtplib.SMTPException, OSError, ssl.SSLError):
                client.quit()  # a 421 here cannot take back what was accepted
            _close(client)
        return outcomes

    def _send_one(
        self,
        client: smtplib.SMTP,
        recipient: str,
        message: EmailMessage,
        before_data: Callable[[str], None],
        watchdog: _Watchdog,
    ) -> RecipientOutcome:
        sender = getaddresses([str(message["From"] or "")])[0][1]
        content = _wire_format(message)
        transmitting = False
        try:
            code, reply = client.mail(sender)
            if code != 250:
                return RecipientOutcome(
                    recipient, "failed", f"sender refused: {code} {_text(reply)}"
                )
            code, reply = client.rcpt(recipient)
            if code not in (250, 251):
                client.rset()
                return RecipientOutcome(recipient, "failed", f"refused: {code} {_text(reply)}")
            client.putcmd("data")
            code, reply = client.getreply()
            if code != 354:
                client.rset()
                return RecipientOutcome(recipient, "failed", f"DATA refused: {code} {_text(reply)}")
            before_data(recipient)
            transmitting = True
            client.send(content)
            code, reply = client.getreply()
        except (smtplib.SMTPException, OSError, ssl.SSLError) as error:
            why = _describe(error, watchdog)
            if transmitting:
                return RecipientOutcome(
                    recipient, "unknown", f"the connection broke while sending ({why})"
                )
            return RecipientOutcome(recipient, "failed", f"{_BROKEN}{why}")
        if code != 250:
            return RecipientOutcome(recipient, "failed", f"message refused: {code} {_text(reply)}")
        return RecipientOutcome(recipient, "sent", f"accepted by {self.host}: {_text(reply)}")


_BROKEN = "connection lost: "


def _broken(outcome: RecipientOutcome) -> bool:
    return outcome.status == "failed" and outcome.detail.startswith(_BROKEN)


def _close(client: smtplib.SMTP) -> None:
    with contextlib.suppress(OSError):
        client.close()


def _text(reply: bytes | str) -> str:
    text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else reply
    return " ".join(text.split())[:200]


def _describe(error: BaseException, watchdog: _Watchdog) -> str:
    if watchdog.fired or _timed_out(error):
        return f"the session took longer than its limit ({type(error).__name__})"
    return f"{type(error).__name__}: {error}"


def _timed_out(error: BaseException | None) -> bool:
    """A socket operation that hit the same limit before the watchdog did (smtplib wraps
    the read's TimeoutError in SMTPServerDisconnected; a busy machine lets either go first)."""
    seen = 0
    while error is not None and seen < 5:
        if isinstance(error, TimeoutError):
            return True
        error, seen = error.__cause__ or error.__context__, seen + 1
    return False


def _wire_format(message: EmailMessage) -> bytes:
    """The message as SMTP DATA: CRLF line ends, leading dots doubled, ending CRLF.CRLF."""
    raw = message.as_bytes(policy=email.policy.SMTP)
    lines = raw.split(b"\r\n")
    if lines and lines[-1] == b"":
        lines.pop()
    quoted = b"\r\n".join(b"." + line if line.startswith(b".") else line for line in lines)
    return quoted + b"\r\n.\r\n"
