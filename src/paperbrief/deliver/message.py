"""The short form of a digest that chat messages, e-mail subjects and the feed are made of.

``Announcement`` is built from a ``models.Digest``, so delivery never needs more than the
day's summary and the overview rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from paperbrief.labels import labels_for
from paperbrief.models import Digest
from paperbrief.render.rich import plain
from paperbrief.text import shorten_to_fit
from paperbrief.text.arxiv import abs_url


@dataclass(frozen=True)
class AnnouncedPaper:
    """One row of the overview: enough to name, rate and link a pick."""

    id: str
    title: str
    stars: int
    direction: str = ""
    contribution: str = ""

    @property
    def url(self) -> str:
        return abs_url(self.id)


@dataclass(frozen=True)
class Announcement:
    digest_date: date
    language: str
    title: str
    summary: str
    description: str
    papers: tuple[AnnouncedPaper, ...]
    link: str = ""  # public URL of the full digest; empty when none is configured


def digest_link(template: str, digest_date: date) -> str:
    return template.replace("{date}", digest_date.isoformat()) if template else ""


def announcement_from_digest(digest: Digest, link: str = "") -> Announcement:
    """The short form of ``digest``; the model's ``**bold**`` and `` `code` `` marks are
    dropped (each chat dialect bolds only what it chooses to)."""
    return Announcement(
        digest_date=digest.digest_date,
        language=digest.language,
        title=digest.title,
        summary=plain(digest.summary),
        description=digest.description,
        papers=tuple(
            AnnouncedPaper(
                id=brief.paper.id,
                title=brief.paper.title,
                stars=brief.scored.stars,
                direction=plain(brief.direction),
                contribution=plain(brief.contribution),
            )
            for brief in digest.briefs
        ),
        link=link,
    )


@dataclass(frozen=True)
class Dialect:
    """How one chat platform writes bold text and links, and how size is counted."""

    bold: Callable[[str], str]
    link: Callable[[str, str], str]
    measure: Callable[[str], int]
    heading: Callable[[str], str]
    escape: Callable[[str], str] = str


def _md_text(text: str) -> str:
    return re.sub(r"[\[\]]", lambda m: "(" if m.group() == "[" else ")", text)


def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def utf8_size(text: str) -> int:
    return len(text.encode("utf-8"))


MARKDOWN = Dialect(
    bold=lambda text: f"**{text}**",
    link=lambda text, url: f"[{_md_text(text)}]({url})",
    measure=len,
    heading=lambda text: f"**{text}**",
)
MARKDOWN_BYTES = Dialect(
    bold=MARKDOWN.bold, link=MARKDOWN.link, measure=utf8_size, heading=MARKDOWN.heading
)
PLAIN = Dialect(bold=str, link=lambda text, url: f"{text} {url}", measure=len, heading=str)
SLACK = Dialect(
    bold=lambda text: f"*{_slack_escape(text)}*",
    link=lambda text, url: f"<{url}|{_slack_escape(text).replace('|', '/')}>",
    measure=len,
    heading=lambda text: f"*{_slack_escape(text)}*",
    escape=_slack_escape,
)


def compose_message(announcement: Announcement, dialect: Dialect, limit: int) -> str:
    """The chat text: title, summary, overview rows with stars and links, full-digest link.

    Never longer than ``limit`` as ``dialect.measure`` counts. The title, the link and the
    first overview rows are kept; the summary is shortened first, then rows lose their
    detail lines (last first), then trailing rows are replaced by a "N more" line.
    """
    labels = labels_for(announcement.language)
    header = dialect.bold(announcement.title)
    footer = dialect.link(labels.full + " →", announcement.link) if announcement.link else ""
    rows: list[tuple[str, str]] = []  # (full row, compact row without the detail line)
    for paper in announcement.papers:
        line = f"{'⭐' * max(paper.stars, 0)} {dialect.link(paper.title, paper.url)}"
        detail = dialect.escape(
            " · ".join(part for part in (paper.direction, paper.contribution) if part)
        )
        rows.append((f"{line}\n{detail}" if detail else line, line))
    overview = dialect.heading(labels.overview)

    def joined(summary: str, kept: list[str], dropped: int) -> str:
        parts = [header]
        if summary:
            parts.append(summary)
        if kept:
            parts.append("\n".join([overview, *kept]))
        if dropped:
            parts.append(labels.more.format(n=dropped))
        if footer:
            parts.append(footer)
        return "\n\n".join(parts)

    summary = dialect.escape(announcement.summary.strip())
    minimum_summary = min(dialect.measure(summary), 160)

    def fits(candidate: list[str]) -> bool:
        dropped = len(rows) - len(candidate)
        return dialect.measure(joined("", candidate, dropped)) + minimum_summary + 2 <= limit

    # As many picks as fit in their compact form, then detail lines while there is room.
    kept: list[str] = []
    for _, compact in rows:
        if not fits([*kept, compact]):
            break
        kept.append(compact)
    for index in range(len(kept)):
        upgraded = [*kept[:index], rows[index][0], *kept[index + 1 :]]
        if fits(upgraded):
            kept = upgraded
    dropped = len(rows) - len(kept)
    base = dialect.measure(joined("", kept, dropped))
    summary = shorten_to_fit(summary, limit - base - 2, dialect.measure)
    text = joined(summary, kept, dropped)
    if dialect.measure(text) > limit:  # pathological limits: fall back to a hard cut
        text = shorten_to_fit(text, limit, dialect.measure)
    return text
