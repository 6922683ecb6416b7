"""Sentence-level extraction from English scientific prose, without an LLM.

Used by the offline writer to find the problem / method / result sentences of an abstract and
the numbers it reports. Heuristic by design: it only ever *selects* sentences the authors
wrote, so it cannot invent a claim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Abbreviations whose trailing period does not end a sentence.
_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "etc.", "vs.", "cf.", "Fig.", "Eq.", "Sec.", "approx.")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[\"“])")
_NUMBER = re.compile(
    r"(?<![\w.])(?<![A-Za-z]-)[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*(?:%|×|x\b|pp\b|points?\b|[kKMB]\b)?"
)
_YEAR = re.compile(r"^(?:19|20)\d\d$")

PROBLEM_CUES = (
    "however",
    "challenge",
    "remain",
    "limited",
    "lack",
    "struggle",
    "problem",
    "fail",
    "costly",
    "expensive",
    "difficult",
    "gap",
    "unclear",
    "despite",
    "bottleneck",
    "suffer",
    "little is known",
    "open question",
    "understudied",
    "insufficient",
)
METHOD_CUES = (
    "we propose",
    "we present",
    "we introduce",
    "we develop",
    "we design",
    "we build",
    "we conduct",
    "we study",
    "we investigate",
    "we analyze",
    "we analyse",
    "we examine",
    "we evaluate",
    "we construct",
    "we release",
    "this paper",
    "in this work",
    "in this paper",
    "our approach",
    "our method",
    "our framework",
    "to address",
    "to this end",
)
RESULT_CUES = (
    "results show",
    "we find",
    "we found",
    "we show",
    "achiev",
    "outperform",
    "improv",
    "reduc",
    "reveal",
    "demonstrat",
    "show that",
    "shows that",
    "finding",
    "surpass",
    "accuracy",
    "increase",
    "speedup",
    "gain",
)
LIMITATION_CUES = ("limitation", "future work", "threat", "does not", "do not", "cannot", "only")


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


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences, keeping abbreviations and decimals intact."""
    protected = clean_tex(text)
    for abbreviation in _ABBREVIATIONS:
        protected = protected.replace(abbreviation, abbreviation.replace(".", "\x00"))
    parts = _SENTENCE_END.split(protected)
    sentences = []
    for part in parts:
        restored = part.replace("\x00", ".").strip()
        if len(restored) > 3:
            sentences.append(restored)
    return sentences


def numbers_in(sentence: str) -> list[str]:
    """The numbers a sentence reports (years and list markers left out)."""
    found = []
    for match in _NUMBER.finditer(sentence):
        token = match.group(0).strip()
        bare = token.rstrip("%×xpPtsoinMBkK ").replace(",", "")
        if not bare or _YEAR.match(bare):
            continue
        found.append(token)
    return found


def _cue_score(sentence: str, cues: tuple[str, ...]) -> int:
    lowered = sentence.lower()
    return sum(1 for cue in cues if cue in lowered)


@dataclass(frozen=True)
class AbstractParts:
    """The abstract's sentences sorted into the digest's sections (each may be empty)."""

    problem: tuple[str, ...]
    method: tuple[str, ...]
    results: tuple[str, ...]
    numbers: tuple[str, ...]  # sentences that report numbers
    tldr: tuple[str, ...]


def classify_abstract(abstract: str) -> AbstractParts:
    """Sort the abstract's sentences into problem / method / results by lexical cues.

    Each sentence goes to at most one section (the one whose cues it matches best, ties
    broken by position: problems come first in abstracts, results last).
    """
    sentences = split_sentences(abstract)
    problem: list[str] = []
    method: list[str] = []
    results: list[str] = []
    for position, sentence in enumerate(sentences):
        scores = {
            "problem": _cue_score(sentence, PROBLEM_CUES),
            "method": _cue_score(sentence, METHOD_CUES) * 2,
            "results": _cue_score(sentence, RESULT_CUES) + (1 if numbers_in(sentence) else 0),
        }
        best = max(scores, key=lambda key: scores[key])
        if scores[best] == 0:
            # Unlabelled opening sentences usually set up the problem.
            if position < 2 and not method:
                problem.append(sentence)
            continue
        {"problem": problem, "method": method, "results": results}[best].append(sentence)
    number_sentences = tuple(s for s in sentences if numbers_in(s))
    tldr: list[str] = []
    if method:
        tldr.append(standalone(method[0]))
    if results:
        best_result = max(results, key=lambda s: (len(numbers_in(s)), -len(s)))
        tldr.append(standalone(best_result))
    if not tldr and sentences:
        tldr.append(sentences[0])
    return AbstractParts(
        problem=tuple(problem[:3]),
        method=tuple(method[:4]),
        results=tuple(results[:4]),
        numbers=number_sentences[:6],
        tldr=tuple(tldr),
    )


_CONNECTIVE = re.compile(
    r"^(?:to (?:address|fill|bridge|tackle) (?:this|these|the) (?:gap|gaps|problem|issue|"
    r"challenge|challenges|limitations?)|following this (?:direction|line|idea)|specifically|"
    r"furthermore|moreover|in addition|additionally|to this end|in this (?:paper|work)|"
    r"here|finally|however|overall|concretely|in particular),\s+",
    re.IGNORECASE,
)


def standalone(sentence: str) -> str:
    """Drop a leading connective ("To address this gap, …", "Furthermore, …") so a sentence
    read out of its abstract does not point at context the reader lacks."""
    stripped = _CONNECTIVE.sub("", sentence, count=1)
    if stripped == sentence or not stripped:
        return sentence
    return stripped[0].upper() + stripped[1:]


def shorten(text: str, limit: int = 140) -> str:
    """Cut ``text`` at a word boundary to at most ``limit`` characters, marking the cut."""
    clean = " ".join(text.split())
    if len(clean) <= limit:
        return clean
    cut = clean[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + " …"
