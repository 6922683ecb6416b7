"""What the model writes, rendered as written: paragraphs, lists, **bold** and `code`.

The writer prompt allows ``**bold**`` and `` `code` `` in its fields, blank lines between
paragraphs and "• " / "- " / "1. " lines as lists. ``parse`` reads a field into blocks of
spans; ``markdown_blocks`` / ``markdown_inline`` and ``html_blocks`` / ``html_inline`` print
them. Everything else stays escaped text: no other Markdown, no HTML, no links, and ``$``
is escaped so a blog with KaTeX or MathJax never reads ``$4.6–$5`` as math.

A bold run whose inner edge is punctuation next to a letter outside (``**“x”**的``) cannot
be emphasis in CommonMark, so a space is put between them; unpaired ``**`` or backticks are
plain characters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape
from typing import Literal
from urllib.parse import quote

from markupsafe import Markup

SpanKind = Literal["text", "bold", "code", "link", "flag"]
BlockKind = Literal["paragraph", "bullets", "numbers"]


@dataclass(frozen=True)
class Span:
    kind: SpanKind
    text: str
    url: str = ""  # a link's target (http/https only)
    title: str = ""  # a link's title: the evidence unit it points to, e.g. "E12 · Section 4.1"


@dataclass(frozen=True)
class Block:
    kind: BlockKind
    items: tuple[tuple[Span, ...], ...]  # one item for a paragraph


_BULLET = re.compile(r"^\s*(?:[•·▪◦‣∙●]|[-*+])\s+")
_NUMBERED = re.compile(r"^\s*(?:\d{1,2}[.)]\s+|\d{1,2}、\s*|[（(]\d{1,2}[)）]\s*)")
_CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# Citation links and "not traced" flags arrive in a field's text as private-use sentinels
# (``render.links.annotate`` puts them there; any the writer typed are removed first).
LINK_OPEN, LINK_SPLIT, LINK_CLOSE, FLAG = "\ue000", "\ue001", "\ue002", "\ue003"
SENTINELS = LINK_OPEN + LINK_SPLIT + LINK_CLOSE + FLAG
_SENTINEL = re.compile(
    f"{LINK_OPEN}([^{SENTINELS}]*){LINK_SPLIT}([^{SENTINELS}]*){LINK_CLOSE}|{FLAG}"
)
LINK_TEXT = "↗"
FLAG_TEXT = "⚠"
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|#!$~])")
_PUNCTUATION = re.compile(r"[^\w\s]")


def inline_spans(text: str) -> tuple[Span, ...]:
    """Citation links and flags first, then code spans (their content is literal), then
    bold in the rest."""
    spans: list[Span] = []
    position = 0
    for match in _SENTINEL.finditer(text):
        spans.extend(_code_spans(text[position : match.start()]))
        if match.group(0) == FLAG:
            spans.append(Span("flag", FLAG_TEXT))
        elif match.group(1).startswith(("https://", "http://")):
            spans.append(Span("link", LINK_TEXT, url=match.group(1), title=match.group(2)))
        position = match.end()
    spans.extend(_code_spans(text[position:]))
    return tuple(span for span in spans if span.text)


def _code_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    position = 0
    for match in _CODE.finditer(text):
        spans.extend(_bold_spans(text[position : match.start()]))
        code = match.group(2).strip()
        if code:
            spans.append(Span("code", code))
        position = match.end()
    spans.extend(_bold_spans(text[position:]))
    return spans


def _bold_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    position = 0
    for match in _BOLD.finditer(text):
        spans.append(Span("text", text[position : match.start()]))
        spans.append(Span("bold", match.group(1)))
        position = match.end()
    spans.append(Span("text", text[position:]))
    return spans


def parse(text: str) -> tuple[Block, ...]:
    """Blocks of a field: a blank line or a new line starts a paragraph; consecutive
    bullet ("• ", "- ", "* ") or numbered ("1. ", "(2)") lines form one list."""
    blocks: list[Block] = []
    current: list[tuple[Span, ...]] = []
    current_kind: BlockKind | None = None

    def flush() -> None:
        nonlocal current, current_kind
        if current and current_kind is not None:
            blocks.append(Block(current_kind, tuple(current)))
        current, current_kind = [], None

    for line in str(text).replace("\r\n", "\n").split("\n"):
        if not line.strip():
            flush()
            continue
        kind: BlockKind
        if _BULLET.match(line):
            kind, body = "bullets", _BULLET.sub("", line, count=1)
        elif _NUMBERED.match(line) and len(line) > 4:
            kind, body = "numbers", _NUMBERED.sub("", line, count=1)
        else:
            kind, body = "paragraph", line
        if kind != current_kind or kind == "paragraph":
            flush()
        current_kind = kind
        current.append(inline_spans(" ".join(body.split())))
    flush()
    return tuple(blocks)


def plain(text: str) -> str:
    """The field's text without any marks, on one line (for alt texts and descriptions);
    citation links and flags are left out."""
    return " ".join(
        "".join(span.text for span in item if span.kind not in ("link", "flag"))
        for block in parse(text)
        for item in block.items
    )


# -------------------------------------------------------------------- Markdown
def escape_md(text: str) -> str:
    """Escape untrusted text for inline Markdown (and HTML inside Markdown): one line,
    every character a Markdown or math renderer would act on escaped."""
    flat = " ".join(str(text).split())
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", flat)
    return escaped.replace("&", "&amp;").replace("\\<", "&lt;").replace("\\>", "&gt;")


def _code_md(code: str, in_table: bool) -> str:
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {code} " if code.startswith("`") or code.endswith("`") else code
    if in_table:
        padded = padded.replace("|", "\\|")
    return f"{fence}{padded}{fence}"


def _flat(text: str) -> tuple[Span, ...]:
    """Every span of a field on one line (blocks joined by spaces)."""
    spans: list[Span] = []
    for block in parse(text):
        for item in block.items:
            if spans:
                spans.append(Span("text", " "))
            spans.extend(item)
    return tuple(spans)


def _escape_edges(text: str) -> str:
    """``escape_md`` that keeps one leading and one trailing space of a text span."""
    core = escape_md(text)
    if not core:
        return " " if text else ""
    return (" " if text[:1].isspace() else "") + core + (" " if text[-1:].isspace() else "")


def markdown_inline(spans: tuple[Span, ...] | str, in_table: bool = False) -> str:
    """One line of Markdown for ``spans`` (or for a field's text, its lines joined)."""
    if isinstance(spans, str):
        spans = _flat(spans)
    out = ""
    for index, span in enumerate(spans):
        if span.kind == "text":
            out += _escape_edges(span.text)
        elif span.kind == "code":
            out += _code_md(span.text, in_table)
        elif span.kind == "link":
            out += _link_md(span, in_table)
        elif span.kind == "flag":
            out += (" " if out and not out.endswith(" ") else "") + span.text
        else:
            before = out[-1:]
            following = spans[index + 1].text[:1] if index + 1 < len(spans) else ""
            opens_on_punctuation = _PUNCTUATION.match(span.text[0]) is not None
            closes_on_punctuation = _PUNCTUATION.match(span.text[-1]) is not None
            if opens_on_punctuation and before and not _loose(before):
                out += " "
            out += f"**{escape_md(span.text)}**"
            if closes_on_punctuation and following and not _loose(following):
                out += " "
    return " ".join(out.split(" ")).strip()


def _link_md(span: Span, in_table: bool) -> str:
    """``[↗](url "title")``: the URL percent-encoded, the title's quotes and backslashes
    escaped (and pipes inside a table)."""
    url = quote(span.url, safe=":/?#[]@!$&*+,;=%~-._")
    title = span.title.replace("\\", "\\\\").replace('"', '\\"')
    if in_table:
        title = title.replace("|", "\\|")
    return f'[{span.text}]({url} "{title}")' if title else f"[{span.text}]({url})"


def _loose(char: str) -> bool:
    """Whitespace or punctuation: what CommonMark lets sit beside a punctuation-edged run."""
    return char.isspace() or _PUNCTUATION.match(char) is not None


def _escape_line_start(line: str) -> str:
    """A paragraph line must not read as a list item, heading rule or ordered list."""
    if re.match(r"^\d{1,9}[.)]\s", line):
        return re.sub(r"^(\d{1,9})([.)])", r"\1\\\2", line)
    if re.match(r"^[-+=]", line):
        return "\\" + line
    return line


def markdown_blocks(text: str, lead: str = "") -> list[str]:
    """Markdown lines for a field, blocks separated by blank lines; ``lead`` (already
    Markdown, e.g. ``**核心 Insight**：``) starts the first paragraph."""
    lines: list[str] = []
    for block in parse(text):
        if lines:
            lines.append("")
        if block.kind == "paragraph":
            lines.append(_escape_line_start(markdown_inline(block.items[0])))
        else:
            for number, item in enumerate(block.items, 1):
                marker = f"{number}." if block.kind == "numbers" else "-"
                lines.append(f"{marker} {markdown_inline(item)}")
    if lead:
        if lines and not lines[0].startswith(("- ", "1. ")):
            lines[0] = lead + lines[0]
        else:
            lines = [lead.rstrip(), "", *lines]
    return lines


def markdown_item(text: str, marker: str, lead: str = "") -> list[str]:
    """A list item whose text may hold several blocks: the first on the marker's line,
    the rest indented under it (CommonMark list-item continuation)."""
    blocks = markdown_blocks(text, lead)
    if not blocks:
        return []
    indent = " " * (len(marker) + 1)
    out = [f"{marker} {blocks[0]}"]
    out += [f"{indent}{line}" if line else "" for line in blocks[1:]]
    return out


# ------------------------------------------------------------------------ HTML
def html_inline(spans: tuple[Span, ...] | str) -> Markup:
    """Escaped HTML for spans: ``<strong>`` and ``<code>`` only."""
    if isinstance(spans, str):
        spans = _flat(spans)
    parts = []
    for span in spans:
        # "0.14 ± 0.01" is one quantity: it never breaks across lines
        text = escape(span.text, quote=False).replace(" ± ", "\u00a0±\u00a0")
        if span.kind == "bold":
            parts.append(f"<strong>{text}</strong>")
        elif span.kind == "code":
            parts.append(f"<code>{text}</code>")
        elif span.kind == "link":
            url = escape(quote(span.url, safe=":/?#[]@!$&*+,;=%~-._"))
            parts.append(f'<a class="src" href="{url}" title="{escape(span.title)}">{text}</a>')
        elif span.kind == "flag":
            parts.append(f' <span class="untraced">{text}</span>')
        else:
            parts.append(text)
    return Markup("".join(parts).strip())


def _lead_html(lead: str, colon: str) -> Markup:
    # Markup, not str: ``str + Markup`` escapes the str, which printed a literal
    # "<strong>局限 1</strong>" before every labelled item (issue 18).
    return Markup(f"<strong>{escape(lead)}</strong>{escape(colon)}") if lead else Markup("")


def html_blocks(text: str, lead: str = "", colon: str = "") -> Markup:
    """Escaped HTML for a field: ``<p>``, ``<ul>``/``<ol>`` with ``<li>``; ``lead`` (plain
    text, escaped here) is printed bold, then ``colon``, at the start of the first block."""
    out = []
    lead_html = _lead_html(lead, colon)
    for block in parse(text):
        if block.kind == "paragraph":
            out.append(f"<p>{lead_html}{html_inline(block.items[0])}</p>")
        else:
            if lead_html:
                out.append(f"<p>{lead_html}</p>")
            tag = "ol" if block.kind == "numbers" else "ul"
            items = "".join(f"<li>{html_inline(item)}</li>" for item in block.items)
            out.append(f"<{tag}>{items}</{tag}>")
        lead_html = Markup("")
    if lead_html:
        out.append(f"<p>{lead_html}</p>")
    return Markup("".join(out))


def html_item(text: str, lead: str = "", colon: str = "") -> Markup:
    """The inside of an ``<li>``: inline when the text is one paragraph, blocks otherwise."""
    blocks = parse(text)
    if len(blocks) == 1 and blocks[0].kind == "paragraph":
        return Markup(_lead_html(lead, colon) + html_inline(blocks[0].items[0]))
    return html_blocks(text, lead, colon)
