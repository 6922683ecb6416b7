"""CJK text, one home: the Unicode ranges paperbrief treats as Chinese, Japanese or Korean.

Each use names the set it means:

* ``IDEOGRAPHS`` (U+4E00–9FFF, the unified ideographs): a Chinese "word" when the number
  grammar counts the words of a quotation;
* ``LETTERS``: the ideographs with extension A and the compatibility ideographs, kana and
  hangul: each one is its own token in full-text search (FTS5 would glue a run of them
  into one word);
* ``WIDE`` (U+3000–9FFF: CJK punctuation, kana, ideographs): text written without spaces,
  about 1.5 characters a token (``text.estimate_tokens``);
* ``FULLWIDTH`` (U+FF00–FFEF: ，：（） …): with ``WIDE``, every character edge is a place
  to cut a line (``text.shorten``).
"""

from __future__ import annotations

import re

IDEOGRAPHS = "\u4e00-\u9fff"
LETTERS = "\u3400-\u4dbf" + IDEOGRAPHS + "\u3040-\u30ff\uac00-\ud7af\uf900-\ufaff"
WIDE = "\u3000-\u9fff"
FULLWIDTH = "\uff00-\uffef"

_IDEOGRAPH = re.compile(f"[{IDEOGRAPHS}]")
_WIDE = re.compile(f"[{WIDE}]")
_BREAKS = re.compile(f"[{WIDE}{FULLWIDTH}]")


def count_ideographs(text: str) -> int:
    return len(_IDEOGRAPH.findall(text))


def count_wide(text: str) -> int:
    return len(_WIDE.findall(text))


def breaks_anywhere(char: str) -> bool:
    """True for a character whose edges are word boundaries (CJK has no spaces)."""
    return bool(char) and _BREAKS.fullmatch(char) is not None
