"""Text helpers shared by the scorers: tokens, light stemming, phrase matching.

Kept deliberately simple and deterministic (no NLP dependency): lower-case word tokens,
a small English stop list and a suffix-stripping stemmer good enough for matching
"repairs"/"repairing"/"repair" and "agents"/"agent".
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

from paperbrief.models import Paper

_TOKEN_RE = re.compile(r"[a-z0-9][a-z0-9\-\+\.#]*[a-z0-9\+#]|[a-z0-9]")

STOPWORDS = frozenset(
    """a an and are as at be been being both but by can could do does for from had has have
    how however if in into is it its itself may might more most much must no not of on or our
    ours out over such than that the their them then there these they this those through to
    under up upon us very was we were what when where whether which while who whom why will
    with within without would you your also via using use used based new novel propose
    proposed paper approach method methods show shows results result work study studies
    towards toward two one three first second each across between among other others
    e.g i.e etc instead rather only just well often many large several""".split()  # noqa: SIM905
)

_SUFFIXES = ("ations", "ation", "ities", "ness", "ings", "ing", "ies", "ers", "er", "ed", "es", "s")


@lru_cache(maxsize=65536)  # a pure memo of a pure function, not shared state
def stem(word: str) -> str:
    """A light suffix-stripping stemmer (keeps words of four letters or fewer as they are)."""
    if len(word) <= 4 or not word.isalpha():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            base = word[: -len(suffix)]
            if suffix == "ies":
                return base + "y"
            return base
    return word


def tokenize(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Lower-case, stemmed word tokens of ``text``; hyphenated words also yield their parts."""
    tokens: list[str] = []
    for raw in _TOKEN_RE.findall(text.lower()):
        parts = [raw]
        if "-" in raw:
            parts = [raw.replace("-", ""), *[p for p in raw.split("-") if p]]
        for part in parts:
            if not keep_stopwords and part in STOPWORDS:
                continue
            tokens.append(stem(part))
    return tokens


@lru_cache(maxsize=4096)
def phrase_tokens(phrase: str) -> tuple[str, ...]:
    """Tokens of a key phrase as they must appear consecutively in a paper (stop words kept)."""
    return tuple(stem(t) for t in _TOKEN_RE.findall(phrase.lower().replace("-", " ")))


def contains_phrase(view: str, phrase: tuple[str, ...]) -> bool:
    """True when ``phrase`` occurs as a consecutive run in a :func:`phrase_view` string."""
    return bool(phrase) and f" {' '.join(phrase)} " in view


def paper_text(paper: Paper) -> str:
    """The text a paper is scored and embedded by: title, then abstract."""
    return f"{paper.title.strip()}. {paper.abstract.strip()}"


def phrase_view(text: str) -> str:
    """Stemmed tokens (stop words kept, hyphens split) joined by spaces and padded with one
    space each side, so a phrase match is a substring test."""
    return " " + " ".join(stem(t) for t in _TOKEN_RE.findall(text.lower().replace("-", " "))) + " "


def text_hash(text: str) -> str:
    """Key of an embedded text in the cache: sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
