"""The text vocabulary every stage shares: sentences, numbers, token estimates, shortening.

One home each (this package), so the evidence index, the writers and the verifier agree on
what a sentence is and what a number is:

* ``split_sentences`` (English prose: abbreviations and decimals stay intact) and
  ``split_clauses`` (Chinese or English prose cut after 。！？； and . ! ? ;);
* ``find_numbers`` (``numbers.py``): every number token with its value, unit, scale and
  role (value, standard error, reference, citation, year, …), so each consumer applies its
  own policy to one grammar;
* ``estimate_tokens``: the one token estimate (budgets, the LLM reservation);
* ``shorten`` (a display cut at a word boundary) and ``shorten_to_fit`` (a strict cut
  under any size measure, e.g. UTF-8 bytes of a chat message);
* ``clean_tex`` / ``repair_text`` (``tex.py``): TeX as readable text, garbled text repaired.
* ``arxiv.py``: how an arXiv id is written (the one id pattern, ``split_arxiv_id``) and
  where its paper lives (``abs_url``, the HTML / PDF / ar5iv bases).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from paperbrief.text.cjk import breaks_anywhere, count_wide
from paperbrief.text.numbers import (
    NumberMention,
    find_numbers,
    header_unit,
    reported_numbers,
    with_kind,
    with_unit,
)
from paperbrief.text.tex import clean_tex, repair_text

__all__ = [
    "ABBREVIATIONS",
    "NumberMention",
    "clean_tex",
    "estimate_tokens",
    "find_numbers",
    "header_unit",
    "join_clauses",
    "repair_text",
    "reported_numbers",
    "shorten",
    "shorten_to_fit",
    "split_clauses",
    "split_sentences",
    "with_kind",
    "with_unit",
]

# ------------------------------------------------------------------------ sentences
# Abbreviations whose trailing period does not end a sentence.
ABBREVIATIONS = (
    "e.g.", "i.e.", "et al.", "etc.", "vs.", "cf.", "Fig.", "Eq.", "Sec.", "approx.", "s.e.",
    "resp.", "Tab.", "No.",
)  # fmt: skip
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[\"“])")
_CLAUSE_END = re.compile(r"(?<=[。！？；])|(?<=[.!?;])\s+")
_PROTECTED = "\x00"


def split_sentences(text: str) -> list[str]:
    """Sentences of English prose: split after . ! ? before a capital, digit or bracket,
    keeping abbreviations (``e.g.``, ``Fig.``) and decimals intact."""
    protected = " ".join(text.split())
    for abbreviation in ABBREVIATIONS:
        protected = protected.replace(abbreviation, abbreviation.replace(".", _PROTECTED))
    sentences = []
    for part in _SENTENCE_END.split(protected):
        restored = part.replace(_PROTECTED, ".").strip()
        if len(restored) > 3:
            sentences.append(restored)
    return sentences


def split_clauses(text: str) -> list[str]:
    """Clauses of Chinese or English prose: cut after 。！？； (no space needed) and after
    . ! ? ; followed by a space. Each clause keeps its own terminator."""
    return [part.strip() for part in _CLAUSE_END.split(text) if part and part.strip()]


def join_clauses(clauses: list[str]) -> str:
    """Clauses back into prose: Chinese terminators need no space, English ones get one."""
    out = ""
    for clause in clauses:
        out += clause if not out or out[-1] in "。！？；" else " " + clause
    return out


# --------------------------------------------------------------------------- tokens
def estimate_tokens(text: str) -> int:
    """A cheap token estimate: ~4 characters per token for Latin text, ~1.5 for CJK."""
    wide = count_wide(text)
    return (len(text) - wide) // 4 + int(wide / 1.5) + 1


# ----------------------------------------------------------------------- shortening
def shorten(text: str, limit: int = 140) -> str:
    """``text`` on one line, cut at a word boundary near ``limit`` characters, marked " …".

    A boundary is a space, or the edge of a CJK character (Chinese has no spaces between
    words, so every character edge is one); trailing separators are dropped before the mark.
    """
    clean = " ".join(text.split())
    if len(clean) <= limit:
        return clean
    cut = limit
    while cut > limit // 2:
        left, right = clean[cut - 1], clean[cut]
        if right == " " or left == " " or breaks_anywhere(left) or breaks_anywhere(right):
            break
        cut -= 1
    else:
        cut = limit
    head = clean[:cut].rstrip(" ,;:，；：、（(")
    return head + (" …" if not breaks_anywhere(head[-1:]) else "…")


def shorten_to_fit(text: str, budget: int, measure: Callable[[str], int] = len) -> str:
    """The longest prefix of ``text`` that, with "…", measures at most ``budget``.

    ``text`` itself when it fits; "" when not even the ellipsis does.
    """
    if measure(text) <= budget:
        return text
    if budget <= 1:
        return ""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if measure(text[:middle] + "…") <= budget:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + "…" if low else ""
