"""Sentence-level extraction from English scientific prose, without an LLM.

Used by the offline writer to find the problem / method / result sentences of an abstract and
the numbers it reports. Heuristic by design: it only ever *selects* sentences the authors
wrote, so it cannot invent a claim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from paperbrief.text import clean_tex, reported_numbers, split_sentences

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
    sentences = split_sentences(clean_tex(abstract))
    problem: list[str] = []
    method: list[str] = []
    results: list[str] = []
    for position, sentence in enumerate(sentences):
        scores = {
            "problem": _cue_score(sentence, PROBLEM_CUES),
            "method": _cue_score(sentence, METHOD_CUES) * 2,
            "results": _cue_score(sentence, RESULT_CUES) + (1 if reported_numbers(sentence) else 0),
        }
        best = max(scores, key=lambda key: scores[key])
        if scores[best] == 0:
            # Unlabelled opening sentences usually set up the problem.
            if position < 2 and not method:
                problem.append(sentence)
            continue
        {"problem": problem, "method": method, "results": results}[best].append(sentence)
    number_sentences = tuple(s for s in sentences if reported_numbers(s))
    tldr: list[str] = []
    if method:
        tldr.append(standalone(method[0]))
    if results:
        best_result = max(results, key=lambda s: (len(reported_numbers(s)), -len(s)))
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
