"""The text vocabulary every stage shares: sentences, numbers, token estimates, shortening.

One home each, so the evidence index, the writers and the verifier agree on what a
sentence is and what a number is:

* ``split_sentences`` (English prose: abbreviations and decimals stay intact) and
  ``split_clauses`` (Chinese or English prose cut after 。！？； and . ! ? ;);
* ``find_numbers``: every number token with its value, unit and whether it is part of a
  name (``GPT-4o``, ``Qwen2.5``), so each consumer applies its own policy to one grammar;
* ``estimate_tokens``: the one token estimate (budgets, the LLM reservation);
* ``shorten`` (a display cut at a word boundary) and ``shorten_to_fit`` (a strict cut
  under any size measure, e.g. UTF-8 bytes of a chat message);
* ``clean_tex``: the LaTeX escapes arXiv abstracts carry.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# ------------------------------------------------------------------------ sentences
# Abbreviations whose trailing period does not end a sentence.
ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "etc.", "vs.", "cf.", "Fig.", "Eq.", "Sec.", "approx.")
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


# -------------------------------------------------------------------------- numbers
_NUMBER = re.compile(
    r"(?P<sign>[-+−]?)"
    r"(?P<whole>\d{1,3}(?:,\d{3})+(?!\d)|\d+)"
    r"(?P<fraction>\.\d+)?"
    r"(?P<unit>\s?(?:%|％|pp\b|p\.p\.|points?\b|个百分点|×|x\b|倍|[kKMB]\b))?"
)
_UNITS = {
    "%": "%",
    "％": "%",
    "pp": "pp",
    "p.p.": "pp",
    "point": "pp",
    "points": "pp",
    "个百分点": "pp",
    "×": "x",
    "x": "x",
    "倍": "x",
    "k": "k",
    "K": "k",
    "M": "M",
    "B": "B",
}
_YEAR = re.compile(r"^(?:19|20)\d\d$")


@dataclass(frozen=True)
class NumberMention:
    """One number token as written, and what it says.

    ``in_name``: the token is glued to a name on its left (``GPT-4``, ``Qwen2.5``, ``v1.2``);
    ``glued_after``: a letter or hyphen follows a token without unit (``3rd``, ``5-shot``).
    """

    text: str  # as written, e.g. "29.5%" or "-3.2"
    value: float  # magnitude without sign, e.g. 29.5
    decimals: int  # digits after the decimal point as written
    unit: str  # "", "%", "pp", "x", "k", "M" or "B"
    negative: bool
    start: int
    end: int
    in_name: bool
    glued_after: bool
    grouped: bool  # written with thousands separators ("1,234")

    @property
    def is_year(self) -> bool:
        return not self.unit and not self.decimals and bool(_YEAR.match(self.text.lstrip("+-−")))

    @property
    def standalone(self) -> bool:
        """A quantity in its own right: not part of a name, not glued to a word."""
        return not self.in_name and (bool(self.unit) or not self.glued_after)


def find_numbers(text: str) -> list[NumberMention]:
    """Every number token of ``text``, in order (consumers filter by their own policy)."""
    found = []
    for match in _NUMBER.finditer(text):
        sign, whole, fraction, unit = match.group("sign", "whole", "fraction", "unit")
        start, end = match.start(), match.end()
        before = text[start - 1] if start else ""
        before_two = text[max(start - 2, 0) : start]
        in_name = bool(before) and (before.isalnum() or before in "._")
        if not sign and before == "-" and len(before_two) == 2 and before_two[0].isalpha():
            in_name = True  # GPT-4, Llama-3
        after = text[end : end + 1]
        glued = not unit and bool(after) and (after.isalpha() or after == "-")
        found.append(
            NumberMention(
                text=match.group(0).strip(),
                value=float(whole.replace(",", "") + (fraction or "")),
                decimals=len(fraction) - 1 if fraction else 0,
                unit=_UNITS.get((unit or "").strip(), ""),
                negative=sign in ("-", "−"),
                start=start,
                end=end,
                in_name=in_name,
                glued_after=glued,
                grouped="," in whole,
            )
        )
    return found


def reported_numbers(text: str) -> list[str]:
    """The numbers prose reports, as written: not parts of names, not years."""
    return [m.text for m in find_numbers(text) if not m.in_name and not m.is_year]


# --------------------------------------------------------------------------- tokens
def estimate_tokens(text: str) -> int:
    """A cheap token estimate: ~4 characters per token for Latin text, ~1.5 for CJK."""
    cjk = sum(1 for char in text if "\u3000" <= char <= "\u9fff")
    return (len(text) - cjk) // 4 + int(cjk / 1.5) + 1


# ----------------------------------------------------------------------- shortening
def shorten(text: str, limit: int = 140) -> str:
    """``text`` on one line, cut at a word boundary near ``limit`` characters, marked " …"."""
    clean = " ".join(text.split())
    if len(clean) <= limit:
        return clean
    cut = clean[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + " …"


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


# ------------------------------------------------------------------------------ TeX
_TEX_REPLACEMENTS = (
    ("\\%", "%"),
    ("\\&", "&"),
    ("\\_", "_"),
    ("$\\times$", "×"),
    ("\\times", "×"),
    ("$\\sim$", "~"),
    ("\\sim", "~"),
    ("$\\approx$", "≈"),
    ("\\approx", "≈"),
    ("$\\pm$", "±"),
    ("\\pm", "±"),
    ("$\\geq$", "≥"),
    ("$\\leq$", "≤"),
    ("\\textbf", ""),
    ("\\emph", ""),
    ("\\textit", ""),
    ("``", '"'),
    ("''", '"'),
)


def clean_tex(text: str) -> str:
    """Undo the LaTeX escapes arXiv abstracts carry (``97.5\\%``, ``$\\times$``, ``~``)."""
    cleaned = text
    for source, target in _TEX_REPLACEMENTS:
        cleaned = cleaned.replace(source, target)
    cleaned = re.sub(r"\$([^$]{1,40})\$", r"\1", cleaned)  # short inline math: keep its text
    cleaned = re.sub(r"(?<=\w)~(?=\w)", " ", cleaned)  # TeX non-breaking space
    cleaned = re.sub(r"\{([^{}]*)\}", r"\1", cleaned)
    return " ".join(cleaned.split())
