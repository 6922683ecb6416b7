"""E-mail: the digest as HTML with inlined styles plus a plain-text alternative, over SMTP.

Mail clients drop ``<style>`` blocks and scripts, so ``inline_styles`` rewrites the page's
body with a fixed per-tag stylesheet written into ``style`` attributes. The subject is
UTF-8 (RFC 2047 encoded by the ``email`` package); several recipients get one message.
"""

from __future__ import annotations

import re
import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formatdate, getaddresses, make_msgid
from html import escape

import lxml.html

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
_FRONT_MATTER = re.compile(r"\A---\s*\n.*?\n---\s*\n", re.S)


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
    for table in list(body.iter("table")):
        wrapper = lxml.html.Element("div", style="overflow-x:auto;max-width:100%")
        table.addprevious(wrapper)
        wrapper.append(table)
    inner = "".join(lxml.html.tostring(child, encoding="unicode", method="html") for child in body)
    lead = escape(body.text or "", quote=False)
    return f'<div style="{BODY_STYLE}">{lead}{inner}</div>'


def plain_text(markdown: str) -> str:
    """The plain-text alternative: the Markdown without its front matter."""
    return _FRONT_MATTER.sub("", markdown, count=1).strip() + "\n"


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


class SmtpSender:
    """Sends messages through one SMTP server.

    ``security`` is "starttls" (upgrade after connecting, port 587), "ssl" (implicit TLS,
    port 465) or "none" (a trusted local relay). Certificates are verified against the
    system store plus ``ca_file``. Raises DeliveryError on any failure.
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

    def send(self, message: EmailMessage) -> str:
        recipients = [address for _, address in getaddresses(message.get_all("To", []))]
        try:
            if self.security == "ssl":
                client: smtplib.SMTP = smtplib.SMTP_SSL(
                    self.host, self.port, timeout=self.timeout, context=self._context()
                )
            else:
                client = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
            with client:
                if self.security == "starttls":
                    client.starttls(context=self._context())
                if self.username:
                    client.login(self.username, self.password)
                refused = client.send_message(message, to_addrs=recipients)
        except (smtplib.SMTPException, OSError) as error:
            raise DeliveryError(
                f"SMTP {self.host}:{self.port} failed: {type(error).__name__}: {error}",
                "check delivery.email (host, port, security, username) and the password"
                " variable; the next run retries",
            ) from error
        if refused:
            raise DeliveryError(
                f"SMTP refused recipients: {', '.join(sorted(refused))}",
                "check the addresses in delivery.email.to",
            )
        return f"e-mail to {len(recipients)} recipient(s) via {self.host}:{self.port}"
