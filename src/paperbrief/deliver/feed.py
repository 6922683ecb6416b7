"""Feed: an Atom document listing the most recent digests, rewritten after each digest."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from pathlib import Path

from paperbrief.deliver.mail import inline_styles
from paperbrief.errors import DeliveryError, OutputError
from paperbrief.files import write_atomic

ATOM = "http://www.w3.org/2005/Atom"


@dataclass(frozen=True)
class AtomEntry:
    digest_date: date
    language: str
    title: str
    summary: str
    html: str  # the standalone page; its body becomes the entry content
    link: str = ""
    updated: str = ""  # ISO timestamp; empty = the digest date at midnight UTC

    @property
    def entry_id(self) -> str:
        return f"urn:paperbrief:digest:{self.digest_date.isoformat()}:{self.language}"

    @property
    def timestamp(self) -> str:
        if self.updated:
            return datetime.fromisoformat(self.updated).astimezone(UTC).isoformat()
        return datetime.combine(self.digest_date, time(), UTC).isoformat()


def build_atom_feed(
    entries: list[AtomEntry], title: str, feed_id: str, home_link: str = ""
) -> bytes:
    """Atom 1.0 XML for ``entries`` (newest first as given). All text is XML-escaped."""
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    ET.SubElement(feed, f"{{{ATOM}}}title").text = title
    ET.SubElement(feed, f"{{{ATOM}}}id").text = feed_id
    newest = max((entry.timestamp for entry in entries), default="1970-01-01T00:00:00+00:00")
    ET.SubElement(feed, f"{{{ATOM}}}updated").text = newest
    ET.SubElement(feed, f"{{{ATOM}}}generator").text = "paperbrief"
    if home_link:
        ET.SubElement(feed, f"{{{ATOM}}}link", href=home_link)
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    ET.SubElement(author, f"{{{ATOM}}}name").text = "paperbrief"
    for entry in entries:
        node = ET.SubElement(feed, f"{{{ATOM}}}entry")
        ET.SubElement(node, f"{{{ATOM}}}title").text = entry.title
        ET.SubElement(node, f"{{{ATOM}}}id").text = entry.entry_id
        ET.SubElement(node, f"{{{ATOM}}}updated").text = entry.timestamp
        if entry.link:
            ET.SubElement(node, f"{{{ATOM}}}link", href=entry.link, rel="alternate")
        if entry.summary:
            ET.SubElement(node, f"{{{ATOM}}}summary").text = entry.summary
        content = ET.SubElement(node, f"{{{ATOM}}}content", type="html")
        content.text = inline_styles(entry.html)
    return ET.tostring(feed, encoding="utf-8", xml_declaration=True)


def write_feed(path: Path, document: bytes) -> str:
    """Replace the feed file atomically."""
    try:
        write_atomic(path, document)
    except OutputError as error:
        raise DeliveryError(error.message, error.hint) from error
    return f"wrote {path}"
