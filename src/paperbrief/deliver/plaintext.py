"""The digest as plain text, for the e-mail's text/plain part.

A reader whose client shows the plain part (a terminal mailer, a watch, a "plain text
only" setting, a preview line) used to get the raw Markdown: front matter, pipe tables,
``[title](url)`` and ``**bold**``. Here the digest's Markdown (CommonMark as
``render/markdown.py`` writes it) is read back into text a person reads:

* headings become a line underlined (``=`` for the title, ``-`` for a section), lower
  ones a line of their own with a mark before it;
* a pipe table becomes one block per row: the first cell, then ``column: value`` lines,
  so a row never depends on the width of a screen;
* ``[text](url)`` becomes ``text <url>``, an image ``[image: alt] <url>``; a link whose
  text is only a mark (the ``↗`` that points a claim at its evidence) becomes a numbered
  note ``[3]``, its address listed at the end, so a sentence stays readable; emphasis, code
  marks, backslash escapes, block-quote marks and inline HTML go; entities are decoded;
* the front matter (the blog's metadata) is left out.

Text is never wrapped here: mail clients wrap plain text to their own width.
"""

from __future__ import annotations

import html
import re
import unicodedata

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_RULE = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,})\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_IMAGE = re.compile(r"!\[((?:\\.|[^\]\\])*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_LINK = re.compile(r"\[((?:\\.|[^\]\\])*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_CODE = re.compile(r"`([^`]*)`")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>$~&])")


def width(text: str) -> int:
    """Columns ``text`` takes in a monospaced font (CJK and emoji count two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def inline(text: str, notes: list[str] | None = None) -> str:
    """One line of Markdown as plain text: links as ``text <url>``, or, when ``notes`` is
    given, a mark-only link as ``[n]`` with its address appended to ``notes``."""
    text = _IMAGE.sub(lambda m: f"[image: {m.group(1)}] <{m.group(2)}>", text)

    def link(match: re.Match[str]) -> str:
        label, url = match.group(1), match.group(2)
        if notes is not None and not re.search(r"\w", label):
            if url not in notes:
                notes.append(url)
            return f"[{notes.index(url) + 1}]"
        return f"<{url}>" if label.strip() in ("", url) else f"{label} <{url}>"

    text = _LINK.sub(link, text)
    text = _AUTOLINK.sub(r"<\1>", text)
    text = _TAG.sub(lambda m: "" if not m.group(0).startswith("<http") else m.group(0), text)
    text = _CODE.sub(r"\1", text)
    for _ in range(2):  # bold inside italics
        text = _EMPHASIS.sub(lambda m: m.group(2) or m.group(3) or "", text)
    text = _ESCAPE.sub(r"\1", text)
    return html.unescape(text)


def _cells(row: str) -> list[str]:
    """The cells of a pipe-table row (an escaped ``\\|`` stays inside its cell)."""
    body = row.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", body)]


def _table(rows: list[str], notes: list[str]) -> list[str]:
    header, body = _cells(rows[0]), [_cells(r) for r in rows[1:] if not _TABLE_RULE.match(r)]
    out: list[str] = []
    for number, cells in enumerate(body, 1):
        first = inline(cells[0], notes) if cells else ""
        out.append(f"{number}. {first}" if len(body) > 1 else first)
        for name, value in zip(header[1:], cells[1:], strict=False):
            value = inline(value, notes)
            if value and value not in ("—", "-"):
                out.append(f"   {inline(name)}: {value}")
        out.append("")
    return out


def plain_text(markdown: str) -> str:
    """The digest's Markdown as text a person reads (see the module docstring)."""
    lines = _FRONT_MATTER.sub("", markdown, count=1).strip().splitlines()
    out: list[str] = []
    notes: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if line.lstrip().startswith("|") and _TABLE_RULE.match(following):
            rows = [line]
            index += 1
            while index < len(lines) and lines[index].lstrip().startswith("|"):
                rows.append(lines[index])
                index += 1
            out += _table(rows, notes)
            continue
        heading = _HEADING.match(line)
        if heading:
            level, text = len(heading.group(1)), inline(heading.group(2))
            if level <= 2:
                out += [text, ("=" if level == 1 else "-") * max(width(text), 3)]
            else:
                out.append(("■ " if level == 3 else "▸ ") + text)
        elif _RULE.match(line):
            out.append("—" * 24)
        elif line.lstrip().startswith(">"):
            out.append("  " + inline(line.lstrip()[1:].strip(), notes))
        else:
            out.append(inline(line, notes))
        index += 1
    if notes:
        out += ["", "—" * 24, *(f"[{n}] {url}" for n, url in enumerate(notes, 1))]
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
