"""The citation syntax of a digest: which evidence units of the paper a claim rests on.

A paper's evidence units (``fulltext.units``) have short ids: ``E12`` for one sentence,
``T4.r3.c2`` for one table cell (table label 4, body row 3, column 2; ``TA1.r1.c3`` for an
appendix table, ``T2a.r2.c4`` for a sub-table). A claim closes with the units it rests on in
square brackets: ``… 提升 16.3% [E12]``, ``[E12, T4.r3.c2]``. Day-level text, which speaks of
several papers, prefixes each unit with its pick's number as the day prompt lists it:
``[2:E12]``, ``[1:T4.r3.c2; 3:E7]``. Full-width brackets (［…］ 【…】) and separators are read too.

``claim_sentences`` cuts a field into the sentences claims are judged by (a marker written just
after a sentence's full stop still belongs to it); ``strip_citations`` removes the markers for
text that is shown without links. This module is the one home of the syntax: the writers'
prompts describe it, the verifier reads it, the renderers turn it into links.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from paperbrief.text import ABBREVIATIONS, arxiv

UNIT_ID = r"(?:E\d{1,5}|T[A-Z]?\d{1,3}[a-z]?\.r\d{1,3}\.c\d{1,2})"
# a pick number of the day prompt (2:E12), or — in a digest read back from Markdown, where
# links name their paper — an arXiv id (2501.11120:E12, cs/9901011:E3)
_PREFIX = rf"(?:{arxiv.ID_PATTERN}|\d{{1,2}})"
_REF = r"(?:" + _PREFIX + r"\s*[:：]\s*)?" + UNIT_ID
_MARKER = re.compile(
    r"\s?[\[［【]\s*(?P<refs>" + _REF + r"(?:\s*[,，;；、]\s*" + _REF + r")*)\s*[\]］】]"
)
_ONE_REF = re.compile(r"(?:(?P<prefix>" + _PREFIX + r")\s*[:：]\s*)?(?P<unit>" + UNIT_ID + r")")
_UNIT_ONLY = re.compile(r"^" + UNIT_ID + r"$")
# A sentence ends after 。！？； or after . ! ? ; followed by a space and what starts a
# sentence (a capital, a digit, a bracket, a quote, a CJK character), or at a line break (a
# list item is a sentence of its own). Decimals and abbreviations ("s.e.", "e.g.") stay.
_SENTENCE_END = re.compile(
    r"(?<=[。！？；])|(?<=[.!?;])(?=\s+(?:[A-Z0-9(\[\"“【［]|[\u4e00-\u9fff]|$))|\n"
)
_ABBREVIATION_END = re.compile(
    "(?:" + "|".join(re.escape(a) for a in ABBREVIATIONS) + r")$", re.IGNORECASE
)


class Ref(NamedTuple):
    """One cited unit: ``pick`` is the day prompt's pick number, ``paper`` an arXiv id (a
    digest read back from its Markdown); neither inside a brief, which cites its own paper."""

    pick: int | None
    unit: str
    paper: str = ""

    def __str__(self) -> str:
        prefix = self.paper or (str(self.pick) if self.pick is not None else "")
        return f"{prefix}:{self.unit}" if prefix else self.unit


class ClaimSentence(NamedTuple):
    """One sentence of a field, with the units its markers cite."""

    text: str  # as written, markers included
    start: int  # offset in the field
    end: int
    refs: tuple[Ref, ...]

    @property
    def plain(self) -> str:
        """The sentence without its markers (what the reader reads)."""
        return strip_citations(self.text)


def is_unit_id(text: str) -> bool:
    return bool(_UNIT_ONLY.match(text.strip()))


def parse_refs(text: str) -> tuple[Ref, ...]:
    """Every unit cited by the markers in ``text``, in order, each once."""
    refs: list[Ref] = []
    for marker in _MARKER.finditer(text):
        for match in _ONE_REF.finditer(marker.group("refs")):
            prefix = match.group("prefix") or ""
            pick = int(prefix) if prefix.isdigit() else None
            paper = prefix if prefix and pick is None else ""
            ref = Ref(pick, match.group("unit"), paper)
            if ref not in refs:
                refs.append(ref)
    return tuple(refs)


def markers(text: str) -> list[tuple[int, int, tuple[Ref, ...]]]:
    """(start, end, refs) of every citation marker in ``text`` (start includes one space)."""
    return [(m.start(), m.end(), parse_refs(m.group(0))) for m in _MARKER.finditer(text)]


def strip_citations(text: str) -> str:
    """``text`` without citation markers (and without the space before each)."""
    return _MARKER.sub("", text)


def format_refs(refs: tuple[Ref, ...] | list[Ref]) -> str:
    """The marker for ``refs``: ``[E12, T4.r3.c2]`` ("" for none)."""
    return f"[{', '.join(str(ref) for ref in refs)}]" if refs else ""


def claim_sentences(text: str, *, inherit: bool = True) -> list[ClaimSentence]:
    """The sentences of a field with the units each cites, in order.

    A marker right after a sentence end (``…16.3%。[E12]``) belongs to that sentence; a marker
    inside a sentence covers that sentence. Empty pieces are dropped. With ``inherit``, a
    clause closed by "；" rests on the marker that closes its sentence (``_inherit``); a
    proposal of the digest's own is read without (its plan is not the paper's).
    """
    spans: list[tuple[int, int]] = []
    inside = [(m.start(), m.end()) for m in _MARKER.finditer(text)]
    cursor = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.end()
        if any(start < end < stop for start, stop in inside):
            continue  # a separator inside a marker ("[2:E7；3:E8]") ends nothing
        if text[end - 1 : end] == "." and _ABBREVIATION_END.search(text[max(0, end - 8) : end]):
            continue  # "(s.e. 0.0102)" is one sentence
        if end > cursor:
            spans.append((cursor, end))
            cursor = end
    if cursor < len(text):
        spans.append((cursor, len(text)))
    # move a leading marker to the sentence before it
    merged: list[list[int]] = []
    for start, end in spans:
        piece = text[start:end]
        lead = _MARKER.match(piece)
        if merged and lead is not None and lead.start() == 0:
            merged[-1][1] = start + lead.end()
            start += lead.end()
        if text[start:end].strip():
            merged.append([start, end])
        elif merged:
            merged[-1][1] = end
    sentences: list[ClaimSentence] = []
    for start, end in merged:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        piece = text[start:end]
        if piece and strip_citations(piece).strip(" 。，,.;；"):
            sentences.append(ClaimSentence(piece, start, end, parse_refs(piece)))
        elif piece and sentences:  # a lone marker line: it closes the sentence before
            last = sentences[-1]
            sentences[-1] = ClaimSentence(
                text[last.start : end], last.start, end, (*last.refs, *parse_refs(piece))
            )
    return _inherit(sentences) if inherit else sentences


def _inherit(sentences: list[ClaimSentence]) -> list[ClaimSentence]:
    """A clause closed by "；" without a marker of its own rests on the marker that closes
    its sentence ("A 提升 1.11 个百分点；B 减少 4.1 个百分点 [E25, E27]。" cites both for A):
    it takes the refs of the next piece that has some, within the sentence."""
    out = list(sentences)
    for index in range(len(out) - 2, -1, -1):
        piece = out[index]
        if piece.refs or not piece.text.rstrip().endswith(("；", ";")):
            continue
        following = out[index + 1]
        if following.refs:
            out[index] = piece._replace(refs=following.refs)
    return out
